"""`manage.py peer_limits [NAME=VALUE ...]`: prints every limit; sets the ones given."""

from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from peers.limits import NAMES, current_limits, defaults

pytestmark = pytest.mark.django_db


def run(*args: str) -> list[str]:
    out = StringIO()
    call_command("peer_limits", *args, stdout=out)
    return out.getvalue().splitlines()


def test_it_prints_every_limit_with_its_value_and_default():
    lines = run()
    assert lines == [f"{name} {value} (default {value})" for name, value in defaults().items()]
    assert "chat_per_hour 30 (default 30)" in lines and len(lines) == len(NAMES)


def test_it_sets_the_limits_given():
    lines = run("chat_per_hour=60", "max_wait_seconds=10")
    assert "chat_per_hour 60 (default 30)" in lines
    assert "max_wait_seconds 10 (default 45)" in lines
    limits = current_limits()
    assert (limits.chat_per_hour, limits.max_wait_seconds) == (60, 10)
    assert run()[NAMES.index("chat_per_hour")] == "chat_per_hour 60 (default 30)"


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (["chat_per_hour=60", "speed=3"], "speed"),
        (["chat_per_hour=60", "wakes_per_hour=lots"], "wakes_per_hour"),
        (["chat_per_hour=60", "pair_window_minutes=0"], "pair_window_minutes"),
        (["chat_per_hour=60", "max_text=100001"], "max_text"),
        (["chat_per_hour"], "chat_per_hour"),
    ],
)
def test_it_refuses_a_bad_name_or_value_and_changes_nothing(args, named):
    with pytest.raises(CommandError, match=named):
        run(*args)
    assert current_limits().chat_per_hour == 30
