"""On a shared server, a person's origin cannot make the server post its answers to
addresses only the server reaches: refused when set up, and again when sent."""

import pytest
from django.utils import timezone

from chats.refusals import Refusal
from origins.actions import send_due_replies
from origins.configure import check_create_origin
from origins.inputs import OriginSpec
from origins.models import OriginReply
from origins.outbound import check_sendable
from tests.origins.conftest import make_origin
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


@pytest.fixture
def shared_server(settings):
    settings.ORIGIN_PRIVATE_URLS = False


def spec(**fields) -> OriginSpec:
    return OriginSpec.model_validate({"kind": "webhook", "name": "ci", **fields})


@pytest.mark.parametrize("url", PRIVATE)
def test_a_private_callback_is_refused_when_set_up(owner, shared_server, url):
    with pytest.raises(Refusal) as refused:
        check_create_origin(owner, spec=spec(callback_url=url))
    assert refused.value.code == "invalid_input"
    assert refused.value.message.startswith("callback_url: ")
    assert "ORIGIN_PRIVATE_URLS" in refused.value.message


def test_a_private_api_url_is_refused_too(owner, shared_server):
    github = spec(kind="github", name="gh", api_url="http://127.0.0.1:9/", handle="bot")
    with pytest.raises(Refusal, match="api_url: "):
        check_create_origin(owner, spec=github)


def test_a_public_address_is_taken(owner, shared_server):
    origin = check_create_origin(owner, spec=spec(callback_url="https://93.184.216.34/x"))
    assert origin.settings["callback_url"] == "https://93.184.216.34/x"


def test_the_admin_may_allow_private_addresses(owner, settings):
    settings.ORIGIN_PRIVATE_URLS = True
    origin = check_create_origin(owner, spec=spec(callback_url=PRIVATE[0]))
    assert origin.settings["callback_url"] == PRIVATE[0]


@pytest.mark.parametrize("url", ["http://127.1/x", "http://2130706433/x", "http://0x7f.1/x"])
def test_a_name_that_resolves_to_a_private_address_is_not_sent_to(shared_server, url):
    with pytest.raises(RuntimeError, match="private address"):
        check_sendable(url)


def test_an_answer_to_a_private_address_is_not_sent(owner, receiver, settings):
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
