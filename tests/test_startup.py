"""What a Crosstalk process that is not the web server loads when it starts. Agents and
scripts start `manage.py mcp_stdio`, `create_api_token` or `run_turns` often, so only
`manage.py serve` pays for Daphne and Twisted (about half a second of CPU a start)."""

import json
import os
import subprocess
import sys

from tests.servers import ROOT

LOADED = "import django, json, sys; django.setup(); print(json.dumps(list(sys.modules)))"


def test_setting_django_up_loads_neither_daphne_nor_twisted():
    done = subprocess.run(  # noqa: S603 (this interpreter, a fixed script)
        [sys.executable, "-c", LOADED],
        cwd=ROOT,
        env=os.environ | {"DJANGO_SETTINGS_MODULE": "tests.settings"},
        capture_output=True,
        text=True,
        check=True,
    )

    loaded = {name.split(".")[0] for name in json.loads(done.stdout)}
    assert "django" in loaded and "peers" in loaded
    assert not loaded & {"daphne", "twisted", "autobahn"}
