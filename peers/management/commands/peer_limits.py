from django.core.management.base import BaseCommand, CommandError

from kernel.refusals import Refusal
from peers.actions import do_set_limits
from peers.limits import NAMES, current_limits, defaults


class Command(BaseCommand):
    help = (
        "Print every peer-messaging limit with its value and default; "
        "NAME=VALUE arguments set those limits first (validated like the admin form)."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("assignments", nargs="*", metavar="NAME=VALUE")

    def handle(self, *args, assignments: list[str], **options) -> None:
        values = dict(parse_assignment(text) for text in assignments)
        if values:
            try:
                do_set_limits(values)
            except Refusal as refusal:
                raise CommandError(f"{refusal.message} Nothing was changed.") from None
        limits, default = current_limits(), defaults()
        for name in NAMES:
            self.stdout.write(f"{name} {getattr(limits, name)} (default {default[name]})")


def parse_assignment(text: str) -> tuple[str, int]:
    name, equals, raw = text.partition("=")
    name = name.strip()
    if not equals:
        raise CommandError(f"{text!r}: write NAME=VALUE, e.g. chat_per_hour=60.")
    if name not in NAMES:
        raise CommandError(f"{name!r} is not a limit; the limits are: {', '.join(NAMES)}.")
    try:
        return name, int(raw.strip())
    except ValueError:
        raise CommandError(f"{name}: {raw!r} is not a whole number.") from None
