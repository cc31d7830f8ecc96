"""storefront.http: the query strings of filter, sort and "Load more" links."""
from django.http import QueryDict

from storefront.http import query_string


def reference(**params):
    query = QueryDict(mutable=True)
    for key, value in params.items():
        if value:
            query[key] = str(value)
    return f"?{query.urlencode()}" if query else ""


def test_a_link_keeps_its_parameters_quoted_as_django_quotes_them():
    awkward = {"q": "café & crème +50%/€", "category": "12", "sort": "-price", "after": "eyJ=a/b+c"}
    assert query_string(**awkward) == reference(**awkward)
    assert QueryDict(query_string(**awkward)[1:]).dict() == awkward
    assert query_string(category=7, sort="name") == "?category=7&sort=name"


def test_empty_parameters_are_left_out():
    assert query_string(category=None, sort="") == ""
    assert query_string(category="3", sort=None) == "?category=3"
