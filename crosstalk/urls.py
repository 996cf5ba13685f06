from django.contrib import admin
from django.urls import include, path, re_path
from django.views.generic import RedirectView

import kernel.api
from crosstalk.api import urls as api_urls
from peers.admin_page import views as peers_admin

urlpatterns = [
    path("", RedirectView.as_view(url="/chats/", permanent=False)),
    path("django-admin/", admin.site.urls),
    # Staff only; with or without the trailing slash, never a redirect (docs/api.md).
    re_path(r"^internal/admin/peers/?$", peers_admin.admin_page, name="peers-admin"),
    re_path(
        r"^internal/admin/peers/metrics\.json/?$",
        peers_admin.metrics_json,
        name="peers-admin-metrics",
    ),
    path("", include("accounts.urls")),
    path("api/v1/", api_urls),
    path("", include("origins.urls")),
    path("", include("chats.urls")),
    path("", include("peers.urls")),
    path("", include("crosstalk.chat_urls")),
    path("", include("crosstalk.inbox.urls")),
    # Last: every other /api/v1/ route answers JSON 404, never an HTML page.
    re_path(r"^api/v1/.*$", kernel.api.api_not_found),
]
