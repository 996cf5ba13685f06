from django.urls import path

from origins import views

urlpatterns = [
    path("hooks/in/<str:public_id>", views.hook_in, name="origin-hook"),
]
