from django.contrib import admin
from django.urls import include, path, re_path
from django.views.generic import RedirectView

import chats.api

urlpatterns = [
    path("", RedirectView.as_view(url="/chats/", permanent=False)),
    path("django-admin/", admin.site.urls),
    path("", include("accounts.urls")),
    path("", include("peers.urls_api")),
    path("", include("peers.urls")),
    path("", include("chats.urls")),
    # Last: every other /api/v1/ route answers JSON 404, never an HTML page.
    re_path(r"^api/v1/.*$", chats.api.api_not_found),
]
