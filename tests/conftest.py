"""Root conftest: fixtures live in tests/fixtures/<area>.py, one module per area."""

pytest_plugins = [
    "tests.fixtures.bus",
    "tests.fixtures.stack",
    "tests.fixtures.postgres",
    "tests.fixtures.corpus",
    "tests.fixtures.ingest",
    "tests.fixtures.index",
    "tests.fixtures.understanding",
    "tests.fixtures.retrieval",
    "tests.fixtures.generation",
    "tests.fixtures.verifier",
    "tests.fixtures.gateway",
]
