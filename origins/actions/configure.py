"""The person sets up origins (docs/rules.md: check_* then do_*). Another account's origin
reads like a missing one (origins.selectors.get_own_origin)."""

from django.db import IntegrityError, transaction

from chats.actions import check_chat_template
from kernel.inputs import parse
from kernel.refusals import Refusal
from origins.inputs import TEMPLATE_FIELDS, OriginSpec, current_values
from origins.models import Origin, new_origin_secret
from origins.outbound import why_address_refused

TEMPLATE = list(TEMPLATE_FIELDS)


def name_taken(name: str) -> Refusal:
    return Refusal("name_taken", f"name: You already have an origin named {name!r}.")


def check_origin_spec(user, spec: OriginSpec, *, exclude: int | None = None) -> None:
    """Each refusal's message starts with its field ("callback_url: ..."): the form puts
    it beside that field."""
    check_chat_template(user, spec)
    for field in ("callback_url", "api_url"):
        if problem := why_address_refused(getattr(spec, field)):
            raise Refusal("invalid_input", f"{field}: {problem}")
    if spec.kind == "webhook" and not spec.callback_url:
        raise Refusal("invalid_input", "callback_url: A webhook needs the address answers go to.")
    taken = Origin.objects.filter(user=user, name=spec.name).exclude(pk=exclude).exists()
    if taken:
        raise name_taken(spec.name)


def check_create_origin(user, *, spec: OriginSpec) -> Origin:
    check_origin_spec(user, spec)
    try:
        return do_create_origin(user, spec)
    except IntegrityError:
        raise name_taken(spec.name) from None


def do_create_origin(user, spec: OriginSpec) -> Origin:
    with transaction.atomic():
        return Origin.objects.create(
            user=user,
            kind=spec.kind,
            name=spec.name,
            enabled=spec.enabled,
            secret=spec.secret or new_origin_secret(),
            settings=spec.kind_settings({}),
            requests_per_hour=spec.requests_per_hour,
            **{field: getattr(spec, field) for field in TEMPLATE},
        )


def check_update_origin(user, origin: Origin, *, spec: OriginSpec) -> Origin:
    """The kind stays what it was: its URL and secret were handed out for that kind."""
    if spec.kind != origin.kind:
        raise Refusal("invalid_input", "kind: An origin keeps its kind; add a new one instead.")
    check_origin_spec(user, spec, exclude=origin.pk)
    try:
        return do_update_origin(origin, spec)
    except IntegrityError:
        raise name_taken(spec.name) from None


def check_change_origin(user, origin: Origin, *, changes: dict) -> Origin:
    """REST's PATCH and MCP's update_origin: the changes over what is stored, judged whole."""
    spec = parse(OriginSpec, {**current_values(origin), **changes})
    return check_update_origin(user, origin, spec=spec)


def do_update_origin(origin: Origin, spec: OriginSpec) -> Origin:
    changes = {
        "name": spec.name,
        "enabled": spec.enabled,
        "settings": spec.kind_settings(origin.settings or {}),
        "requests_per_hour": spec.requests_per_hour,
        **{field: getattr(spec, field) for field in TEMPLATE},
    }
    if spec.secret:
        changes["secret"] = spec.secret
    with transaction.atomic():
        for field, value in changes.items():
            setattr(origin, field, value)
        origin.save(update_fields=list(changes))
    return origin


def do_set_enabled(origin: Origin, *, enabled: bool) -> Origin:
    origin.enabled = enabled
    origin.save(update_fields=["enabled"])
    return origin


def do_regenerate_secret(origin: Origin) -> str:
    """The new secret (shown this once); the old one stops working at once."""
    origin.secret = new_origin_secret()
    origin.save(update_fields=["secret"])
    return origin.secret


def do_delete_origin(origin: Origin) -> None:
    """Its chats stay (they are the person's), no longer tied to anything outside."""
    origin.delete()
