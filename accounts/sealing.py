"""Secrets the server must read back (an account's model credentials), sealed with
Fernet under a key derived from SECRET_KEY for this one purpose: the database alone
never holds them. A new SECRET_KEY leaves them unreadable (`Unreadable`); the person
enters them again."""

import base64

from cryptography.fernet import Fernet, InvalidToken
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from django.conf import settings

PURPOSE = b"crosstalk: an account's model credentials, v1"


class Unreadable(Exception):
    """Sealed under another SECRET_KEY (or not a sealed value at all)."""


def fernet() -> Fernet:
    derived = HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=PURPOSE).derive(
        settings.SECRET_KEY.encode()
    )
    return Fernet(base64.urlsafe_b64encode(derived))


def seal(secret: str) -> str:
    return fernet().encrypt(secret.encode()).decode()


def unseal(sealed: str) -> str:
    try:
        return fernet().decrypt(sealed.encode()).decode()
    except (InvalidToken, ValueError) as error:
        raise Unreadable from error
