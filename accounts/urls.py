from django.contrib.auth import views as auth_views
from django.urls import path

from accounts import views

urlpatterns = [
    path("accounts/login/", views.LoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("accounts/signup/", views.SignupView.as_view(), name="signup"),
    path("settings/", views.settings_page, name="settings"),
    path("settings/peers/", views.set_peers_default, name="settings-peers"),
    path("settings/inbound/", views.set_inbound_defaults, name="settings-inbound"),
    path("settings/tokens/", views.create_token, name="api-token-create"),
    path("settings/tokens/<int:token_id>/revoke/", views.revoke_token, name="api-token-revoke"),
    path("settings/agents/", views.set_model_credential, name="model-credential-set"),
    path(
        "settings/agents/<slug:provider>/remove/",
        views.remove_model_credential,
        name="model-credential-remove",
    ),
]
