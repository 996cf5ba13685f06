"""Every route under /chats/<id>/, in one table: chats' header, peers' page, tab,
forms and Cancel, agents' attach panel. The id converter never matches "rows"
(chats' own /chats/rows/), so this table and the app tables may be included in
any order."""

from django.urls import include, path, register_converter

from agents import views as agent_views
from chats import views as chat_views
from crosstalk import chat_lifecycle_views as lifecycle
from peers import chat_page
from peers import views as peer_views


class ChatIdConverter:
    """A chat's id as it appears in a path: one segment, never the chat list's "rows"."""

    regex = r"(?!rows/)[^/]+"

    def to_python(self, value: str) -> str:
        return value

    def to_url(self, value: str) -> str:
        return str(value)


register_converter(ChatIdConverter, "chat_id")


class DecisionConverter:
    regex = "approve|deny"

    def to_python(self, value: str) -> str:
        return value

    def to_url(self, value: str) -> str:
        return str(value)


register_converter(DecisionConverter, "decision")

chat_routes = [
    path("", chat_page.chat_page, name="chat-page"),
    path("header/", chat_views.chat_header, name="chat-header"),
    path("conversation/", chat_page.conversation, name="chat-conversation"),
    # GET is the Peers tab; POST is the switch (from the tab and the ⋯ menu).
    path("peers/", chat_page.peers_tab, name="chat-peers"),
    path("peers/live/", chat_page.peers_live, name="chat-peers-live"),
    path("peers/connect/", chat_page.connect, name="peers-connect"),
    path("peers/send/", chat_page.send, name="peers-send"),
    path("stop/", peer_views.stop_chat, name="chat-stop"),
    # Inbound accept / ask (the ⋯ menu and the Peers tab).
    path("inbound/", chat_views.set_inbound, name="chat-inbound"),
    # The Send form's status line of one message, refetched live.
    path("messages/<str:message_id>/", peer_views.sent_status, name="peers-sent"),
    path(
        "messages/<str:message_id>/cancel/",
        peer_views.cancel_message,
        name="peers-cancel",
    ),
    # A card's Approve / Deny of a message awaiting approval.
    path(
        "messages/<str:message_id>/<decision:decision>/",
        peer_views.decide_message,
        name="peers-decide",
    ),
    path("attach/", agent_views.AttachPanelView.as_view(), name="attach-panel"),
    path("rename/", lifecycle.rename_chat, name="chat-rename"),
    path("archive/", lifecycle.archive_chat, name="chat-archive"),
    path("delete/", lifecycle.delete_chat, name="chat-delete"),
    path("attach/keys/<int:key_id>/revoke/", agent_views.revoke_key, name="attach-revoke"),
]

urlpatterns = [
    # The chat list's selection (archive, unarchive, delete); before the id routes.
    path("chats/selected/", lifecycle.selected_chats, name="chats-selected"),
    path("chats/<chat_id:chat_id>/", include(chat_routes)),
]
