"""The person's MCP tools for origins (an API token), each the twin of one REST route of
origins.api, taking the same input model and answering the same JSON body:

list_origins          GET /api/v1/origins
create_origin         POST /api/v1/origins
update_origin         PATCH /api/v1/origins/{id}
delete_origin         DELETE /api/v1/origins/{id}  (REST: 204; here {"id", "deleted"})
rotate_origin_secret  POST /api/v1/origins/{id}/secret
read_origin_log       GET /api/v1/origins/{id}/answers (and /requests, as `requests`)
resend_origin_answer  POST /api/v1/origins/{id}/answers/{answer}/resend"""

from chats.api import Caller
from kernel.api import page
from origins import actions
from origins.inputs import (
    OriginLogPage,
    OriginPage,
    OriginRef,
    OriginSpec,
    OriginUpdate,
    ResendInput,
)
from origins.selectors import account_origins, get_own_origin, origin_answers, origin_requests
from origins.serializers import answer_json, origin_json, origin_with_secret, request_json
from peers.mcp.registry import Answer, Tool


def origin_line(body: dict) -> str:
    state = "" if body["enabled"] else ", disabled"
    return f"- {body['name']} (id {body['id']}, {body['kind']}{state}): {body['url']}"


def list_origins(caller: Caller, spec: OriginPage) -> Answer:
    body = page(account_origins(caller.user), origin_json, spec.limit, spec.offset)
    lines = [origin_line(item) for item in body["items"]]
    head = f"Your {body['count']} origins:" if body["count"] else "You have no origins."
    return Answer("\n".join([head, *lines]), body)


def create_origin(caller: Caller, spec: OriginSpec) -> Answer:
    body = origin_with_secret(actions.check_create_origin(caller.user, spec=spec))
    return Answer(
        f"Added:\n{origin_line(body)}\nIts secret, shown this once: {body['secret']}", body
    )


def update_origin(caller: Caller, spec: OriginUpdate) -> Answer:
    origin = get_own_origin(caller.user, spec.origin)
    changed = actions.check_change_origin(caller.user, origin, changes=spec.changes())
    body = origin_json(changed)
    return Answer(f"Updated:\n{origin_line(body)}", body)


def delete_origin(caller: Caller, spec: OriginRef) -> Answer:
    origin = get_own_origin(caller.user, spec.origin)
    body = {"id": origin.public_id, "deleted": True}
    actions.do_delete_origin(origin)
    return Answer(f"Deleted the origin {origin.name}; the chats it started stay.", body)


def rotate_origin_secret(caller: Caller, spec: OriginRef) -> Answer:
    origin = get_own_origin(caller.user, spec.origin)
    actions.do_regenerate_secret(origin)
    body = origin_with_secret(origin)
    return Answer(f"New secret of {origin.name}, shown this once: {body['secret']}", body)


def read_origin_log(caller: Caller, spec: OriginLogPage) -> Answer:
    origin = get_own_origin(caller.user, spec.origin)
    answers = page(origin_answers(origin), answer_json, spec.limit, spec.offset)
    requests = page(origin_requests(origin), request_json, spec.limit, spec.offset)
    body = {**answers, "requests": requests}
    lines = [
        f"- answer {item['id']} to chat {item['chat']}: {item['state']} after "
        f"{item['attempts']} tries{' — ' + item['last_error'] if item['last_error'] else ''}"
        for item in answers["items"]
    ]
    head = f"{origin.name}: {requests['count']} requests, {answers['count']} answers."
    return Answer("\n".join([head, *lines]), body)


def resend_origin_answer(caller: Caller, spec: ResendInput) -> Answer:
    origin = get_own_origin(caller.user, spec.origin)
    body = answer_json(actions.check_resend_answer(origin, spec.answer))
    return Answer(f"Answer {body['id']} is {body['state']}: it is sent again shortly.", body)


ORIGIN_FIELDS = (
    "`kind` (webhook, github, slack, a2a, automation), `name`, `enabled`, `secret` (blank: "
    "made for you), the chat each request starts (`agent`, `repository`, `branch`, "
    "`folder`, `model`, `permission_mode`, `command`), `requests_per_hour` (null: the "
    "admin's), and per kind `callback_url` (webhook), `handle`, `api_url`, `token`, "
    "`app_id`, `installation_id`, `private_key` (GitHub), `bot_token`, `api_url` (Slack)"
)

TOOLS = [
    Tool("list_origins", "Your origins (`limit`, `offset`), by name.", OriginPage, list_origins),
    Tool(
        "create_origin",
        f"Add an origin. Fields: {ORIGIN_FIELDS}. Its secret is in the answer, this once.",
        OriginSpec,
        create_origin,
        creates=True,
    ),
    Tool(
        "update_origin",
        "Change an origin (`origin`: its id): any of its fields; what is left out stays, "
        "its kind never changes.",
        OriginUpdate,
        update_origin,
    ),
    Tool(
        "delete_origin",
        "Delete an origin (`origin`: its id); the chats it started stay.",
        OriginRef,
        delete_origin,
    ),
    Tool(
        "rotate_origin_secret",
        "A new secret for an origin (`origin`: its id), shown this once; the old one stops.",
        OriginRef,
        rotate_origin_secret,
    ),
    Tool(
        "read_origin_log",
        "An origin's delivery log (`origin`: its id): the answers sent back (state, "
        "attempts, last error) and, under `requests`, the requests it accepted.",
        OriginLogPage,
        read_origin_log,
    ),
    Tool(
        "resend_origin_answer",
        "Send a failed answer of an origin again (`origin`, `answer`: its id); asking "
        "twice queues it once.",
        ResendInput,
        resend_origin_answer,
    ),
]
