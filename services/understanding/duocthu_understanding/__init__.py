"""Understanding stage: QueryFrame from a bounded drug shortlist."""
