"""The Search page, /search/: everything said in the account's chats (peers.said) with
the person's words, narrowed by chat, kind and days, the words found marked, a page at a
time (Newer / Older; the count stops at peers.said.CAP)."""

from urllib.parse import urlencode

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_safe
from pydantic import ValidationError

from chats.selectors import account_chats
from chats.views import chat_or_404
from kernel.refusals import Refusal
from peers.inputs import SaidSearch
from peers.said import CAP, search_said

PER_PAGE = 20
KINDS = [("prompt", "Your prompts"), ("answer", "Answers"), ("message", "Peer messages")]
FIELDS = ("chat", "kind", "since", "until")


def page_number(request: HttpRequest) -> int:
    value = request.GET.get("page", "")
    return min(int(value), CAP // PER_PAGE + 1) if value.isdigit() and int(value) > 0 else 1


def search_context(request: HttpRequest) -> dict:
    chat = chat_or_404(request, request.GET["chat"]) if request.GET.get("chat") else None
    query = request.GET.get("q", "").strip()
    filters = {name: request.GET.get(name, "").strip() for name in FIELDS}
    filters["chat"] = chat.pk if chat else ""
    number = page_number(request)
    results, error = None, ""
    if query:
        try:
            spec = SaidSearch(query=query, **{k: v for k, v in filters.items() if v})
            offset = (number - 1) * PER_PAGE
            results = search_said(request.user, spec, limit=PER_PAGE, offset=offset)
        except ValidationError as invalid:
            error = first_error(invalid)
        except Refusal as refusal:
            error = refusal.message
    last = CAP // PER_PAGE + 1  # the pages a capped count reaches
    more_pages = (
        results is not None
        and number < last
        and (results.more or results.count > number * PER_PAGE)
    )
    base = urlencode({"q": query, **{k: v for k, v in filters.items() if v}})
    return {
        "q": query,
        **filters,
        "chosen": chat,
        "chats": account_chats(request.user),
        "kinds": KINDS,
        "results": results,
        "error": error,
        "number": number,
        "newer": f"?{base}&page={number - 1}" if number > 1 else "",
        "older": f"?{base}&page={number + 1}" if more_pages else "",
    }


def first_error(invalid: ValidationError) -> str:
    """The first field the person got wrong, in words (a day must read YYYY-MM-DD)."""
    field = ".".join(str(part) for part in invalid.errors()[0]["loc"])
    if field in ("since", "until"):
        return f"“{'From' if field == 'since' else 'To'}” must be a day, like 2026-12-06."
    return "These words cannot be searched for: use letters and digits, no NUL."


@login_required
@require_safe
def search(request: HttpRequest) -> HttpResponse:
    return render(request, "peers/search.html", search_context(request))
