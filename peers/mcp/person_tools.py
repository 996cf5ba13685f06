"""The person's tools (an API token), each the twin of one REST route of docs/api.md:

list_peer_chats      GET /api/v1/chats, or with `chat` GET /api/v1/chats/{id}/reach
connect_chats        POST /api/v1/connections
send_peer_message    POST /api/v1/messages
read_peers           GET /api/v1/messages[?chat=&state=&q=]
set_peer_reach       PATCH /api/v1/chats/{id} {"peers": …}
cancel_peer_message  POST /api/v1/messages/{id}/cancel
approve_peer_message POST /api/v1/messages/{id}/approve
deny_peer_message    POST /api/v1/messages/{id}/deny
search               GET /api/v1/search?q=[&chat=&kind=&since=&until=]

start_chat and update_chat, the twins of POST and PATCH /api/v1/chats, live beside those
routes at the top (crosstalk.mcp.chat_tools): starting a chat may need origins."""

from chats.api import Caller
from chats.inputs import ChatUpdate
from chats.models import Chat
from chats.selectors import access_chat, listed_chats
from chats.serializers import chat_json
from kernel.api import page
from peers import actions
from peers.inputs import ConnectInput, PersonMessageInput
from peers.mcp import text
from peers.mcp.inputs import (
    CancelInput,
    DecideInput,
    ListPeerChatsInput,
    ReadPeersInput,
    SearchInput,
    SetPeerReachInput,
)
from peers.mcp.registry import Answer, Tool
from peers.said import results_json, search_said
from peers.selectors import find_messages, reach_of
from peers.serializers import chats_with_how_fast, listing, message_json


def names_of(user, bodies: list[dict]) -> dict[str, str]:
    ids = {body[key] for body in bodies for key in ("from_chat", "to_chat") if body[key]}
    # Deleted chats too: their messages name "a deleted chat".
    return dict(Chat.objects.filter(user=user, pk__in=ids).values_list("pk", "name"))


def messages_answer(caller: Caller, body: dict) -> Answer:
    return Answer(text.message_list(body, names_of(caller.user, body["items"])), body)


def chat_answer(chat: Chat, summary: str) -> Answer:
    body = chat_json(chat)
    return Answer(f"{summary}\n{text.chat_line(body)}", body)


def list_peer_chats(caller: Caller, spec: ListPeerChatsInput) -> Answer:
    if spec.chat is None:
        chats = listed_chats(caller.user, archived=spec.archived)
        body = page(chats, chat_json, spec.limit, spec.offset)
        return Answer(
            text.chat_list(body, head="Your {n} chats:", empty="You have no chats."), body
        )
    chat = access_chat(caller.user, spec.chat)
    body = listing(chats_with_how_fast(reach_of(chat)))
    empty = (
        f"{chat.name} can reach no chat now (its messaging is off, or no other chat ran lately)."
    )
    return Answer(
        text.chat_list(body, head=f"{chat.name} can reach {{n}} chats:", empty=empty), body
    )


def connect_chats(caller: Caller, spec: ConnectInput) -> Answer:
    sent = actions.check_connect_chats(caller.user, chat_ids=spec.chats, brief=spec.brief)
    body = listing([message_json(message) for message in sent])
    first, second = (message.to_chat.name for message in sent)
    summary = f"Connected {first} and {second}: both switched on, each got your brief."
    return Answer(
        f"{summary}\n{text.message_list(body, names_of(caller.user, body['items']))}", body
    )


def send_peer_message(caller: Caller, spec: PersonMessageInput) -> Answer:
    fields = spec.model_dump(exclude={"to_chat"})  # from_chat, text, reply_to
    return sent_message(actions.check_send_as_person(caller.user, to=spec.to_chat, **fields))


def sent_message(message) -> Answer:
    body = message_json(message)
    names = names_of(message.user, [body])
    as_whom = f" as {names[body['from_chat']]}" if body["from_chat"] else ""
    return Answer(f"Sent{as_whom}: {text.message_line(body, names)[2:]}", body)


def read_peers(caller: Caller, spec: ReadPeersInput) -> Answer:
    messages = find_messages(caller.user, spec)
    return messages_answer(caller, page(messages, message_json, spec.limit, spec.offset))


