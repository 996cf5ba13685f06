from django.urls import path

from crosstalk.inbox import views

urlpatterns = [
    path("inbox/", views.inbox, name="inbox"),
    path("inbox/done/", views.inbox_done, name="inbox-done"),
]
