"""Running the stack: the supervisor of ``duocthu up``, the book it serves (sample or synthetic), the sample's
shipped vectors, and the same services in one process (an in-process index for evals and benchmarks)."""
