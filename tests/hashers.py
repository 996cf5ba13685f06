"""Passwords hashed in one PBKDF2 round instead of Django's ~1.5 million: a hash costs
over a second on this machine, and most tests make two or three accounts.

Same algorithm name, so the hashes stay readable both ways: a process on Django's own
iterations (tests/test_security_headers.py's servers, say) checks a password a test
stored, and a test checks one such a process stored: each hash carries its round count."""

from django.contrib.auth.hashers import PBKDF2PasswordHasher


class QuickPBKDF2PasswordHasher(PBKDF2PasswordHasher):
    iterations = 1
