"""Every operation the shop performs, measured through the real views and gateway calls: OPERATIONS.

Each names the operation, how to drive it (`run(ctx, measure)`, `measure()` around the part measured) and
what it is per. Partition keys become the roles the traffic model spreads over a catalog (Context.role);
any other key stays as it is: every request that touches it touches the same partition.
"""

from contextlib import contextmanager
from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.cache import cache, caches

from catalog import availability, gateway, hot_products
from catalog.gateway import keys
from catalog.gateway.catalog import importer
from catalog.gateway.dynamo.conditions import Attr
from catalog.gateway.dynamo.transact import put, transact_write, update
from catalog.gateway.orders.entities import OrderLine
from catalog.gateway.stock.entities import sale_record
from catalog.gateway.validate import utc_now

from .capacity_meter import CapacityMeter
from .capacity_model import HOT_BUCKETS
from .catalog_data import FEATURED_BRAND, FEATURED_CATEGORY, make_catalog
from .flows import ADDRESS, django_client, give_second_factor, hidden_field
from .pages import next_url

CATALOG_SIZE = 80  # products 1-60 are brand 1 in category 1 (bench/catalog_data.py): full pages and a Load more
LINE_COUNTS = (1, 2, 5)
IMPORTED = 25  # products imported to measure the import's cost per product
HX = {"HTTP_HX_REQUEST": "true"}
PREFIX_ROLES = ((keys.OPEN_ORDERS_PK, "open_orders"), (keys.holds_pk(""), "hold_expiry"),
                (keys.customer_pk(""), "customer"), (keys.ORDER_NUMBER_PREFIX, "order"),  # a claim: once per order
                (keys.ledger_pk("", 0).removesuffix("#0"), "ledger"))  # one of a day's LEDGER_SHARDS
PRODUCT_KEY_ROLES = {"S": "bucket", "B": "buyers", "H": "holds"}  # P#<pid>#S#<k>, P#<pid>#B#<n>, P#<pid>#H#<n>


@dataclass(frozen=True)
class Operation:
    name: str
    per: str  # what one measurement is: "page", "request", "order", "product"
    run: object  # run(ctx, measure) -> None; `measure()` is a context manager around the part to measure
    note: str = ""
    lines: int = 0  # the order's lines, for the per-line cost


class Context:
    """The catalog and signed-in clients the operations use."""

    def __init__(self):
        self.data = make_catalog(CATALOG_SIZE)
        users = get_user_model().objects
        # get_or_create: `make capacity` runs again on the same accounts database
        self.shopper, _ = users.get_or_create(username="capacity-shopper")
        self.staff, _ = users.get_or_create(username="capacity-staff", defaults={"is_staff": True})
        self.staff.groups.add(*Group.objects.filter(name="Warehouse"))  # the stock pages' permission
        self.staff_app = give_second_factor(self.staff)
        self.products = {p["productId"]: p for p in self.data["products"]}
        self.next_product = 1
        self.adjusted = "1"

    def client(self, user=None, *, warm=False):
        """A client signed in as `user`; `warm`: it has been to the home page."""
        # Staff pages ask for a second factor used in the session.
        client = django_client(user, self.staff_app if user is not None and user.is_staff else None)
        if warm:
            _ok(client.get("/"), "home page")
        return client

    def fresh_products(self, n):
        """Products of brand 1 / category 1 no other operation has bought."""
        ids = [str(self.next_product + i) for i in range(n)]
        self.next_product += n
        return ids

    def role(self, pk):
        """"product", "bucket", "buyers", "holds" (a product's keys), "brand" (its list entries, alone or in a
        category), "category", "customer", "order", "ledger", "open_orders", "hold_expiry"; else the key."""
        role = next((role for prefix, role in PREFIX_ROLES if pk.startswith(prefix)), None)
        parts, products = pk.split("#"), self.products.values()
        if role or len(parts) < 2:
            return role or pk
        if parts[0] == "P" and parts[1] in self.products:
            if len(parts) == 2 or len(parts) == 4 and parts[2] == "R" and parts[3] in gateway.REASONS:
                return "product"  # its item, or its changes of one reason (a ByReason partition)
            return PRODUCT_KEY_ROLES.get(parts[2], pk)
        if parts[0] == "B" and len(parts) == 4 and parts[2] == "C":  # a brand in one category: at most the brand
            return "brand" if any((p["brandId"], p["categoryId"]) == (parts[1], parts[3]) for p in products) else pk
        field = {"B": "brandId", "C": "categoryId"}.get(parts[0])
        if field and len(parts) == 2 and any(p[field] == parts[1] for p in products):
            return {"B": "brand", "C": "category"}[parts[0]]
        return pk


