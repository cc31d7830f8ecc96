"""The frame every page shares: the head's style sheet and scripts and the footer's links, rendered
once per process (storefront/templatetags/frame.py)."""
import re

from django.template import loader
from django.urls import clear_script_prefix, set_script_prefix

from storefront.templatetags import frame


def _frame(html):
    return (
        '<link rel="stylesheet" href="/static/css/site.css">' in html,
        '<script src="/static/js/site.js" defer></script>' in html,
        "htmx" in html[: html.index("</head>")],
        '<li><a href="/contact/">Contact us</a></li>' in html,
        '<li><a href="/terms/">Terms of sale</a></li>' in html,
    )


def test_every_page_has_the_style_sheet_scripts_and_footer(client, catalog):
    for url in ["/contact/", "/brands/3/", "/products/1/", "/cart/"]:
        assert _frame(client.get(url).content.decode()) == (True,) * 5, url


def test_no_template_comment_shows_on_a_page(client, catalog):
    """A `{# #}` comment ends on its line; one written over several lines was shown as text (in the
    head, where it also ended the head early)."""
    for url in ["/contact/", "/brands/3/", "/products/1/", "/cart/"]:
        html = client.get(url).content.decode()
        assert "{#" not in html and "#}" not in html, url
        head = html[html.index("<head>") : html.index("</head>")]
        # no text in the head but the title's: any other text would end the head where it stands
        assert re.sub(r"<title>.*?</title>|<[^>]*>", "", head, flags=re.S).split() == [], url


def test_the_error_pages_rendered_without_a_request_have_them_too():
    # What the 500 and 503 handlers render: no context processors, so nothing can fail there.
    for name in ["500.html", "503.html"]:
        assert _frame(loader.render_to_string(name, {"request": None})) == (True,) * 5, name


def test_the_frame_follows_the_script_prefix():
    try:
        set_script_prefix("/shop/")  # served under a path (SCRIPT_NAME), as WSGIHandler sets it
        prefixed = loader.render_to_string("500.html")
    finally:
        clear_script_prefix()
    assert '<li><a href="/shop/contact/">Contact us</a></li>' in prefixed
    plain = loader.render_to_string("500.html")  # the next page without one
    assert '<li><a href="/contact/">Contact us</a></li>' in plain and "/shop/" not in plain


def test_with_debug_on_the_frame_is_rendered_each_time(client, settings, catalog, monkeypatch):
    # So a template edit shows at once in development; with DEBUG off it is rendered once.
    renders = []
    real = frame._render
    monkeypatch.setattr(frame, "_render", lambda part: renders.append(part) or real(part))
    frame._parts.clear()
    for _ in range(2):
        assert '<li><a href="/contact/">Contact us</a></li>' in client.get("/contact/").content.decode()
    assert renders == ["assets", "footer"]  # DEBUG off: once for the two pages
    settings.DEBUG = True
    for _ in range(2):
        assert '<li><a href="/contact/">Contact us</a></li>' in client.get("/contact/").content.decode()
    assert renders == ["assets", "footer"] * 3


def _visitor_links(html):
    header = html[html.index('<nav class="main-nav"') : html.index("</header>")]
    return (
        re.search(r'id="cart-count"[^>]*>(\d+)</span>', header).group(1),
        re.search(r'<a href="([^"]*)">Sign in</a>', header).group(1),
        '<a href="/accounts/signup/">Create an account</a>' in header,
    )


def test_a_visitor_s_sign_in_link_comes_back_to_the_page_they_are_on(client, catalog):
    """The visitor's links are kept per page address: each page's "Sign in" returns to that page,
    its query string encoded (and so escaped)."""
    assert _visitor_links(client.get("/brands/3/").content.decode()) == ("0", "/accounts/login/?next=/brands/3/", True)
    assert _visitor_links(client.get("/brands/3/?sort=price").content.decode())[1] == (
        "/accounts/login/?next=/brands/3/%3Fsort%3Dprice"
    )
    html = client.get('/search/?q="><script>').content.decode()
    assert _visitor_links(html)[1] == "/accounts/login/?next=/search/%3Fq%3D%2522%253E%253Cscript%253E"


def test_a_visitor_s_cart_badge_follows_the_cart_on_a_page_seen_before(client, catalog, db):
    assert _visitor_links(client.get("/brands/3/").content.decode())[0] == "0"
    client.post("/cart/add/", {"product_id": "1", "quantity": "2"})
    assert _visitor_links(client.get("/brands/3/").content.decode()) == ("2", "/accounts/login/?next=/brands/3/", True)


def test_a_signed_in_user_gets_their_own_links_not_a_visitor_s(client, catalog, django_user_model):
    client.get("/brands/3/")  # the visitor's links for this page are kept
    client.force_login(django_user_model.objects.create_user("alice", password="a long passphrase"))
    html = client.get("/brands/3/").content.decode()
    assert "Signed in as alice" in html and ">Sign out</button>" in html and ">Sign in</a>" not in html
    assert re.search(r'id="cart-count"[^>]*>0</span>', html)


def test_a_long_address_gets_its_own_sign_in_link_without_being_kept(client, catalog):
    frame._visitor_links.clear()
    long_query = "x" * (frame.MAX_KEPT_PATH + 10)
    html = client.get(f"/search/?q={long_query}").content.decode()
    assert _visitor_links(html)[1] == f"/accounts/login/?next=/search/%3Fq%3D{long_query}"
    assert len(frame._visitor_links) == 0
