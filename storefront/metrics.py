"""`/metrics`: Prometheus' text format (django-prometheus' export view: every worker's figures added up
in prometheus_client's multiprocess mode, see gunicorn.conf.py), for the addresses in
METRICS_ALLOWED_CIDRS (default loopback) and for a request with `Authorization: Bearer <METRICS_TOKEN>`;
403 for anyone else."""
import hmac
import ipaddress

from django.conf import settings
from django.http import HttpResponseForbidden
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe
from django_prometheus.exports import ExportToDjangoView

from storefront.http import client_ip


def allowed(request):
    token = settings.METRICS_TOKEN
    if token:
        scheme, _, given = request.headers.get("Authorization", "").partition(" ")
        if scheme.lower() == "bearer" and hmac.compare_digest(given.strip().encode(), token.encode()):
            return True
    try:
        address = ipaddress.ip_address(client_ip(request) or "")
    except ValueError:
        return False
    return any(address in network for network in settings.METRICS_ALLOWED_NETWORKS)


@never_cache
@require_safe
def metrics(request):
    if not allowed(request):
        return HttpResponseForbidden("Metrics are served to the addresses in METRICS_ALLOWED_CIDRS, or with "
                                     "Authorization: Bearer <METRICS_TOKEN>.\n", content_type="text/plain")
    return ExportToDjangoView(request)
