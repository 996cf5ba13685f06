"""One refusal type for every layer: a stable code, a sentence the caller can act on."""

STATUS_BY_CODE = {
    "invalid_input": 400,
    "empty_message": 400,
    "message_too_long": 400,
    "no_such_message": 400,
    "not_yourself": 400,
    "name_taken": 400,
    # A chat whose kind takes no session the person runs (agents.attach.actions).
    "not_attachable": 400,
    "outside_origin": 403,
    "outside_chat": 403,
    "not_reachable": 403,
    "peers_off": 403,
    "runners_not_allowed": 403,
    "not_authenticated": 401,
    "bad_signature": 401,
    "no_chat": 404,
    "no_message": 404,
    "not_found": 404,
    "method_not_allowed": 405,
    "already_delivered": 409,
    # Approve or deny of a message that is not waiting for approval (peers.actions.approval).
    "not_awaiting_approval": 409,
    "not_running": 409,
    "idempotency_key_reused": 409,
    "idempotency_in_progress": 409,
    "idempotency_key_done": 409,
    "duplicate_delivery": 409,
    # An origin's answer (origins.actions.resend): sent already, or its origin disabled.
    "already_sent": 409,
    "origin_disabled": 409,
    "too_large": 413,
    # Logins locked out for a while (accounts.throttle).
    "too_many_attempts": 429,
    "server_error": 500,
}


class Refusal(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message

    @property
    def status(self) -> int:
        if self.code.startswith("limit_"):
            return 429
        return STATUS_BY_CODE.get(self.code, 400)

    def as_json(self) -> dict:
        return {"code": self.code, "message": self.message}


def no_chat() -> Refusal:
    # Another account's chat must read exactly like one that does not exist.
    return Refusal(
        "no_chat", "There is no such chat in your account. List the chats to find its id."
    )
