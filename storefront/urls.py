from django.urls import include, path
from django.views.generic import TemplateView

from shop.passkeys import PasskeyLoginView
from storefront import health, metrics

urlpatterns = [
    # For the load balancer and the metrics scraper (README "Operating it").
    path("healthz", health.healthz, name="healthz"),
    path("readyz", health.readyz, name="readyz"),
    path("metrics", metrics.metrics, name="metrics"),
    # Sign-in, sign-up, sign-out, password reset and change, email, MFA (under accounts/2fa/): allauth.
    # allauth's passkey sign-in, whose refused answer is a 400 page rather than a redirect.
    path("accounts/2fa/webauthn/login/", PasskeyLoginView.as_view(), name="mfa_login_webauthn"),
    path("accounts/", include("allauth.urls")),
    path("", include("shop.urls")),
    path("staff/", include("staff.urls")),
    # The footer's pages: plain templates (TemplateView answers GET and HEAD).
    path("contact/", TemplateView.as_view(template_name="pages/contact.html"), name="contact"),
    path("returns/", TemplateView.as_view(template_name="pages/returns.html"), name="returns"),
    path("terms/", TemplateView.as_view(template_name="pages/terms.html"), name="terms"),
    path("", include("catalog.urls")),
]

handler500 = "storefront.errors.server_error"
