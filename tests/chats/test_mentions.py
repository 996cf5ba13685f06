"""GET /chats/mentions/: the composer's @ picker, scoped to the signed-in person's chats."""

from django.test import Client

from tests.conftest import make_chat

URL = "/chats/mentions/"


def names(client, q: str | None = None) -> list[str]:
    response = client.get(URL, {} if q is None else {"q": q})
    assert response.status_code == 200
    body = response.json()
    assert body["count"] == len(body["items"])
    return [item["name"] for item in body["items"]]


def test_it_lists_the_persons_chats_with_name_repository_branch_and_status(
    owner_client, chat, other_chat
):
    response = owner_client.get(URL, {"q": "CHECK"})
    assert response.json() == {
        "items": [
            {
                "id": chat.pk,
                "name": "checkout",
                "repository": "shop-web",
                "branch": "feat/cart",
                "status": chat.status,
            }
        ],
        "count": 1,
    }
    assert sorted(names(owner_client)) == ["checkout", "payments-api"]
    assert names(owner_client, "nothing-like-it") == []


def test_it_never_lists_another_accounts_chats(outsider_client, outsider_chat, chat, other_chat):
    assert names(outsider_client) == ["secret"]
    assert names(outsider_client, "checkout") == []
    assert names(outsider_client, chat.pk) == []


def test_it_asks_to_sign_in_first(chat):
    response = Client().get(URL, {"q": "check"})
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]


def test_hostile_queries_list_nothing_and_break_nothing(owner_client, owner, chat):
    make_chat(owner, "-rf", peers=True)
    assert names(owner_client, "-rf") == ["-rf"]
    assert owner_client.get(URL, {"q": "a\x00b"}).status_code == 400  # as on every page
    assert names(owner_client, "%") == [] and names(owner_client, "_") == []
    assert names(owner_client, "x" * 100_000) == []


def test_it_lists_at_most_twenty(owner_client, owner):
    for n in range(25):
        make_chat(owner, f"worker-{n:02}")
    assert len(names(owner_client, "worker")) == 20


def test_it_takes_no_post(owner_client):
    assert owner_client.post(URL).status_code == 405


def test_it_leaves_out_archived_chats(owner, owner_client):
    from chats.models import Chat
    from tests.conftest import make_chat

    make_chat(owner, "shelved")
    Chat.objects.filter(name="shelved").update(archived=True)
    found = owner_client.get("/chats/mentions/?q=shel").json()
    assert found["items"] == []
