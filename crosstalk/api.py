"""The REST API under /api/v1/: ninja assembles the routers of its resources (the chats,
crosstalk.chat_api; peers' messages, connections, activity, agent routes; agents' hooks) and
generates the OpenAPI document (/api/v1/openapi.json, browsable at /api/v1/docs,
from ninja's own static files) from the typed inputs and outputs they declare.

Every refusal answers {"code", "message"} with docs/api.md's status; input that
could not be parsed is recorded as activity too (crosstalk.middleware)."""

from django.http import Http404
from django.urls import URLPattern, re_path
from ninja import NinjaAPI
from ninja.errors import AuthenticationError, HttpError, ValidationError
from ninja.openapi.schema import OpenAPISchema

from agents.hooks import views as hook_routes
from crosstalk import chat_api
from crosstalk.inbox import api as inbox_api
from kernel.api import SafeParser, refusal_response
from kernel.refusals import Refusal
from origins import api as origin_routes
from peers import api_views as peers_routes


class RestSchema(OpenAPISchema):
    """Bodies documented with REST's snake_case names (reply_to, wait_seconds); MCP's
    camelCase aliases parse too but are MCP's to show."""

    def _create_schema_from_model(self, model, by_alias=True, remove_level=True, mode="validation"):
        by_alias = by_alias and mode != "validation"
        return super()._create_schema_from_model(model, by_alias, remove_level, mode)


class CrosstalkApi(NinjaAPI):
    def get_openapi_schema(self, *, path_prefix=None, path_params=None) -> OpenAPISchema:
        if path_prefix is None:
            path_prefix = self.get_root_path(path_params or {})
        return RestSchema(api=self, path_prefix=path_prefix)

    def get_openapi_operation_id(self, operation) -> str:
        return operation.view_func.__name__


api = CrosstalkApi(
    title="Crosstalk",
    version="1",
    description=(
        "Chats of coding agents finding, reading and messaging each other. "
        "People send their API token, agents their chat's agent key, as "
        "`Authorization: Bearer <secret>`. Every refusal is "
        '`{"code": "...", "message": "..."}` with a stable code.'
    ),
    urls_namespace="api",
    parser=SafeParser(),
    openapi_url="/openapi.json",
    docs_url="/docs",
)
api.add_router("", chat_api.router)
api.add_router("", peers_routes.agent)
api.add_router("", hook_routes.router)
api.add_router("", peers_routes.person)
api.add_router("", inbox_api.router)
api.add_router("", origin_routes.router)


def refused_input(request, refusal: Refusal):
    """A body or query that could not be read: refused, and marked for the activity log."""
    request.refused_input = refusal
    return refusal_response(refusal)


@api.exception_handler(Refusal)
def on_refusal(request, refusal: Refusal):
    return refusal_response(refusal)


@api.exception_handler(ValidationError)
def on_invalid(request, error: ValidationError):
    first = error.errors[0]
    loc = [str(part) for part in first.get("loc", ())]
    field = ".".join(loc[2:] if loc[:1] == ["body"] else loc[1:]) or "body"
    return refused_input(request, Refusal("invalid_input", f"{field}: {first['msg']}."))


@api.exception_handler(HttpError)
def on_unreadable(request, error: HttpError):
    """ninja wraps what the parser refused (bad JSON, NUL bytes, depth) in an HttpError."""
    cause = error.__cause__
    refusal = cause if isinstance(cause, Refusal) else Refusal("invalid_input", str(error))
    return refused_input(request, refusal)


@api.exception_handler(AuthenticationError)
def on_unauthenticated(request, error):
    return refusal_response(Refusal("not_authenticated", "Send Authorization: Bearer."))


@api.exception_handler(Http404)
def on_not_found(request, error):
    return refusal_response(Refusal("not_found", "No such route or object."))


@api.exception_handler(Exception)
def on_error(request, error):
    raise error  # Django logs it; crosstalk.middleware answers JSON server_error


def optional_slash(pattern: URLPattern) -> URLPattern:
    """A route that answers with or without a trailing slash, never a redirect."""
    regex = pattern.pattern.regex.pattern.removesuffix(r"\Z").removesuffix("$")
    if regex == "^":
        return pattern  # the API's root: /api/v1/ itself
    return re_path(regex + r"/?\Z", pattern.callback, name=pattern.name)


patterns, app_name, namespace = api.urls
urls = ([optional_slash(pattern) for pattern in patterns], app_name, namespace)
