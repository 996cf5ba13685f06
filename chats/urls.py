from django.urls import path

from chats import views

# Every /chats/<id>/ route is in crosstalk.chat_urls.
urlpatterns = [
    path("chats/", views.chat_list, name="chat-list"),
    path("chats/rows/", views.chat_rows, name="chat-rows"),
    path("switch/", views.chat_links, name="chat-links"),
    path("chats/mentions/", views.chat_mentions, name="chat-mentions"),
]
