from django.urls import path, re_path

from peers import views

# Included before chats.urls: the chat page and its conversation are peers'
# subclasses of chats' views, under chats' own names so reverse() is unchanged.
# chats' fixed path chats/rows/ is left to chats.
CHAT = r"^chats/(?P<chat_id>(?!rows/)[^/]+)"

urlpatterns = [
    re_path(rf"{CHAT}/$", views.ChatPageView.as_view(), name="chat-page"),
    re_path(rf"{CHAT}/conversation/$", views.ConversationView.as_view(), name="chat-conversation"),
    # GET is the Peers tab; POST is the switch, exactly as chats' chat-set-peers.
    re_path(rf"{CHAT}/peers/$", views.PeersTabView.as_view(), name="chat-set-peers"),
    re_path(rf"{CHAT}/peers/connect/$", views.ConnectView.as_view(), name="peers-connect"),
    re_path(rf"{CHAT}/peers/send/$", views.SendView.as_view(), name="peers-send"),
    re_path(
        rf"{CHAT}/messages/(?P<message_id>[^/]+)/cancel/$",
        views.CancelView.as_view(),
        name="peers-cancel",
    ),
    path("activity/", views.ActivityView.as_view(), name="activity"),
    path("activity/rows/", views.ActivityRowsView.as_view(), name="activity-rows"),
]
