from django.urls import path

from chats import views

# The chat page, its conversation, the switch and Stop are routed by peers.urls.
urlpatterns = [
    path("chats/", views.ChatListView.as_view(), name="chat-list"),
    path("chats/rows/", views.ChatRowsView.as_view(), name="chat-rows"),
    path("switch/", views.ChatLinksView.as_view(), name="chat-links"),
    path("chats/<str:chat_id>/header/", views.HeaderView.as_view(), name="chat-header"),
]