def _ok(response, what, *, placed=False):
    if not 200 <= response.status_code < 400:
        raise RuntimeError(f"{what}: HTTP {response.status_code}")
    if placed and (response.status_code != 302 or "/account/orders/" not in response["Location"]):
        raise RuntimeError(f"{what} did not place the order")
    return response


def _add(client, pid):
    return _ok(client.post("/cart/add/", {"product_id": pid, "quantity": 1}, **HX), "add to cart")


def _page(path, *, cold=False):
    def run(ctx, measure):
        client = ctx.client(warm=not cold)  # warm: the brand and category names cached, as on a busy site
        if cold:
            cache.clear()
        with measure():
            _ok(client.get(path.format(brand=FEATURED_BRAND, category=FEATURED_CATEGORY)), path)
    return run


def _load_more(ctx, measure):
    client = ctx.client()
    url = next_url(_ok(client.get(f"/brands/{FEATURED_BRAND}/"), "brand page").content.decode())
    with measure():
        _ok(client.get(url, **HX), "load more")


def _add_to_cart(ctx, measure):
    client = ctx.client(warm=True)
    (pid,) = ctx.fresh_products(1)
    with measure():
        _add(client, pid)


def _cart_with(ctx, lines):
    """A shopper's client whose cart holds `lines` fresh products."""
    client = ctx.client(ctx.shopper, warm=True)
    for pid in ctx.fresh_products(lines):
        _add(client, pid)
    return client


def _with_cart(lines, step):
    return lambda ctx, measure: step(_cart_with(ctx, lines), measure)


def _cart_view(client, measure):
    with measure():
        _ok(client.get("/cart/"), "cart")


def _checkout_page(client):
    """The checkout page as its button gets it: POST action=hold (with timed holds off, only the page)."""
    response = _ok(client.post("/checkout/", {"action": "hold"}), "checkout page")
    if response.status_code != 200:
        raise RuntimeError(f"the checkout page held nothing: HTTP {response.status_code}")
    return response


def _checkout_get(client, measure):
    with measure():
        _checkout_page(client)


def _checkout_form(client):
    page = _checkout_page(client).content.decode()
    hidden = {name: hidden_field(page, name) for name in ("order_id", "token")}
    return {**ADDRESS, **hidden}


def _checkout_post(client, measure):
    form = _checkout_form(client)
    with measure():
        _ok(client.post("/checkout/", form), "checkout", placed=True)


def _band_change_checkout(ctx, measure):
    """A one-line checkout page and order of a product at the top of the "In stock" band: the sale moves it
    to "Only N left", so its list index entries are written (with timed holds by the page, else the order)."""
    (pid,) = ctx.fresh_products(1)
    level = gateway.product_get(product_id=pid).stock_level
    gateway.stock_decrease(product_id=pid, quantity=level - availability.in_stock_band(), token=gateway.new_token(),
                           reason="damaged", who="capacity")
    client = ctx.client(ctx.shopper, warm=True)
    _add(client, pid)
    with measure():
        _ok(client.post("/checkout/", _checkout_form(client)), "checkout", placed=True)
    if gateway.product_get(product_id=pid).stock_band == availability.in_stock_band():
        raise RuntimeError("the band-changing checkout did not change the band")


def _relative_sale_line(ctx, measure):
    """One sale line as the relative path writes it, one transaction: the product's conditional
    `stockLevel - :q` (which keeps the band) and the order line as the sale's record (no resulting level)."""
    (pid,) = ctx.fresh_products(1)
    product = gateway.product_get(product_id=pid)
    order_id, customer_id = gateway.new_order_id(), str(ctx.shopper.customer_key_id)
    line = OrderLine(product_id=pid, name=product.name, unit_price=product.price, quantity=1)
    record = sale_record(
        line.to_item(customer_id=customer_id, order_id=order_id), at=utc_now().isoformat(timespec="microseconds"),
        customer_id=customer_id, customer_name="Bench Shopper", customer_email="bench@example.com",
        order_number="BENCH234", resulting_level=None,
    )
    actions = [
        update(keys.product_key(pid), "SET stockLevel = stockLevel - :q", {":q": 1},
               condition=Attr("stockLevel").gte(1 + availability.in_stock_band()) & Attr("price").eq(product.price)),
        put(record, if_absent=True),
    ]
    with measure():
        refused = transact_write(actions, request_token=gateway.new_token()[:36])
    if refused is not None:
        raise RuntimeError("the relative sale line was refused")


