"""Passwords hashed in one PBKDF2 round instead of Django's ~1.5 million: a hash costs
over a second on this machine, and most tests make two or three accounts.

Same algorithm name, so the hashes stay readable both ways: a server process started by a
test (on Django's own iterations) checks a password the test process stored, and the test
process checks one a server stored, because each hash carries its own round count."""

from django.contrib.auth.hashers import PBKDF2PasswordHasher


class QuickPBKDF2PasswordHasher(PBKDF2PasswordHasher):
    iterations = 1
