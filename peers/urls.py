from django.urls import path

from peers import messages_page, search_page, views

# Every /chats/<id>/ route (the chat page, the Peers tab, Cancel) is in crosstalk.chat_urls.
urlpatterns = [
    path("messages/", messages_page.messages, name="messages"),
    path("messages/rows/", messages_page.message_rows, name="messages-rows"),
    path("search/", search_page.search, name="search"),
    path("activity/", views.activity, name="activity"),
    path("activity/rows/", views.activity_rows, name="activity-rows"),
]
