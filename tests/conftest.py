"""Root conftest: fixtures live in tests/fixtures/<area>.py, one module per area."""

pytest_plugins = [
    "tests.fixtures.bus",
    "tests.fixtures.stack",
    "tests.fixtures.corpus",
]
