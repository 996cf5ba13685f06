"""On a shared server, a person's origin cannot make the server post its answers to
addresses only the server reaches: refused when set up, and again when sent, on the very
address connected to (resolved once: no rebinding), with no redirect followed."""

import ipaddress
from urllib.parse import urlsplit

import pytest
from django.utils import timezone

from kernel.refusals import Refusal
from origins.actions import check_create_origin, send_due_replies
from origins.connectors import github, slack
from origins.connectors.webhook import post_signed
from origins.inputs import OriginSpec
from origins.models import OriginReply
from origins.outbound import OutboundRefused, is_public, outbound_client
from tests.origins.conftest import make_origin
from tests.origins.fake_github import FakeGitHub
from tests.origins.fake_slack import FakeSlack
from tests.origins.stub_dns import PUBLIC
from tests.origins.test_answers import ask

pytestmark = pytest.mark.django_db

PRIVATE = [
    "http://127.0.0.1:8000/answers",
    "http://localhost/answers",
    "http://api.localhost/answers",
    "http://10.1.2.3/answers",
    "http://192.168.0.9/answers",
    "http://169.254.169.254/latest/meta-data",
    "http://[::1]:6379/",
    "http://0.0.0.0/",
    "http://[::ffff:127.0.0.1]/",
]
# Every form of an address that is not on the public internet, v6 wrappings of v4 included.
NOT_GLOBAL = [
    "127.0.0.1",
    "10.1.2.3",
    "172.16.0.1",
    "192.168.0.9",
    "169.254.169.254",
    "0.0.0.0",  # noqa: S104 (an address refused, not one bound)
    "100.64.0.1",  # CGNAT
    "224.0.0.1",
    "240.0.0.1",
    "255.255.255.255",
    "::1",
    "::",
    "::ffff:127.0.0.1",  # IPv4-mapped
    "::ffff:10.0.0.1",
    "::127.0.0.1",  # IPv4-compatible
    "::8.8.8.8",
    "64:ff9b::7f00:1",  # NAT64 of 127.0.0.1
    "64:ff9b::a9fe:a9fe",  # NAT64 of 169.254.169.254
    "64:ff9b:1::7f00:1",  # local-use NAT64
    "2002:7f00:1::1",  # 6to4
    "2001:0:4136:e378:8000:63bf:3fff:fdd2",  # Teredo
    "fec0::1",  # site-local
    "fc00::1",  # ULA
    "fd12:3456::1",
    "fe80::1",
    "ff02::1",
    "2001:db8::1",
]
PUBLIC_FORMS = [PUBLIC, "2606:4700::1111", "::ffff:93.184.216.34", "64:ff9b::5db8:d822"]


@pytest.fixture
def shared_server(settings):
    settings.ORIGIN_PRIVATE_URLS = False


def port_of(url: str) -> int:
    return urlsplit(url).port


def spec(**fields) -> OriginSpec:
    return OriginSpec.model_validate({"kind": "webhook", "name": "ci", **fields})


@pytest.mark.parametrize("url", PRIVATE)
def test_it_refuses_a_private_callback_when_set_up(owner, shared_server, url):
    with pytest.raises(Refusal) as refused:
        check_create_origin(owner, spec=spec(callback_url=url))
    assert refused.value.code == "invalid_input"
    assert refused.value.message.startswith("callback_url: ")
    assert "ORIGIN_PRIVATE_URLS" in refused.value.message


def test_it_refuses_a_private_api_url_too(owner, shared_server):
    gh = spec(kind="github", name="gh", api_url="http://127.0.0.1:9/", handle="bot")
    with pytest.raises(Refusal, match="api_url: "):
        check_create_origin(owner, spec=gh)


def test_it_takes_a_public_address(owner, shared_server):
    origin = check_create_origin(owner, spec=spec(callback_url="https://93.184.216.34/x"))
    assert origin.settings["callback_url"] == "https://93.184.216.34/x"


def test_it_the_admin_may_allow_private_addresses(owner, settings):
    settings.ORIGIN_PRIVATE_URLS = True
    origin = check_create_origin(owner, spec=spec(callback_url=PRIVATE[0]))
    assert origin.settings["callback_url"] == PRIVATE[0]


@pytest.mark.parametrize("address", NOT_GLOBAL)
def test_it_connects_to_no_address_that_is_not_global(
    shared_server, stub_dns, loopback_listener, address
):
    # Were the check skipped, the route would carry the connection to the listener.
    stub_dns.answers["callback.test"] = [[address]]
    stub_dns.routes[(address, 80)] = ("127.0.0.1", loopback_listener.port)
    with outbound_client(5) as client, pytest.raises(OutboundRefused, match="private address"):
        client.post("http://callback.test/answers", content=b"{}")
    assert loopback_listener.connections == 0
    assert not is_public(ipaddress.ip_address(address))


@pytest.mark.parametrize("address", PUBLIC_FORMS)
def test_it_takes_global_addresses_and_their_v6_forms(address):
    assert is_public(ipaddress.ip_address(address))


