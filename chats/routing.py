"""Websocket routes; crosstalk.asgi wraps them in AuthMiddlewareStack."""

from django.urls import path

from chats.consumers import ChatConsumer, ChatListConsumer

websocket_urlpatterns = [
    path("ws/chats/", ChatListConsumer.as_asgi()),
    path("ws/chats/<str:chat_id>/", ChatConsumer.as_asgi()),
]
