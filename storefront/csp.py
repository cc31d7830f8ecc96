"""django-csp's middleware, with the header of an ordinary answer built once per process."""
from csp.constants import HEADER
from csp.middleware import CheckableLazyObject, CSPMiddleware
from csp.utils import build_policy
from django.conf import settings
from django.core.signals import setting_changed
from django.dispatch import receiver

# What a view's decorators (@csp, @csp_update, @csp_replace, @csp_exempt, and their report-only
# forms) leave on its answer: any of them, and django-csp builds that answer's header itself.
_VIEW_CHANGES = (
    "_csp_config", "_csp_update", "_csp_replace", "_csp_exempt",
    "_csp_config_ro", "_csp_update_ro", "_csp_replace_ro", "_csp_exempt_ro",
)
_policy = None


@receiver(setting_changed)
def _forget_policy(*, setting, **kwargs):
    global _policy
    if setting.startswith("CONTENT_SECURITY_POLICY") or setting == "DEBUG":
        _policy = None


def site_policy():
    """The header an answer gets when its view changed nothing, from the settings (cached); None
    while the settings ask for more than one fixed header (DEBUG's error pages, a report-only
    policy, excluded URL prefixes), which django-csp then builds for each answer."""
    global _policy
    policy = _policy  # read once: a settings change in another thread may reset it meanwhile
    if policy is None:
        config = getattr(settings, "CONTENT_SECURITY_POLICY", None) or {}
        fixed = not (
            settings.DEBUG
            or getattr(settings, "CONTENT_SECURITY_POLICY_REPORT_ONLY", None)
            or config.get("EXCLUDE_URL_PREFIXES")
        )
        policy = _policy = (build_policy() if fixed else None,)
    return policy[0]


class SitePolicyMiddleware(CSPMiddleware):
    """django-csp builds the Content-Security-Policy header from the settings for every answer: two
    dataclass copies and two policy builds; /contact/ took 35-50 µs less CPU without them. The
    header of an answer whose view changed nothing in the policy and whose page used no nonce is
    the same every time, so it is built once. Anything else (a nonce, a view's own policy, a
    report-only policy, excluded URL prefixes, DEBUG's error pages) goes to django-csp unchanged."""

    def process_response(self, request, response):
        policy = site_policy()
        if (
            policy is None
            or getattr(request, "_csp_nonce", None) is not None
            or HEADER in response
            or any(hasattr(response, name) for name in _VIEW_CHANGES)
        ):
            return super().process_response(request, response)
        if policy:
            response[HEADER] = policy
        # As django-csp does: a nonce asked for once the header is written raises CSPNonceError.
        request.csp_nonce = CheckableLazyObject(self._csp_nonce_post_response)
        return response
