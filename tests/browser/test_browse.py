"""A shopper in a real browser (Debian's Chromium through Playwright) against the live site."""
import re

import pytest
from playwright.sync_api import expect

from tests.helpers import screenshot, seed, small_catalog

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def shop(ddb, settings, live_server):
    """The live site on a catalog where Tesla has more cars than fit on one page."""
    settings.CATALOG_PAGE_SIZE = 4
    data = small_catalog()
    data["products"] += [
        {"productId": f"car{i}", "name": f"Tesla Car {i}", "brandId": "3", "categoryId": "1",
         "price": f"{30000 + i}.00", "stockLevel": i}
        for i in range(1, 8)
    ]
    seed(data)
    return live_server.url


def card_titles(page):
    return page.locator(".card-title").all_inner_texts()


def test_browse_a_brand_filter_by_category_load_more_and_go_back(shop, page):
    page.goto(f"{shop}/brands/3/")
    expect(page.locator("h1")).to_have_text("Tesla")
    all_tesla = card_titles(page)
    assert len(all_tesla) == 4
    page.evaluate("window.__sameDocument = true")  # gone if the page reloads

    page.get_by_role("link", name="Chargers (1)", exact=True).click()
    expect(page).to_have_url(re.compile(r"/brands/3/\?category=10$"))
    expect(page.locator(".card-title")).to_have_text(["Wall Connector"])
    expect(page.locator("#filter-category-10")).to_have_attribute("aria-current", "true")
    expect(page).to_have_title("Tesla · Chargers · Fromatoz")  # the title names the new view
    assert page.evaluate("window.__sameDocument") is True
    screenshot(page, "brand-filtered")

    page.get_by_role("link", name="Cars (9)", exact=True).click()
    expect(page).to_have_url(re.compile(r"/brands/3/\?category=1$"))
    expect(page.locator(".card")).to_have_count(4)
    expect(page.locator("#filter-category-1")).to_be_focused()  # focus was kept

    page.get_by_role("link", name="Load more").click()
    expect(page.locator(".card")).to_have_count(8)
    # the address bar shows both pages (Back and reload show them again); the title names them
    expect(page).to_have_url(re.compile(r"/brands/3/\?category=1&pages=2$"))
    expect(page).to_have_title("Tesla · Cars · pages 1–2 · Fromatoz")
    assert page.evaluate("window.__sameDocument") is True
    expect(page.locator(".card-link").nth(4)).to_be_focused()  # the first new card, once htmx settles

    page.go_back()
    expect(page).to_have_url(re.compile(r"/brands/3/\?category=1$"))
    expect(page.locator(".card")).to_have_count(4)
    page.go_back()
    expect(page).to_have_url(re.compile(r"/brands/3/\?category=10$"))
    expect(page).to_have_title("Tesla · Chargers · Fromatoz")
    expect(page.locator(".card-title")).to_have_text(["Wall Connector"])
    page.go_back()
    expect(page).to_have_url(re.compile(r"/brands/3/$"))
    expect(page.locator(".card-title")).to_have_text(all_tesla)


def test_a_filtered_url_is_shareable(shop, page):
    page.goto(f"{shop}/categories/1/?brand=10")
    expect(page.locator(".card-title")).to_have_text(["Acme Roadster"])
    page.reload()
    expect(page.locator(".card-title")).to_have_text(["Acme Roadster"])
    screenshot(page, "category")


def test_filters_and_load_more_work_without_javascript(shop, chromium):
    context = chromium.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(f"{shop}/brands/3/")
    page.get_by_role("link", name="Cars (9)", exact=True).click()
    expect(page).to_have_url(re.compile(r"\?category=1$"))
    page.get_by_role("link", name="Load more").click()
    expect(page).to_have_url(re.compile(r"after="))
    expect(page.locator(".card")).to_have_count(4)
    context.close()


def test_screenshots_of_home_and_product(shop, page):
    page.goto(f"{shop}/")
    expect(page.get_by_role("link", name="Microsoft").first).to_be_visible()
    screenshot(page, "home")
    page.goto(f"{shop}/products/2/")
    expect(page.locator("#stock")).to_have_text("Only 3 left")
    screenshot(page, "product")
    page.goto(f"{shop}/brands/3/")
    screenshot(page, "brand")
    page.set_viewport_size({"width": 390, "height": 844})
    screenshot(page, "brand-phone")


def test_back_after_load_more_and_a_product_shows_the_same_items_and_place(shop, page):
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(f"{shop}/brands/3/?category=1")
    routes = []
    page.route("**after=*", lambda route: routes.append(route))  # a slow "Load more"
    page.get_by_role("link", name="Load more").click()
    indicator = page.locator("#browse-indicator")
    expect(indicator).to_be_visible()  # where the shopper looks, whatever the scroll
    box = indicator.bounding_box()
    assert 0 <= box["y"] and box["y"] + box["height"] <= 844 and 0 <= box["x"] and box["x"] + box["width"] <= 390
    routes[0].continue_()
    page.unroute("**after=*")
    expect(page.locator(".card")).to_have_count(8)
    expect(indicator).to_be_hidden()
    titles = card_titles(page)
    last = page.locator(".card-link").last
    last.scroll_into_view_if_needed()
    scrolled = page.evaluate("window.scrollY")
    assert scrolled > 0
    last.click()
    expect(page.locator("h1")).to_have_text(titles[-1])
    page.go_back()
    expect(page).to_have_url(re.compile(r"/brands/3/\?category=1&pages=2$"))
    expect(page.locator(".card-title")).to_have_text(titles)
    page.wait_for_function(f"Math.abs(window.scrollY - {scrolled}) < 50")


@pytest.mark.parametrize("menu", ["Brands", "Categories"])
def test_header_menus_open_within_a_phone_screen(shop, page, menu):
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(f"{shop}/")
    page.locator("summary", has_text=menu).click()
    box = page.locator("details[open] ul").bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= 390
    expect(page.locator("details[open] ul").get_by_role("link").first).to_be_visible()


def test_sort_by_price_narrow_by_a_counted_chip_search_by_a_prefix_and_open(shop, page):
    page.goto(f"{shop}/brands/3/")
    page.get_by_role("link", name="Price low to high").click()
    expect(page).to_have_url(re.compile(r"/brands/3/\?sort=price$"))
    expect(page.locator(".card-title").first).to_have_text("Wall Connector")  # €475, the cheapest
    page.get_by_role("link", name="Cars (9)", exact=True).click()
    expect(page).to_have_url(re.compile(r"/brands/3/\?category=1&sort=price$"))
    expect(page.locator(".card-title")).to_have_text(["Tesla Car 1", "Tesla Car 2", "Tesla Car 3", "Tesla Car 4"])
    expect(page.locator("#product-count")).to_have_text("9 products")
    for img in page.locator(".card-image").all():  # every picture loads (placeholders)
        assert img.evaluate("i => i.complete && i.naturalWidth > 0")
    screenshot(page, "brand-sorted-by-price")

    page.get_by_role("searchbox", name="Search products").fill("wall con")
    page.get_by_role("button", name="Search").click()
    expect(page).to_have_url(re.compile(r"/search/\?q=wall\+con$"))
    expect(page.locator(".card-title")).to_have_text(["Wall Connector"])
    expect(page.locator("#product-count")).to_have_text("1 product")
    page.get_by_role("link", name="Wall Connector").click()
    expect(page.locator("h1")).to_have_text("Wall Connector")
    expect(page.get_by_role("img", name="Wall Connector")).to_be_visible()