@pytest.mark.parametrize("host", ["127.1", "2130706433", "0x7f.1", "[::ffff:127.0.0.1]"])
def test_it_a_name_the_system_resolves_to_loopback_is_not_connected_to(
    shared_server, loopback_listener, host
):
    url = f"http://{host}:{loopback_listener.port}/answers"
    with outbound_client(5) as client, pytest.raises(OutboundRefused, match="private address"):
        client.post(url, content=b"{}")
    assert loopback_listener.connections == 0


def test_it_a_rebinding_name_is_connected_to_at_the_address_checked(
    shared_server, stub_dns, receiver, loopback_listener, origin
):
    # Checked public, then a second lookup would answer 127.0.0.1: it is never made.
    stub_dns.answers["rebind.test"] = [[PUBLIC], ["127.0.0.1"]]
    stub_dns.routes[(PUBLIC, loopback_listener.port)] = ("127.0.0.1", port_of(receiver.url))
    post_signed(origin, f"http://rebind.test:{loopback_listener.port}/answers", b'{"text":"hi"}')
    assert len(receiver.requests) == 1 and loopback_listener.connections == 0
    assert stub_dns.asked == ["rebind.test"]
    assert receiver.requests[0].headers["Host"] == f"rebind.test:{loopback_listener.port}"


def test_it_a_webhook_callback_that_redirects_to_loopback_reaches_nothing(
    shared_server, stub_dns, receiver, loopback_listener, origin
):
    receiver.status, receiver.location = 302, f"http://127.0.0.1:{loopback_listener.port}/"
    name = stub_dns.public_name("hooks.test", port=80, to=("127.0.0.1", port_of(receiver.url)))
    with pytest.raises(OutboundRefused, match="answered 302, a redirect"):
        post_signed(origin, f"http://{name}/answers", b'{"text":"hi"}')
    assert len(receiver.requests) == 1 and loopback_listener.connections == 0


def test_it_a_github_api_that_redirects_to_loopback_reaches_nothing(
    shared_server, stub_dns, receiver, loopback_listener
):
    receiver.status, receiver.location = 307, f"http://127.0.0.1:{loopback_listener.port}/"
    name = stub_dns.public_name("ghe.test", port=80, to=("127.0.0.1", port_of(receiver.url)))
    config = {"api_url": f"http://{name}/api/v3", "token": "t0k"}
    with pytest.raises(github.GitHubAnswerFailed, match="not reached: .*307, a redirect"):
        github.post_answer(config, {"repo": "octo/shop", "number": 1}, "hi")
    assert len(receiver.requests) == 1 and loopback_listener.connections == 0


def test_it_a_slack_api_that_redirects_to_loopback_reaches_nothing(
    shared_server, stub_dns, receiver, loopback_listener
):
    receiver.status, receiver.location = 301, f"http://127.0.0.1:{loopback_listener.port}/"
    name = stub_dns.public_name("slack.test", port=80, to=("127.0.0.1", port_of(receiver.url)))
    config = {"api_url": f"http://{name}/api/", "bot_token": "xoxb-1"}
    with pytest.raises(OutboundRefused, match="answered 301, a redirect"):
        slack.post_answer(config, {"channel": "C1", "thread_ts": "1.2"}, "hi")
    assert len(receiver.requests) == 1 and loopback_listener.connections == 0


def test_it_github_and_slack_answers_reach_a_public_name_pinned_with_its_host(
    shared_server, stub_dns
):
    with FakeGitHub(token="t0k") as gh, FakeSlack(token="xoxb-1") as sl:
        gh_name = stub_dns.public_name("gh.test", port=80, to=("127.0.0.1", port_of(gh.url)))
        sl_name = stub_dns.public_name("sl.test", port=8080, to=("127.0.0.1", port_of(sl.url)))
        github.post_answer(
            {"api_url": f"http://{gh_name}/", "token": "t0k"}, {"repo": "o/r", "number": 3}, "hi"
        )
        slack.post_answer(
            {"api_url": f"http://{sl_name}:8080/api/", "bot_token": "xoxb-1"},
            {"channel": "C1", "thread_ts": "1.2"},
            "yo",
        )
    assert gh.comments() == [("o/r", 3, None, "hi")] and sl.messages() == [("C1", "1.2", "yo")]
    assert (
        gh.calls[0].headers["Host"] == "gh.test" and sl.calls[0].headers["Host"] == "sl.test:8080"
    )


def test_it_an_answer_to_a_private_address_is_not_sent(owner, receiver, settings):
    # Stored while the admin allowed it, sent after the admin turned it off.
    origin = make_origin(owner, settings={"callback_url": receiver.url})
    chat = ask(origin, "hello")
    settings.ORIGIN_PRIVATE_URLS = False
    reply = OriginReply.objects.create(
        thread=chat.origin_thread,
        text="hi",
        next_attempt_at=timezone.now(),
        created_at=timezone.now(),
    )
    assert send_due_replies() == 1
    reply.refresh_from_db()
    assert reply.state == "pending" and "private address" in reply.last_error
    assert receiver.requests == []
