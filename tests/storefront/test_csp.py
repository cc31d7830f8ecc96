"""The Content-Security-Policy header, django-csp's own middleware as settings.py configures it;
product pictures on the hosts of PRODUCT_IMAGE_HOSTS are allowed, others are not."""
import re

import pytest
from csp.constants import NONCE
from csp.decorators import csp_exempt, csp_update
from csp.exceptions import CSPNonceError
from csp.middleware import CSPMiddleware
from django.http import HttpResponse
from django.test import RequestFactory, override_settings

from catalog import gateway
from catalog.gateway.catalog.importer import ImportInvalid
from tests.helpers import seed, small_catalog
from tests.storefront.test_deploy import settings_under


def directives(header):
    return {part.split()[0]: part.split()[1:] for part in header.split("; ")}


def serve(view):
    middleware = CSPMiddleware(view)
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
    report_only = {"DIRECTIVES": {"default-src": ["'self'", "https:"], "report-uri": "/csp-reports/"}}
    with override_settings(CONTENT_SECURITY_POLICY_REPORT_ONLY=report_only):
        response = serve(plain)[1]
        assert "default-src 'self'" in response["Content-Security-Policy"]
        assert response["Content-Security-Policy-Report-Only"] == "default-src 'self' https:; report-uri /csp-reports/"
    assert "Content-Security-Policy-Report-Only" not in serve(plain)[1]


HOSTS = "pictures.example, CDN.example:8443"


def test_the_picture_hosts_setting_is_in_img_src_and_nothing_else_is():
    configured = settings_under({"DJANGO_SECRET_KEY": "x", "PRODUCT_IMAGE_HOSTS": HOSTS},
                                ["CONTENT_SECURITY_POLICY", "PRODUCT_IMAGE_HOSTS"])
    assert configured["PRODUCT_IMAGE_HOSTS"] == ["pictures.example", "cdn.example:8443"]
    img_src = configured["CONTENT_SECURITY_POLICY"]["DIRECTIVES"]["img-src"]
    assert img_src == ["'self'", "data:", "https://pictures.example", "https://cdn.example:8443"]
    assert settings_under({"DJANGO_SECRET_KEY": "x"}, ["PRODUCT_IMAGE_HOSTS"]) == {"PRODUCT_IMAGE_HOSTS": []}


def _with_picture(url):
    data = small_catalog()
    data["products"][0]["image"] = url  # product 1, Model 3
    seed(data)


def test_a_picture_the_importer_accepts_is_allowed_by_the_pages_policy(ddb, client, settings):
    settings.PRODUCT_IMAGE_HOSTS = ["pictures.example"]
    settings.CONTENT_SECURITY_POLICY = {"DIRECTIVES": {**settings.CONTENT_SECURITY_POLICY["DIRECTIVES"],
                                                       "img-src": ["'self'", "data:", "https://pictures.example"]}}
    _with_picture("https://pictures.example/m3.jpg")
    response = client.get("/products/1/")
    assert 'src="https://pictures.example/m3.jpg"' in response.content.decode()
    img_src = directives(response["Content-Security-Policy"])["img-src"]
    assert "https://pictures.example" in img_src and not any("other.example" in s for s in img_src)


@pytest.mark.parametrize("hosts", [[], ["pictures.example"]])
def test_a_picture_on_another_host_is_refused_by_the_importer(ddb, settings, hosts):
    settings.PRODUCT_IMAGE_HOSTS = hosts
    with pytest.raises(ImportInvalid) as refused:
        _with_picture("https://other.example/m3.jpg")
    assert re.search(r"products\[0\]\.image: 'https://other\.example/m3\.jpg' is not on a picture host of "
                     r"PRODUCT_IMAGE_HOSTS", str(refused.value.problems))
    with pytest.raises(gateway.NotFound):
        gateway.product_get(product_id="1")
