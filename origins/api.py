"""REST for the person's origins, /api/v1/origins (docs/api.md): list, create, read,
change, delete, a new secret, the delivery log and resending a failed answer. The twins
of the MCP tools in origins.mcp_tools; both take origins.inputs and answer with
origins.serializers. Another account's origin answers exactly like a missing one."""

from ninja import Router, Status

from chats.api import PersonToken
from chats.outputs import Page, problems
from kernel.api import page
from kernel.inputs import Limit, Offset
from origins import actions
from origins.inputs import OriginChanges, OriginSpec
from origins.outputs import AnswerOut, OriginOut, OriginWithSecret, RequestOut
from origins.selectors import account_origins, get_own_origin, origin_answers, origin_requests
from origins.serializers import answer_json, origin_json, origin_with_secret, request_json

router = Router(auth=PersonToken(), tags=["origins"])


@router.get("/origins", response={200: Page[OriginOut], **problems(400, 401)})
def list_origins(request, limit: Limit = 50, offset: Offset = 0):
    """Your origins, by name."""
    return page(account_origins(request.auth.user), origin_json, limit, offset)


@router.post("/origins", response={201: OriginWithSecret, **problems(400, 401, 403, 413)})
def create_origin(request, spec: OriginSpec):
    """A new origin; its secret is in the answer, this once."""
    origin = actions.check_create_origin(request.auth.user, spec=spec)
    return Status(201, origin_with_secret(origin))


@router.get("/origins/{origin_id}", response={200: OriginOut, **problems(401, 404)})
def get_origin(request, origin_id: str):
    return origin_json(get_own_origin(request.auth.user, origin_id))


@router.patch(
    "/origins/{origin_id}", response={200: OriginOut, **problems(400, 401, 403, 404, 413)}
)
def update_origin(request, origin_id: str, changes: OriginChanges):
    """Any of its fields; what is left out stays. Its kind stays what it was."""
    origin = get_own_origin(request.auth.user, origin_id)
    given = changes.model_dump(exclude_unset=True)
    return origin_json(actions.check_change_origin(request.auth.user, origin, changes=given))


@router.delete("/origins/{origin_id}", response={204: None, **problems(401, 404)})
def delete_origin(request, origin_id: str):
    """Its URL stops at once; the chats it started stay yours."""
    actions.do_delete_origin(get_own_origin(request.auth.user, origin_id))
    return Status(204, None)


@router.post("/origins/{origin_id}/secret", response={200: OriginWithSecret, **problems(401, 404)})
def rotate_secret(request, origin_id: str):
    """A new secret, shown this once; the old one stops working at once."""
    origin = get_own_origin(request.auth.user, origin_id)
    actions.do_regenerate_secret(origin)
    return origin_with_secret(origin)


@router.get(
    "/origins/{origin_id}/requests", response={200: Page[RequestOut], **problems(400, 401, 404)}
)
def list_requests(request, origin_id: str, limit: Limit = 50, offset: Offset = 0):
    """The requests it accepted, newest first, each with its chat and turn."""
    origin = get_own_origin(request.auth.user, origin_id)
    return page(origin_requests(origin), request_json, limit, offset)


@router.get(
    "/origins/{origin_id}/answers", response={200: Page[AnswerOut], **problems(400, 401, 404)}
)
def list_answers(request, origin_id: str, limit: Limit = 50, offset: Offset = 0):
    """The answers going back to it, newest first: state, attempts and the last error."""
    origin = get_own_origin(request.auth.user, origin_id)
    return page(origin_answers(origin), answer_json, limit, offset)


@router.post(
    "/origins/{origin_id}/answers/{answer_id}/resend",
    response={200: AnswerOut, **problems(400, 401, 404, 409, 429)},
)
def resend_answer(request, origin_id: str, answer_id: int):
    """A failed answer, queued again (once however often it is asked)."""
    origin = get_own_origin(request.auth.user, origin_id)
    return answer_json(actions.check_resend_answer(origin, answer_id))