def _hot_funnel(ctx, measure):
    """A fresh product spread over HOT_BUCKETS stock buckets (its K set by staff, one sale spreads its units),
    kept in the process's `hot_products` cache by its product page; then a buyer's add to cart, cart and
    checkout page of it (which read nothing: the model counts `hot_refresh` a process and second)."""
    (pid,) = ctx.fresh_products(1)
    gateway.stock_set_buckets(product_id=pid, buckets=HOT_BUCKETS)
    gateway.order_place(
        customer_id=str(ctx.shopper.customer_key_id), customer_name="Bench Shopper", order_id=gateway.new_order_id(),
        token=gateway.new_token(),
        lines=[gateway.PurchaseLine(product_id=pid, quantity=1, price=gateway.product_get(product_id=pid).price)],
    )
    if gateway.product_get(product_id=pid).bucket_levels is None:
        raise RuntimeError("the hot product's stock was not spread over its buckets")
    ctx.hot, ctx.hot_client = pid, ctx.client(ctx.shopper, warm=True)
    _ok(ctx.hot_client.get(f"/products/{pid}/"), "hot product page")
    with measure():
        _add(ctx.hot_client, pid)
        _ok(ctx.hot_client.get("/cart/"), "cart")
        ctx.hot_form = _checkout_form(ctx.hot_client)


def _hot_checkout(ctx, measure):
    """That buyer's one-line order: the unit taken from one of the product's buckets."""
    with measure():
        _ok(ctx.hot_client.post("/checkout/", ctx.hot_form), "checkout of the hot product", placed=True)


def _hot_refresh(ctx, measure):
    """That product's page with the `hot_products` cache empty: what a server process reads of it each time
    its kept copy expires (HOT_PRODUCT_CACHE_SECONDS)."""
    caches[hot_products.CACHE].clear()
    client = ctx.client(warm=True)
    with measure():
        _ok(client.get(f"/products/{ctx.hot}/"), "hot product page, not kept")


def _order_detail(ctx, measure):
    client = _cart_with(ctx, 2)
    _ok(client.post("/checkout/", _checkout_form(client)), "checkout")
    orders = gateway.orders_by_customer(customer_id=ctx.shopper.customer_key_id).items
    with measure():
        _ok(client.get(f"/account/orders/{orders[0].order_id}/"), "order page")


def _orders_list(ctx, measure):
    client = ctx.client(ctx.shopper)
    with measure():
        _ok(client.get("/account/orders/"), "orders")


def _staff_adjustment(ctx, measure):
    (pid,) = ctx.fresh_products(1)
    client = ctx.client(ctx.staff, warm=True)
    ctx.adjusted = pid
    form = {"action": "increase", "quantity": 1, "reason": "received", "token": gateway.new_token(),
            "seen_level": str(gateway.product_get(product_id=pid).stock_level)}
    with measure():
        _ok(client.post(f"/staff/products/{pid}/stock/", form, **HX), "staff adjustment")


def _staff_stock_page(ctx, measure):
    client = ctx.client(ctx.staff, warm=True)
    with measure():
        _ok(client.get(f"/staff/products/{ctx.adjusted}/stock/"), "staff stock page")


def _stock_history(ctx, measure):
    with measure():
        gateway.stock_history(product_id=ctx.adjusted)  # a product with history: the staff adjustment's


def _import(ctx, measure):
    base = len(ctx.products) + 1000
    data = {"brands": ctx.data["brands"], "categories": ctx.data["categories"], "products": [
        {**p, "productId": str(base + i)} for i, p in enumerate(ctx.data["products"][:IMPORTED])
    ]}
    ctx.products.update((p["productId"], p) for p in data["products"])
    with measure():
        importer.import_catalog(data)


