from django.urls import path, re_path

from peers import messages_page, views

# The chat page and its conversation are peers' subclasses of chats' views
# (with the cards and the Peers tab); "rows" belongs to chats' chat list.
CHAT = r"^chats/(?P<chat_id>(?!rows/)[^/]+)"

urlpatterns = [
    re_path(rf"{CHAT}/$", views.ChatPageView.as_view(), name="chat-page"),
    re_path(rf"{CHAT}/conversation/$", views.ConversationView.as_view(), name="chat-conversation"),
    # GET is the Peers tab; POST is the switch (from the tab and the ⋯ menu).
    re_path(rf"{CHAT}/peers/$", views.PeersTabView.as_view(), name="chat-peers"),
    re_path(rf"{CHAT}/peers/live/$", views.PeersLiveView.as_view(), name="chat-peers-live"),
    re_path(rf"{CHAT}/peers/connect/$", views.ConnectView.as_view(), name="peers-connect"),
    re_path(rf"{CHAT}/peers/send/$", views.SendView.as_view(), name="peers-send"),
    re_path(rf"{CHAT}/stop/$", views.StopChatView.as_view(), name="chat-stop"),
    re_path(
        rf"{CHAT}/messages/(?P<message_id>[^/]+)/cancel/$",
        views.CancelView.as_view(),
        name="peers-cancel",
    ),
    path("messages/", messages_page.MessagesView.as_view(), name="messages"),
    path("messages/rows/", messages_page.MessageRowsView.as_view(), name="messages-rows"),
    path("activity/", views.ActivityView.as_view(), name="activity"),
    path("activity/rows/", views.ActivityRowsView.as_view(), name="activity-rows"),
]
