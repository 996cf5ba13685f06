"""The limits as data: the one row admins tune, read on every use."""

from peers.models import Limits

NAMES = [
    "reach_hours",
    "chat_per_hour",
    "wakes_per_hour",
    "pair_per_window",
    "pair_window_minutes",
    "pair_without_you",
    "chain_without_you",
    "list_read_per_hour",
    "max_text",
    "max_wait_seconds",
    "origin_requests_per_hour",
]


def current_limits() -> Limits:
    """Read on every use, so an admin's change holds on the next send in every process."""
    limits = Limits.objects.filter(pk=1).first()
    return limits if limits is not None else Limits(pk=1)


def defaults() -> dict[str, int]:
    return {name: Limits._meta.get_field(name).default for name in NAMES}


def pair_key(a: str, b: str) -> str:
    """Both chat ids, sorted: one key (and one index) for a pair, both ways."""
    return "|".join(sorted((a, b)))
