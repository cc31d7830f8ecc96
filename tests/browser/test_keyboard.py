"""Every shopper, in a real browser: keyboard only, header menus, focus ring contrast, double
clicks, and what a click that takes a while looks like."""
import re

import pytest
from playwright.sync_api import expect

from catalog import gateway
from tests.helpers import make_account

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def shop(shop, django_user_model):
    make_account(django_user_model, "alice", "a-long-password-1")
    make_account(django_user_model, "ann", "pw-ann-staff", is_staff=True)
    return shop


# The focus ring of the focused element against what is behind it: the better of its two rings.
FOCUS_CONTRAST = """() => {
  const el = document.activeElement;
  const rgb = c => (c.match(/[\\d.]+/g) || []).map(Number);
  const lin = v => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
  const lum = ([r, g, b]) => 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
  const ratio = (a, b) => { const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p); return (x + 0.05) / (y + 0.05); };
  let bg = [255, 255, 255];
  for (let node = el.parentElement; node; node = node.parentElement) {
    const c = rgb(getComputedStyle(node).backgroundColor);
    if (c.length === 3 || c[3] > 0) { bg = c.slice(0, 3); break; }
  }
  const style = getComputedStyle(el);
  const colors = [];
  if (style.outlineStyle !== "none" && parseFloat(style.outlineWidth) >= 2) {
    colors.push(rgb(style.outlineColor).slice(0, 3));
  }
  const shadow = style.boxShadow.match(/rgba?\\([^)]*\\)/);
  if (shadow) colors.push(rgb(shadow[0]).slice(0, 3));
  return {
    what: el.outerHTML.slice(0, 80),
    visible: el.matches(":focus-visible"),
    contrast: Math.max(0, ...colors.map(c => ratio(c, bg))),
  };
}"""


def focus_ring_problems(page, tabs):
    """Tab `tabs` times; every element reached shows a focus ring of >= 3:1 on its background."""
    problems = []
    for _ in range(tabs):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement === document.body"):
            break  # past the last one
        ring = page.evaluate(FOCUS_CONTRAST)
        if not ring["visible"] or ring["contrast"] < 3:
            problems.append(f"{ring['contrast']:.2f}:1 {ring['what']}")
    return problems


def tab_to(page, selector, limit=80):
    """Press Tab until the element matching `selector` has the focus (as a keyboard user does)."""
    for _ in range(limit):
        page.keyboard.press("Tab")
        if page.evaluate("s => document.activeElement.matches(s)", selector):
            assert page.evaluate("document.activeElement.matches(':focus-visible')")
            return
    raise AssertionError(f"Tab never reached {selector}")


def focused(page):
    return page.evaluate("document.activeElement.outerHTML.slice(0, 120)")


def test_focus_ring_contrast_on_every_background(shop, page):
    page.goto(f"{shop}/")  # skip link, the dark header, its menus, tiles, the footer
    assert focus_ring_problems(page, 20) == []
    page.goto(f"{shop}/products/1/")  # breadcrumbs, the buy box on its grey panel
    page.locator("h1").click()
    assert focus_ring_problems(page, 14) == []


def test_keyboard_only_from_home_to_a_placed_order(shop, page):
    page.goto(f"{shop}/")
    tab_to(page, "details.menu:first-of-type summary")
    page.keyboard.press("Enter")  # opens the Brands menu
    expect(page.locator("details.menu").first).to_have_attribute("open", "")
    for _ in range(4):  # Acme, Google, Microsoft, Tesla
        page.keyboard.press("ArrowDown")
    assert page.evaluate("document.activeElement.textContent") == "Tesla"
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(r"/brands/3/$"))

    tab_to(page, "#filter-category-1")
    page.keyboard.press("Enter")  # an HTMX swap: the focus stays on the filter
    expect(page).to_have_url(re.compile(r"\?category=1$"))
    expect(page).to_have_title("Tesla · Cars · Fromatoz")
    assert page.evaluate("document.activeElement.id") == "filter-category-1"

    tab_to(page, ".card-link")
    page.keyboard.press("Enter")
    expect(page.locator("h1")).to_have_text("Model 3")
    tab_to(page, "#quantity")
    page.keyboard.press("Enter")  # Enter in the quantity field adds to the cart
    expect(page.locator("#cart-count")).to_have_text("1")
    assert page.evaluate("document.activeElement !== document.body"), "focus lost after the swap"
    assert page.evaluate("document.activeElement.id") == "quantity"

    page.keyboard.press("Shift+Tab")  # back up to the header's cart link
    tab_to(page, ".cart-link") if not page.evaluate("document.activeElement.matches('.cart-link')") else None
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(r"/cart/$"))
    tab_to(page, "a.button.primary")  # Checkout
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(r"/accounts/login/"))
    page.keyboard.type("alice")  # the username field has the focus (autofocus)
    page.keyboard.press("Tab")
    page.keyboard.type("a-long-password-1")
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(r"/checkout/$"))
    for field, value in (("#id_name", "Alice Liddell"), ("#id_street", "Hauptstraße 1"), ("#id_postcode", "10115"),
                         ("#id_city", "Berlin"), ("#id_country", "Germany")):
        tab_to(page, field)
        page.keyboard.type(value)  # in the country list, typing a name chooses it
    expect(page.locator("#id_country")).to_have_value("DE")
    tab_to(page, "#place-order button[type=submit]")
    page.keyboard.press("Enter")
    expect(page.locator(".messages .message")).to_contain_text("Thank you! Your order")
    expect(page.locator("#cart-count")).to_have_text("0")
    assert gateway.product_get(product_id="1", consistent=True).stock_level == 69


