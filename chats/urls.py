from django.urls import path

from chats import api_views, views
from chats.api import api_path

CHAT = r"api/v1/chats/(?P<chat_id>[^/]+)"

# The chat page, its conversation, the switch and Stop are routed by peers.urls.
urlpatterns = [
    path("chats/", views.ChatListView.as_view(), name="chat-list"),
    path("chats/rows/", views.ChatRowsView.as_view(), name="chat-rows"),
    path("chats/<str:chat_id>/header/", views.HeaderView.as_view(), name="chat-header"),
    api_path("api/v1/chats", api_views.ChatsApi.as_view(), name="api-chats"),
    api_path(f"{CHAT}/prompts", api_views.ChatPromptsApi.as_view(), name="api-chat-prompts"),
]
