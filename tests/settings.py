"""The settings every test process runs with, and every server and `manage.py` command a
test starts (they inherit DJANGO_SETTINGS_MODULE): Crosstalk's own, with passwords
hashed in one round (tests/hashers.py). tests/test_security_headers.py starts servers on
crosstalk.settings itself."""

from crosstalk.settings import *  # noqa: F403

PASSWORD_HASHERS = ["tests.hashers.QuickPBKDF2PasswordHasher"]
