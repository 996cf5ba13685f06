"""The webhook's signature (docs/origins.md): `X-Crosstalk-Signature: sha256=<hex>` is the
HMAC-SHA256, keyed with the origin's secret, of "<X-Crosstalk-Timestamp>.<body>"; a
timestamp further than the tolerance from now is refused, so a captured request dies."""

import hashlib
import hmac
import time

from django.conf import settings

from kernel.refusals import Refusal

SIGNATURE = "X-Crosstalk-Signature"
TIMESTAMP = "X-Crosstalk-Timestamp"
DELIVERY = "X-Crosstalk-Delivery"


def signature(secret: str, timestamp: str, body: bytes) -> str:
    mac = hmac.new(secret.encode(), timestamp.encode() + b"." + body, hashlib.sha256)
    return "sha256=" + mac.hexdigest()


def signed_digest(timestamp: str, body: bytes) -> str:
    """What the signature covers, as a digest: the same request under any delivery id."""
    return hashlib.sha256(timestamp.encode() + b"." + body).hexdigest()


def signed_headers(secret: str, body: bytes, *, delivery_id: str) -> dict[str, str]:
    timestamp = str(int(time.time()))
    return {
        "Content-Type": "application/json",
        SIGNATURE: signature(secret, timestamp, body),
        TIMESTAMP: timestamp,
        DELIVERY: delivery_id,
    }


def check_signature(secret: str, *, given: str, timestamp: str, body: bytes) -> None:
    if not given or not timestamp:
        raise bad_signature(f"Sign the request: send {SIGNATURE} and {TIMESTAMP}.")
    try:
        sent_at = int(timestamp)
    except ValueError:
        raise bad_signature(f"{TIMESTAMP} must be whole seconds since 1970.") from None
    tolerance = settings.ORIGIN_SIGNATURE_TOLERANCE_SECONDS
    if abs(time.time() - sent_at) > tolerance:
        raise bad_signature(
            f"{TIMESTAMP} is more than {int(tolerance)} seconds from the server's clock; "
            "sign the request again with the time now."
        )
    if not hmac.compare_digest(given.encode(), signature(secret, timestamp, body).encode()):
        raise bad_signature(
            f"{SIGNATURE} does not match: it is sha256=<hex HMAC-SHA256 of "
            '"<timestamp>.<body>"> keyed with the origin\'s secret.'
        )


def bad_signature(sentence: str) -> Refusal:
    return Refusal("bad_signature", sentence)
