"""Vietnamese text analysis shared by every stage that matches or indexes text."""
