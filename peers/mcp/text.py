"""What a model reads: a one-line summary, then a compact list or the framed text.

Rendered from the same JSON bodies REST answers with (the structured content), so
the prose can never say something the JSON does not."""

ENTRY_HEADS = {
    "prompt": "The person wrote",
    "answer": "It answered",
    "peer_in": "It received a message",
    "peer_out": "It sent a message",
}


def quote(text: str, most: int = 160) -> str:
    line = " ".join(text.split())
    return f"“{line if len(line) <= most else line[: most - 1] + '…'}”"


def where(chat: dict) -> str:
    parts = [f"id {chat['id']}"]
    parts += [f"{key} {chat[key]}" for key in ("repository", "branch") if chat.get(key)]
    return ", ".join(parts)


def chat_line(chat: dict) -> str:
    line = f"- {chat['name']} ({where(chat)}) — {chat['status']}"
    if "how_fast" in chat:
        line += f"; a message arrives {chat['how_fast']['words']}"
    else:
        line += f"; agent-to-agent {'on' if chat['peers'] else 'off'}"
    if chat.get("last_asked"):
        line += f". Last asked: {quote(chat['last_asked'])}"
    if chat.get("last_answered"):
        line += f". Last answered: {quote(chat['last_answered'])}"
    return line


def chat_list(body: dict, *, empty: str, head: str) -> str:
    if not body["items"]:
        return empty
    shown = f"{len(body['items'])} of {body['count']}" if body["count"] > len(body["items"]) else ""
    lines = [chat_line(chat) for chat in body["items"]]
    return "\n".join([head.format(n=shown or body["count"]), *lines])


def conversation(name: str, body: dict) -> str:
    if not body["items"]:
        return f"{name} has no conversation entries yet."
    blocks = [f"The latest {body['count']} entries of {name}, oldest first:"]
    for entry in body["items"]:
        blocks.append(f"[{ENTRY_HEADS.get(entry['kind'], entry['kind'])}, {entry['created_at']}]")
        blocks.append(entry["text"])
    return "\n\n".join(blocks)


def who(chat_id: str | None, names: dict[str, str], *, nobody: str = "you") -> str:
    return names.get(chat_id, chat_id) if chat_id else nobody


def message_line(message: dict, names: dict[str, str]) -> str:
    route = f"{who(message['from_chat'], names)} → {who(message['to_chat'], names)}"
    state = f"({message['sent_by']}): {message['words']}"
    return f"- {message['id']} {route} {state}. {quote(message['text'])}"


def message_list(body: dict, names: dict[str, str]) -> str:
    if not body["items"]:
        return "No peer messages."
    head = f"{len(body['items'])} of {body['count']} messages, newest first:"
    return "\n".join([head, *(message_line(message, names) for message in body["items"])])


def watching(body: dict, name: str) -> str:
    """MessageChat with notifyWhenIdle and no text: the subscription alone."""
    return (
        f"You will hear once, with a notice, when {name} next ends a turn "
        f"(subscription {body['id']}, until {body['expires_at']})."
    )


def sent(body: dict, names: dict[str, str], *, waited: bool) -> str:
    """MessageChat's answer: the reply itself when a wait took one, else where the message is."""
    to = who(body["to_chat"], names)
    answer = body.get("answer_message")
    if answer is not None:
        return f"{to} answered (message {answer['id']}):\n\n{answer['text']}"
    line = f"Sent {body['id']} to {to}: {body['words']}."
    if waited and not body.get("note"):
        line = f"No answer came while this call waited. {line}"
    if body.get("note"):
        line += f" {body['note']}"
    if body.get("notify_when_idle"):
        line += f" You will also hear once when {to} next ends a turn."
    return line


def found_line(item: dict) -> str:
    said = {"prompt": "you asked", "answer": "the agent answered", "message": "a message"}
    where = f"{item['chat_name']} ({item['chat']})"
    return f"- {item['created_at']} in {where}, {said[item['kind']]}: {quote(item['text'], 300)}"


def found_list(body: dict) -> str:
    """The search tool's answer: what was found, newest first."""
    if not body["items"]:
        return "Nothing said in your chats has these words."
    total = f"{body['count']}+" if body["more"] else str(body["count"])
    head = f"{len(body['items'])} of {total} found, newest first:"
    return "\n".join([head, *(found_line(item) for item in body["items"])])
