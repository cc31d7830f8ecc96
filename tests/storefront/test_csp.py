"""storefront.csp: the Content-Security-Policy header built once, and django-csp's own for the rest."""
import pytest
from csp.constants import NONCE
from csp.decorators import csp_exempt, csp_update
from csp.exceptions import CSPNonceError
from django.http import HttpResponse
from django.test import RequestFactory, override_settings

from storefront.csp import SitePolicyMiddleware


def directives(header):
    return {part.split()[0]: part.split()[1:] for part in header.split("; ")}


def serve(view):
    middleware = SitePolicyMiddleware(view)
    request = RequestFactory().get("/")
    return request, middleware(request)


def plain(request):
    return HttpResponse("ok")


def test_an_ordinary_answer_gets_the_sites_policy_every_time(settings):
    first, second = serve(plain)[1], serve(plain)[1]
    assert first["Content-Security-Policy"] == second["Content-Security-Policy"]
    wanted = settings.CONTENT_SECURITY_POLICY["DIRECTIVES"]
    assert directives(first["Content-Security-Policy"]) == {name: list(value) for name, value in wanted.items()}


def test_a_changed_policy_setting_is_followed(settings):
    serve(plain)  # the header as the settings are now, cached
    with override_settings(CONTENT_SECURITY_POLICY={"DIRECTIVES": {"default-src": ["'none'"]}}):
        assert serve(plain)[1]["Content-Security-Policy"] == "default-src 'none'"
    assert "default-src 'self'" in serve(plain)[1]["Content-Security-Policy"]


def test_a_view_that_adds_a_source_gets_it_in_its_header():
    view = csp_update({"img-src": ["https://pictures.example"]})(plain)
    policy = directives(serve(view)[1]["Content-Security-Policy"])
    assert policy["img-src"] == ["'self'", "data:", "https://pictures.example"]
    assert "https://pictures.example" not in serve(plain)[1]["Content-Security-Policy"]


def test_an_exempt_view_gets_no_header():
    assert "Content-Security-Policy" not in serve(csp_exempt()(plain))[1]


@override_settings(CONTENT_SECURITY_POLICY={"DIRECTIVES": {"default-src": ["'self'"], "script-src": ["'self'", NONCE]}})
def test_a_page_that_uses_a_nonce_gets_it_in_its_header():
    def with_nonce(request):
        return HttpResponse(f'<script nonce="{request.csp_nonce}" src="/x.js"></script>')

    request, response = serve(with_nonce)
    assert f"'nonce-{request.csp_nonce}'" in response["Content-Security-Policy"]
    assert str(request.csp_nonce) not in serve(with_nonce)[1]["Content-Security-Policy"]  # a new one each answer


def test_a_nonce_asked_for_after_the_header_is_written_is_an_error():
    request, _ = serve(plain)
    with pytest.raises(CSPNonceError):
        str(request.csp_nonce)


def test_a_report_only_policy_is_sent_beside_the_enforced_one():
    serve(plain)  # the enforced header alone, cached
    report_only = {"DIRECTIVES": {"default-src": ["'self'", "https:"], "report-uri": "/csp-reports/"}}
    with override_settings(CONTENT_SECURITY_POLICY_REPORT_ONLY=report_only):
        response = serve(plain)[1]
        assert "default-src 'self'" in response["Content-Security-Policy"]
        assert response["Content-Security-Policy-Report-Only"] == "default-src 'self' https:; report-uri /csp-reports/"
    assert "Content-Security-Policy-Report-Only" not in serve(plain)[1]
