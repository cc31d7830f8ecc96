from allauth.mfa.recovery_codes import views as recovery_codes
from allauth.mfa.totp import views as totp
from allauth.mfa.webauthn import views as webauthn
from django.urls import include, path
from django.views.generic import TemplateView

from catalog import media_files
from shop.mfa import factor_reauthentication_required
from shop.passkeys import PasskeyLoginView
from storefront import health, metrics

urlpatterns = [
    # For the load balancer and the metrics scraper (README "Operating it").
    path("healthz", health.healthz, name="healthz"),
    path("readyz", health.readyz, name="readyz"),
    path("metrics", metrics.metrics, name="metrics"),
    # allauth's pages that show the recovery codes or change the account's factors, behind the factor
    # again (not the password alone) once the account has one: shop/mfa.py. Same paths and names as
    # allauth's, listed first so that they are the ones served.
    *[path(f"accounts/2fa/{route}", factor_reauthentication_required(view), name=name) for route, view, name in (
        ("recovery-codes/", recovery_codes.view_recovery_codes, "mfa_view_recovery_codes"),
        ("recovery-codes/generate/", recovery_codes.generate_recovery_codes, "mfa_generate_recovery_codes"),
        ("recovery-codes/download/", recovery_codes.download_recovery_codes, "mfa_download_recovery_codes"),
        ("totp/activate/", totp.activate_totp, "mfa_activate_totp"),
        ("totp/deactivate/", totp.deactivate_totp, "mfa_deactivate_totp"),
        ("webauthn/add/", webauthn.add_webauthn, "mfa_add_webauthn"),
        ("webauthn/keys/<int:pk>/remove/", webauthn.remove_webauthn, "mfa_remove_webauthn"),
        ("webauthn/keys/<int:pk>/edit/", webauthn.edit_webauthn, "mfa_edit_webauthn"),
    )],
    # Sign-in, sign-up, sign-out, password reset and change, email, MFA (under accounts/2fa/): allauth.
    # allauth's passkey sign-in, whose refused answer is a 400 page rather than a redirect.
    path("accounts/2fa/webauthn/login/", PasskeyLoginView.as_view(), name="mfa_login_webauthn"),
    path("accounts/", include("allauth.urls")),
    path("", include("shop.urls")),
    path("", include("payments.urls")),
    path("staff/", include("staff.urls")),
    # The footer's pages: plain templates (TemplateView answers GET and HEAD).
    path("contact/", TemplateView.as_view(template_name="pages/contact.html"), name="contact"),
    path("returns/", TemplateView.as_view(template_name="pages/returns.html"), name="returns"),
    path("terms/", TemplateView.as_view(template_name="pages/terms.html"), name="terms"),
    path("", include("catalog.urls")),
    # Uploaded pictures, when the app keeps them as files (MEDIA_STORAGE=files): catalog/media_files.py.
    *media_files.urlpatterns(),
]

handler500 = "storefront.errors.server_error"
