from django.contrib.auth import views as auth_views
from django.urls import include, path
from django.views.generic import TemplateView

from shop import views as shop_views
from shop.forms import SignInForm
from storefront import health, metrics

urlpatterns = [
    # For the load balancer and the metrics scraper (README "Operating it").
    path("healthz", health.healthz, name="healthz"),
    path("readyz", health.readyz, name="readyz"),
    path("metrics", metrics.metrics, name="metrics"),
    path(
        "accounts/login/",
        auth_views.LoginView.as_view(redirect_authenticated_user=True, authentication_form=SignInForm),
        name="login",
    ),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("accounts/password/change/", shop_views.password_change, name="password_change"),
    path("accounts/password/reset/", auth_views.PasswordResetView.as_view(), name="password_reset"),
    path("accounts/password/reset/sent/", auth_views.PasswordResetDoneView.as_view(), name="password_reset_done"),
    path(
        "accounts/password/reset/<uidb64>/<token>/",
        auth_views.PasswordResetConfirmView.as_view(),
        name="password_reset_confirm",
    ),
    path(
        "accounts/password/reset/complete/",
        auth_views.PasswordResetCompleteView.as_view(),
        name="password_reset_complete",
    ),
    path("", include("shop.urls")),
    path("staff/", include("staff.urls")),
    # The footer's pages: plain templates (TemplateView answers GET and HEAD).
    path("contact/", TemplateView.as_view(template_name="pages/contact.html"), name="contact"),
    path("returns/", TemplateView.as_view(template_name="pages/returns.html"), name="returns"),
    path("terms/", TemplateView.as_view(template_name="pages/terms.html"), name="terms"),
    path("", include("catalog.urls")),
]

handler500 = "storefront.errors.server_error"
