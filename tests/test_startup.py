"""What a Crosstalk process that is not the web server loads when it starts. Agents and
scripts start `manage.py mcp_stdio`, `create_api_token` or `run_turns` often, so only
`manage.py serve` pays for Daphne and Twisted (about half a second of CPU a start). And
the server itself loads the MCP and A2A SDKs (over a second of CPU) only when first
asked for /mcp or /a2a/ (the live tests of those faces show they then answer)."""

import json
import os
import subprocess
import sys

from tests.servers import ROOT

LOADED = "import {module}, json, sys; print(json.dumps(list(sys.modules)))"


def top_modules_after(setup: str) -> set[str]:
    done = subprocess.run(  # noqa: S603 (this interpreter, a fixed script)
        [sys.executable, "-c", LOADED.format(module=setup)],
        cwd=ROOT,
        env=os.environ | {"DJANGO_SETTINGS_MODULE": "tests.settings"},
        capture_output=True,
        text=True,
        check=True,
    )
    return {name.split(".")[0] for name in json.loads(done.stdout)}


def test_it_setting_django_up_loads_neither_daphne_nor_twisted():
    loaded = top_modules_after("django; django.setup(); import peers.models")

    assert "django" in loaded and "peers" in loaded
    assert not loaded & {"daphne", "twisted", "autobahn"}


def test_it_the_server_application_loads_the_mcp_and_a2a_sdks_on_first_use_only():
    loaded = top_modules_after("crosstalk.asgi")

    assert {"channels", "peers", "origins"} <= loaded
    assert not loaded & {"mcp", "mcp_types", "a2a"}
