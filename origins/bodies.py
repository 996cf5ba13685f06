"""The JSON bodies every origin face takes (webhook, GitHub, Slack, A2A), read the same way:
at most ORIGIN_MAX_BODY_BYTES, nested at most MAX_DEPTH deep. The depth is counted before
parsing, so a body of a million `[` is a 400 `invalid_input`, never a RecursionError
(Python's parser recurses once a level) answered as a 500 page."""

import json
import re
from itertools import accumulate

from django.conf import settings

from kernel.refusals import Refusal

MAX_DEPTH = 64
# Escapes go first (`\\"` is no quote); then every string, whose brackets are text. Both
# patterns are linear whatever the body: neither can backtrack.
ESCAPE = re.compile(rb"\\.", re.DOTALL)
STRING = re.compile(rb'"[^"]*"')
# Brackets as signed steps (+1 opens, -1 closes; 0xff is -1 as a signed byte), all else gone.
STEPS = bytes.maketrans(b"[{]}", b"\x01\x01\xff\xff")
NOT_BRACKETS = bytes(byte for byte in range(256) if byte not in b"[]{}")


def too_large(size: int) -> Refusal | None:
    most = settings.ORIGIN_MAX_BODY_BYTES
    if size > most:
        return Refusal("too_large", f"The request body is too large: at most {most} bytes.")
    return None


def depth(body: bytes) -> int:
    """How deep the body's arrays and objects nest (0 for a scalar), in C-speed passes."""
    outside = STRING.sub(b"", ESCAPE.sub(b"", body))
    steps = memoryview(outside.translate(STEPS, NOT_BRACKETS)).cast("b")
    return max(accumulate(steps, initial=0))


def check_depth(body: bytes) -> None:
    if depth(body) > MAX_DEPTH:
        raise Refusal(
            "invalid_input", f"The JSON nests deeper than {MAX_DEPTH} levels; send it flatter."
        )


def read_json(body: bytes | str, *, what: str = "JSON") -> object:
    """The parsed body; Refusal("invalid_input") for a body that is not `what`."""
    raw = body.encode() if isinstance(body, str) else body
    if refusal := too_large(len(raw)):
        raise refusal
    check_depth(raw)
    try:
        return json.loads(raw)
    except (ValueError, UnicodeDecodeError, RecursionError):
        raise Refusal("invalid_input", f"The body is not {what}.") from None
