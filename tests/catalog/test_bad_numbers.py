"""Page numbers a person can type on the shopper's list pages: digits Python reads but a person
does not mean (superscripts, circled, several of them) are a 400 that says what a page number is,
read no products and change nothing; plain digits still work."""
import pytest

from catalog.gateway.dynamo.testing import count_requests

LISTS = ["/brands/3/", "/categories/1/", "/search/?q=model&"]
ODD_DIGITS = ["²", "①", "¹²³"]


def _url(base, query):
    return base + ("" if base.endswith("&") else "?") + query


@pytest.mark.parametrize("base", LISTS)
@pytest.mark.parametrize("digits", ODD_DIGITS)
@pytest.mark.parametrize("query,name", [("pages={}", "pages"), ("after=x&page={}", "page")])
def test_odd_digits_in_a_page_number_are_a_400_that_reads_nothing(catalog, client, base, digits, query, name):
    client.get(base)  # the brand and category names are read once a process: not this request's cost
    with count_requests() as requests:
        response = client.get(_url(base, query.format(digits)))
    assert response.status_code == 400
    assert f"{name} must be a whole number from" in response.content.decode()
    assert requests.operations == []


@pytest.mark.parametrize("base", ["/brands/3/", "/categories/1/"])
def test_plain_digits_still_choose_the_pages(catalog, client, base):
    assert client.get(_url(base, "pages=2")).status_code == 200
    assert client.get(_url(base, "pages=21")).status_code == 400  # more than MAX_PAGES
