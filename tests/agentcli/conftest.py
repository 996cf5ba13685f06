# The agent-CLI fixtures live in tests/agentcli/fixtures.py and are registered for the
# whole suite by tests/conftest.py, so tests in other folders can use them too.
