from django.urls import path

from agents import views

urlpatterns = [
    path("chats/<str:chat_id>/attach/", views.AttachPanelView.as_view(), name="attach-panel"),
]
