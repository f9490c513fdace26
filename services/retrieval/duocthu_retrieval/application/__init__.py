"""Use cases of the retrieval stage: the query side (routes A–D, monograph mode) and index maintenance."""