def set_peer_reach(caller: Caller, spec: SetPeerReachInput) -> Answer:
    chat = access_chat(caller.user, spec.chat)
    chat = actions.check_update_chat(caller.user, chat, spec=ChatUpdate(peers=spec.peers))
    return chat_answer(chat, f"Agent-to-agent messaging is {'on' if chat.peers else 'off'}:")


def cancel_peer_message(caller: Caller, spec: CancelInput) -> Answer:
    body = message_json(actions.check_cancel_message(caller.user, message_id=spec.message))
    return Answer(f"{body['id']}: {body['words']}.", body)


def approve_peer_message(caller: Caller, spec: DecideInput) -> Answer:
    body = message_json(actions.check_approve_message(caller.user, message_id=spec.message))
    return Answer(f"Approved {body['id']}: {body['words']}.", body)


def deny_peer_message(caller: Caller, spec: DecideInput) -> Answer:
    body = message_json(actions.check_deny_message(caller.user, message_id=spec.message))
    return Answer(f"Denied {body['id']}: {body['words']}.", body)


def search(caller: Caller, spec: SearchInput) -> Answer:
    found = search_said(caller.user, spec, limit=spec.limit, offset=spec.offset)
    body = results_json(found)
    return Answer(text.found_list(body), body)


TOOLS = [
    Tool(
        "list_peer_chats",
        "List your chats (id, name, repository, branch, status, agent-to-agent on or off). "
        "With `chat`: the chats that chat could message now, each with how fast a message "
        "would reach it. `limit`/`offset` page the list of your chats.",
        ListPeerChatsInput,
        list_peer_chats,
    ),
    Tool(
        "connect_chats",
        "Connect two chats: both get agent-to-agent messaging switched on, and each gets one "
        "message from you naming the other and carrying your `brief`; their answers come back "
        "to you. `chats`: the two chat ids; a chat started from outside (its `origin` is not "
        '"user") cannot be connected (outside_chat).',
        ConnectInput,
        connect_chats,
        creates=True,
    ),
    Tool(
        "send_peer_message",
        "Send a peer message to a chat (`toChat`), from you or, with `fromChat`, as that "
        "chat (its answer then goes to that chat; never a chat started from outside: "
        "outside_chat). `replyTo`: a message the recipient sent.",
        PersonMessageInput,
        send_peer_message,
        creates=True,
        replay=sent_message,
    ),
    Tool(
        "read_peers",
        "Read peer messages, newest first, with their state (pending, queued, delivered, "
        "cancelled, not delivered). `chat`: only that chat's, both ways; `state`: only those "
        "in it; `query`: only those whose text has these words, best match first. "
        "`limit`/`offset` page.",
        ReadPeersInput,
        read_peers,
    ),
    Tool(
        "set_peer_reach",
        "Switch a chat's agent-to-agent messaging on or off (`peers`). Off, its agent gets "
        "no tools and the other chats can neither list, read nor message it.",
        SetPeerReachInput,
        set_peer_reach,
    ),
    Tool(
        "cancel_peer_message",
        "Cancel a message (`message`: its id) that has not reached its agent yet, or remove "
        "it from a queue. A delivered message cannot be cancelled.",
        CancelInput,
        cancel_peer_message,
    ),
    Tool(
        "approve_peer_message",
        "Approve a message awaiting your approval (`message`: its id; it went to a chat whose "
        "`inbound` is `ask`): it goes on by the fastest path that chat offers now, and its "
        "sender is told. Any other message: not_awaiting_approval.",
        DecideInput,
        approve_peer_message,
    ),
    Tool(
        "deny_peer_message",
        "Deny a message awaiting your approval (`message`: its id): it is cancelled with "
        "`detail: denied` and never reaches that chat; its sender is told.",
        DecideInput,
        deny_peer_message,
    ),
    Tool(
        "search",
        "Search everything said in your chats: your prompts, the agents' answers and peer "
        "messages. `query`: words, stemmed (ports finds port), every word must be there. "
        "`chat`: only that chat's; `kind`: prompt, answer or message; `since`/`until`: days "
        "(YYYY-MM-DD, UTC). Newest first; each item has an excerpt with the words found "
        "(`html` marks them with <mark>). `count` stops at 100 (`more`: beyond). "
        "`limit`/`offset` page.",
        SearchInput,
        search,
    ),
]