OPERATIONS = [
    Operation("home_cold", "page", _page("/", cold=True), "home page, brand and category names not cached"),
    Operation("home", "page", _page("/"), "home page, names cached (the steady state)"),
    Operation("brand", "page", _page("/brands/{brand}/"), "a brand's products, page 1"),
    Operation("brand_category", "page", _page("/brands/{brand}/?category={category}"), "a brand in one category"),
    Operation("category", "page", _page("/categories/{category}/"), "a category's products, page 1"),
    Operation("category_brand", "page", _page("/categories/{category}/?brand={brand}"), "a category, one brand"),
    Operation("product", "page", _page("/products/1/"), "a product page"),
    Operation("load_more", "page", _load_more, "a brand page's next page (HTMX)"),
    Operation("add_to_cart", "request", _add_to_cart, "add to cart (HTMX): the product's level"),
    *[Operation(f"{family}_{n}", per, _with_cart(n, step), note.format(n=n), lines=n) for family, per, step, note in (
        ("cart_view", "page", _cart_view, "the cart with {n} lines"),
        ("checkout_get", "page", _checkout_get, "the checkout page, {n} lines"),
        ("checkout_post", "order", _checkout_post, "placing an order of {n} lines")) for n in LINE_COUNTS],
    Operation("band_change_checkout", "order", _band_change_checkout,
              "a one-line order that moves its product from In stock to Only N left", lines=1),
    Operation("relative_sale_line", "line", _relative_sale_line,
              "one sale line shaped as the relative path writes it (no band, no resulting level)"),
    Operation("hot_funnel", "order", _hot_funnel,
              f"add to cart, cart and checkout page of a product spread over {HOT_BUCKETS} stock buckets", lines=1),
    Operation("hot_checkout", "order", _hot_checkout,
              f"a one-line order of a product spread over {HOT_BUCKETS} stock buckets", lines=1),
    Operation("hot_refresh", "page", _hot_refresh,
              "a product page of that product not kept in hot_products: a process's read of it once a second"),
    Operation("order_detail", "page", _order_detail, "one order (after the checkout)"),
    Operation("orders_list", "page", _orders_list, "a customer's orders"),
    Operation("staff_adjustment", "request", _staff_adjustment, "staff stock +1 with the level shown (HTMX)"),
    Operation("staff_stock_page", "page", _staff_stock_page, "staff stock page: level and history"),
    Operation("stock_history", "request", _stock_history, "stock_history() of a product"),
    Operation("import_per_product", "product", _import, f"import_catalog of {IMPORTED} products, per product"),
]


def _summary(meter, ctx, divisor):
    """{"where|role|kind|rw": units} and {where: items written} of what the meter saw, over `divisor`."""
    charges, items = {}, {}
    for c in meter.charges():
        key = "|".join((c.where, ctx.role(c.pk), c.kind, c.rw))
        charges[key] = charges.get(key, 0.0) + c.units / divisor
        if c.rw == "W":
            items[c.where] = items.get(c.where, 0) + 1 / divisor
    return {k: round(v, 6) for k, v in sorted(charges.items())}, {k: round(v, 3) for k, v in items.items()}


def measure_all(operations=OPERATIONS, log=print):
    """Seeds the current table with the capacity catalog and measures every operation.
    Returns {name: {...}}: charges by where/role/kind/rw, what DynamoDB Local reported, requests."""
    importer.import_catalog(make_catalog(CATALOG_SIZE))
    ctx = Context()
    results = {}
    with CapacityMeter() as meter:

        @contextmanager
        def measure():
            meter.reset()
            yield

        for op in operations:
            op.run(ctx, measure)
            divisor = IMPORTED if op.per == "product" else 1
            charges, items = _summary(meter, ctx, divisor)
            results[op.name] = {
                "per": op.per, "note": op.note, "lines": op.lines, "requests": meter.operations(), "charges": charges,
                "reported": {where: {rw: round(u / divisor, 4) for rw, u in units.items()}
                             for where, units in meter.reported_totals().items()},
                "items": items,
            }
            units = {rw: sum(u for k, u in charges.items() if k.endswith(rw)) for rw in ("R", "W")}
            log(f"  {op.name:<20} {units['R']:.1f} RRU {units['W']:.1f} WRU  {results[op.name]['requests']}")
    return results