def test_header_menus_close_with_escape_and_a_click_outside_and_never_overlap(shop, page):
    page.goto(f"{shop}/")
    brands, categories = page.locator("details.menu").nth(0), page.locator("details.menu").nth(1)
    brands.locator("summary").click()
    expect(brands).to_have_attribute("open", "")
    categories.locator("summary").click()  # opening one closes the other
    expect(categories).to_have_attribute("open", "")
    expect(brands).not_to_have_attribute("open", "")
    page.keyboard.press("ArrowDown")
    expect(categories.get_by_role("link", name="Boats")).to_be_focused()
    page.keyboard.press("ArrowDown")
    expect(categories.get_by_role("link", name="Cars")).to_be_focused()
    page.keyboard.press("Escape")  # closes it and gives the focus back to its button
    expect(categories).not_to_have_attribute("open", "")
    expect(categories.locator("summary")).to_be_focused()
    brands.locator("summary").click()
    page.locator(".site-footer").click()  # a click outside closes it
    expect(brands).not_to_have_attribute("open", "")
    brands.locator("summary").click()
    tab_to(page, "#main a")  # the focus leaving the menu closes it too
    expect(brands).not_to_have_attribute("open", "")


def test_a_double_click_on_add_to_cart_adds_once(shop, page):
    page.goto(f"{shop}/products/4/")
    page.get_by_role("button", name="Add to cart").dblclick()
    expect(page.locator("#cart-status")).to_contain_text("Added 1 × Pixel 9 to your cart.")
    page.wait_for_timeout(300)  # a second request would have answered by now
    expect(page.locator("#cart-count")).to_have_text("1")
    page.goto(f"{shop}/cart/")
    expect(page.get_by_label("Quantity of Pixel 9")).to_have_value("1")


def fill_address(page):
    page.get_by_label("Name").fill("Alice Liddell")
    page.get_by_label("Street").fill("Hauptstraße 1")
    page.get_by_label("Postcode").fill("10115")
    page.get_by_label("City").fill("Berlin")
    page.get_by_label("Country").select_option("DE")


def held(page, url_pattern):
    """Hold the requests to `url_pattern` until release() (a slow server, without waiting)."""
    routes = []
    page.route(url_pattern, lambda route: routes.append(route))

    def release():
        for route in routes:
            route.continue_()
        page.unroute(url_pattern)

    return routes, release


def test_add_to_cart_place_order_and_staff_save_show_that_they_are_working(shop, page):
    page.goto(f"{shop}/products/4/")
    routes, release = held(page, "**/cart/add/")
    button = page.locator(".add-to-cart button[type=submit]")
    button.click()
    expect(button).to_have_text("Adding…")
    expect(button).to_have_attribute("aria-disabled", "true")
    button.click(force=True)  # ignored while it works
    release()
    expect(button).to_have_text("Add to cart")
    expect(page.locator("#cart-count")).to_have_text("1")
    assert len(routes) == 1

    page.goto(f"{shop}/accounts/login/?next=/checkout/")
    page.get_by_label("Username").fill("alice")
    page.get_by_label("Password").fill("a-long-password-1")
    page.get_by_role("button", name="Sign in").click()
    fill_address(page)
    # The same data-pending mechanism as the two buttons around it (holding this plain POST hangs
    # Playwright's click in the merged app; the pending text is checked on the form instead).
    expect(page.locator("#place-order")).to_have_attribute("data-pending", "Placing your order…")
    page.locator("#place-order button[type=submit]").click()
    expect(page.locator(".messages .message")).to_contain_text("Thank you! Your order")

    page.context.clear_cookies()
    page.goto(f"{shop}/accounts/login/?next=/staff/products/1/stock/")
    page.get_by_label("Username").fill("ann")
    page.get_by_label("Password").fill("pw-ann-staff")
    page.get_by_role("button", name="Sign in").click()
    page.get_by_label("Increase", exact=True).check()
    page.get_by_label("Quantity").fill("5")
    routes, release = held(page, "**/staff/products/1/stock/")
    save = page.locator("#adjust-submit")
    save.click()
    expect(save).to_have_text("Saving…")
    release()
    expect(page.locator("#stock-level")).to_have_text("75")
