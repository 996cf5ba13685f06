from django.urls import path

from origins import log_views, settings_views, views

urlpatterns = [
    path("hooks/in/<str:public_id>", views.hook_in, name="origin-hook"),
    path("settings/origins/", settings_views.origins_page, name="origin-settings"),
    path("settings/origins/new/", settings_views.create_origin, name="origin-create"),
    path("settings/origins/<str:public_id>/", settings_views.edit_origin, name="origin-edit"),
    path(
        "settings/origins/<str:public_id>/enabled/",
        settings_views.toggle_origin,
        name="origin-toggle",
    ),
    path(
        "settings/origins/<str:public_id>/secret/",
        settings_views.regenerate_secret,
        name="origin-secret",
    ),
    path(
        "settings/origins/<str:public_id>/delete/",
        settings_views.delete_origin,
        name="origin-delete",
    ),
    path("settings/origins/<str:public_id>/test/", settings_views.test_origin, name="origin-test"),
    path("settings/origins/<str:public_id>/log/", log_views.origin_log, name="origin-log"),
    path(
        "settings/origins/<str:public_id>/log/answers/<int:answer_id>/resend/",
        log_views.resend_answer,
        name="origin-resend",
    ),
]
