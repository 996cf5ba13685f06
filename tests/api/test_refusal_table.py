"""Every refusal code the product raises has its status in the one table
(kernel.refusals.STATUS_BY_CODE): a code missing from it would answer 400 by accident.
Read from the source: every `Refusal("code", ...)` written anywhere in the apps."""

import ast

from kernel.refusals import STATUS_BY_CODE, Refusal
from tests.test_layout import TREES


def raised_codes() -> dict[str, str]:
    """Each literal code → one module that writes it."""
    codes = {}
    for name, tree in TREES.items():
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Call) and node.args):
                continue
            func = node.func
            called = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
            first = node.args[0]
            if called == "Refusal" and isinstance(first, ast.Constant):
                codes.setdefault(first.value, name)
    return codes


def test_it_finds_the_codes_it_is_about():
    codes = raised_codes()
    assert {"too_many_attempts", "not_attachable", "too_large", "no_chat"} <= set(codes)


def test_it_has_a_status_for_every_code_the_product_raises():
    missing = {
        code: where
        for code, where in raised_codes().items()
        if code not in STATUS_BY_CODE and not code.startswith("limit_")
    }
    assert missing == {}


def test_it_answers_the_two_codes_it_lacked_with_their_real_statuses():
    assert Refusal("too_many_attempts", "").status == 429  # accounts.throttle's STATUS
    assert Refusal("not_attachable", "").status == 400
