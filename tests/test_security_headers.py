"""Every page carries the security headers; HTTPS=1 turns on what a TLS deployment needs."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("path", ["/accounts/login/", "/chats/", "/api/v1/chats", "/nowhere/"])
def test_it_every_answer_carries_the_headers(client, db, path):
    response = client.get(path)
    policy = response["Content-Security-Policy"]
    assert "default-src 'self'" in policy
    assert "script-src 'self'" in policy and "unsafe-inline" not in policy
    assert "style-src 'self'" in policy
    assert "frame-ancestors 'none'" in policy
    assert response["X-Content-Type-Options"] == "nosniff"
    assert response["Referrer-Policy"] == "same-origin"
    assert response["X-Frame-Options"] == "DENY"


def test_it_pages_have_no_inline_script_or_style(owner_client, chat):
    for path in ["/chats/", f"/chats/{chat.pk}/", "/settings/", "/activity/"]:
        page = owner_client.get(path).text
        assert "<style" not in page and ' style="' not in page, path
        for tag in page.split("<script")[1:]:
            assert tag.split(">", 1)[0].strip().startswith("src="), (path, tag[:80])
        assert " onclick=" not in page and " onsubmit=" not in page, path


def settings_under(**variables: str) -> dict:
    code = (
        "import json, django; django.setup(); from django.conf import settings as s; "
        "print(json.dumps({name: getattr(s, name, None) for name in ("
        "'SESSION_COOKIE_SECURE', 'CSRF_COOKIE_SECURE', 'SECURE_HSTS_SECONDS', "
        "'SECURE_HSTS_INCLUDE_SUBDOMAINS', 'SECURE_PROXY_SSL_HEADER', 'SECURE_SSL_REDIRECT')}))"
    )
    env = {"DJANGO_SETTINGS_MODULE": "crosstalk.settings", "PATH": "/usr/bin:/bin", **variables}
    done = subprocess.run(  # noqa: S603
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, check=True
    )
    return json.loads(done.stdout)


def test_it_https_turns_on_secure_cookies_hsts_and_the_proxy_header():
    plain = settings_under()
    assert plain["SESSION_COOKIE_SECURE"] is False
    assert plain["CSRF_COOKIE_SECURE"] is False
    assert not plain["SECURE_HSTS_SECONDS"]
    assert plain["SECURE_PROXY_SSL_HEADER"] is None
    tls = settings_under(HTTPS="1")
    assert tls["SESSION_COOKIE_SECURE"] is True
    assert tls["CSRF_COOKIE_SECURE"] is True
    assert tls["SECURE_HSTS_SECONDS"] == 31536000
    assert tls["SECURE_HSTS_INCLUDE_SUBDOMAINS"] is False
    assert tls["SECURE_PROXY_SSL_HEADER"] == ["HTTP_X_FORWARDED_PROTO", "https"]
    assert tls["SECURE_SSL_REDIRECT"] is False
    assert settings_under(HTTPS="1", SSL_REDIRECT="1")["SECURE_SSL_REDIRECT"] is True


def test_it_behind_the_tls_proxy_cookies_are_secure_and_hsts_is_sent(client, owner, settings):
    settings.SESSION_COOKIE_SECURE = settings.CSRF_COOKIE_SECURE = True
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    settings.SECURE_HSTS_SECONDS = 31536000
    response = client.post(
        "/accounts/login/",
        {"username": "alice", "password": "alice-password-1"},
        HTTP_X_FORWARDED_PROTO="https",
    )
    assert response.status_code == 302
    assert response.cookies["sessionid"]["secure"] is True
    assert response["Strict-Transport-Security"] == "max-age=31536000"


def test_it_serve_takes_the_clients_address_from_the_proxy_only_when_told(settings):
    from crosstalk.management.commands.serve import Command

    settings.PROXY_ADDRESS_HEADER = "X-Real-IP"
    assert Command().build_server("127.0.0.1", 1, runner=False).proxy_forwarded_address_header
    settings.PROXY_ADDRESS_HEADER = ""
    server = Command().build_server("127.0.0.1", 1, runner=False)
    assert server.proxy_forwarded_address_header is None
