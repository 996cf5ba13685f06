from django.urls import path

from chats import api_views, views
from chats.api import api_path

CHAT = r"api/v1/chats/(?P<chat_id>[^/]+)"

urlpatterns = [
    path("chats/", views.ChatListView.as_view(), name="chat-list"),
    # Before chats/<id>/: "rows" is not a chat id.
    path("chats/rows/", views.ChatRowsView.as_view(), name="chat-rows"),
    path("chats/<str:chat_id>/", views.ChatPageView.as_view(), name="chat-page"),
    path("chats/<str:chat_id>/header/", views.HeaderView.as_view(), name="chat-header"),
    path(
        "chats/<str:chat_id>/conversation/",
        views.ConversationView.as_view(),
        name="chat-conversation",
    ),
    path("chats/<str:chat_id>/peers/", views.SetPeersView.as_view(), name="chat-set-peers"),
    path("chats/<str:chat_id>/stop/", views.StopChatView.as_view(), name="chat-stop"),
    api_path("api/v1/chats", api_views.ChatsApi.as_view(), name="api-chats"),
    api_path(CHAT, api_views.ChatApi.as_view(), name="api-chat"),
    api_path(f"{CHAT}/prompts", api_views.ChatPromptsApi.as_view(), name="api-chat-prompts"),
    api_path(f"{CHAT}/stop", api_views.ChatStopApi.as_view(), name="api-chat-stop"),
]
