"""Every operation the shop performs, measured through the real views and gateway calls: OPERATIONS.

An entry names the operation, how to drive it (a view through Django's test client, or a gateway call) and
what it is per (a page, an order of N lines, an imported product). Partition keys become roles the traffic
model spreads over a catalog: "product" (P#<pid>, and its ByReason partitions), "brand", "category",
"customer", "order" (an order number's claim), "ledger" (a day's shard), ...; any other key stays as it is:
every request that touches it touches the same partition.
"""

import html
import re
from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.core.cache import cache, caches
from django.test import Client

from catalog import availability, gateway, hot_products
from catalog.gateway import keys
from catalog.gateway.catalog import importer
from catalog.gateway.dynamo.transact import put, transact_write, update
from catalog.gateway.orders.entities import OrderLine
from catalog.gateway.stock.entities import sale_record
from catalog.gateway.validate import utc_now

from .capacity_meter import CapacityMeter
from .capacity_model import HOT_BUCKETS
from .catalog_data import FEATURED_BRAND, FEATURED_CATEGORY, make_catalog
from .flows import give_second_factor, record_second_factor

CATALOG_SIZE = 80  # products 1-60 are brand 1 in category 1 (bench/catalog_data.py): full pages and a Load more
LINE_COUNTS = (1, 2, 5)
IMPORTED = 25  # products imported to measure the import's cost per product
HX = {"HTTP_HX_REQUEST": "true"}
LEDGER_PREFIX = keys.ledger_pk("", 0).removesuffix("#0")  # "LEDGER#"


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
        self.staff_app = give_second_factor(self.staff)
        self.products = {p["productId"]: p for p in self.data["products"]}
        self.next_product = 1
        self.adjusted = "1"

    def client(self, user=None):
        client = Client(HTTP_HOST="127.0.0.1")
        if user is not None:
            client.force_login(user)
        if user is not None and user.is_staff:
            record_second_factor(client, user, self.staff_app)  # staff pages ask for a factor used in the session
        return client

    def fresh_products(self, n):
        """Products of brand 1 / category 1 no other operation has bought."""
        ids = [str(self.next_product + i) for i in range(n)]
        self.next_product += n
        return ids

    def role(self, pk):
        sharded = self.product_shard_role(pk)
        if sharded:
            return sharded
        if pk.startswith(keys.OPEN_ORDERS_PK):
            return "open_orders"  # the OpenOrders partition (or, sharded, one of its shards)
        if hasattr(keys, "holds_pk") and pk.startswith(keys.holds_pk("")):
            return "hold_expiry"  # one of the HoldExpiry index's shards (timed holds)
        if pk.startswith(keys.customer_pk("")):
            return "customer"
        if pk.startswith(keys.ORDER_NUMBER_PREFIX):
            return "order"  # an order number's claim: a partition of its own, written once per order
        if pk.startswith(LEDGER_PREFIX):
            return "ledger"  # one day's shard: a day's changes are spread over LEDGER_SHARDS of them
        if any(pk == keys.pair_pk(p["brandId"], p["categoryId"]) for p in self.products.values()):
            return "brand"  # a brand's products in one category (ByName3/ByPrice3): at most the brand's load
        if any(pk == keys.by_reason_pk(pid, reason) for pid in self.products for reason in gateway.REASONS):
            return "product"  # one product's changes of one reason (its own ByReason partition)
        if pk.startswith(keys.product_pk("")) and pk[len(keys.product_pk("")):] in self.products:
            return "product"
        brand, category = pk.removeprefix(keys.brand_gsi_pk("")), pk.removeprefix(keys.category_gsi_pk(""))
        if pk == keys.brand_gsi_pk(brand) and any(p["brandId"] == brand for p in self.products.values()):
            return "brand"
        if pk == keys.category_gsi_pk(category) and any(p["categoryId"] == category for p in self.products.values()):
            return "category"
        return pk


    def product_shard_role(self, pk):
        """"bucket" for a product's stock bucket (P#<pid>#S#<k>), "buyers" for one of its Buyers index
        shards (P#<pid>#B#<n>, who bought what), "holds" for one of its timed holds' partitions
        (P#<pid>#H#<n>): a product's own keys, each of many."""
        prefix, _, rest = pk.partition("#")
        pid, _, tail = rest.partition("#")
        if prefix != "P" or pid not in self.products:
            return None
        kind = tail.split("#", 1)[0]
        return {"S": "bucket", "B": "buyers", "H": "holds"}.get(kind)


def _ok(response, what):
    if not 200 <= response.status_code < 400:
        raise RuntimeError(f"{what}: HTTP {response.status_code}")
    return response


def _page(path, headers=None, *, cold=False):
    def run(ctx, measure):
        client = ctx.client()
        if not cold:
            _ok(client.get("/"), "warm-up")  # the brand and category names, cached as on a busy site
        else:
            cache.clear()
        with measure():
            _ok(client.get(path.format(brand=FEATURED_BRAND, category=FEATURED_CATEGORY), **(headers or {})), path)
    return run


def _load_more(ctx, measure):
    client = ctx.client()
    page = _ok(client.get(f"/brands/{FEATURED_BRAND}/"), "brand page").content.decode()
    url = html.unescape(re.search(r'hx-get="([^"]*[?&](?:amp;)?after=[^"]*)"', page).group(1))
    with measure():
        _ok(client.get(url, **HX), "load more")


def _add_to_cart(ctx, measure):
    client = ctx.client()
    client.get("/")
    (pid,) = ctx.fresh_products(1)
    with measure():
        _ok(client.post("/cart/add/", {"product_id": pid, "quantity": 1}, **HX), "add to cart")


def _cart_with(ctx, lines):
    client = ctx.client(ctx.shopper)
    client.get("/")
    for pid in ctx.fresh_products(lines):
        _ok(client.post("/cart/add/", {"product_id": pid, "quantity": 1}, **HX), "add to cart")
    return client


def _cart_view(lines):
    def run(ctx, measure):
        client = _cart_with(ctx, lines)
        with measure():
            _ok(client.get("/cart/"), "cart")
    return run


def _checkout_page(client):
    """The checkout page as a shopper who holds the cart's units gets it: its button, POST action=hold (with
    timed holds off it only shows the page, reading what its GET reads)."""
    response = _ok(client.post("/checkout/", {"action": "hold"}), "checkout page")
    if response.status_code != 200:
        raise RuntimeError(f"the checkout page held nothing: HTTP {response.status_code}")
    return response


def _checkout_get(lines):
    def run(ctx, measure):
        client = _cart_with(ctx, lines)
        with measure():
            _checkout_page(client)
    return run


ADDRESS = {"name": "Bench Shopper", "street": "Bench Street 1", "postcode": "10115", "city": "Berlin", "country": "DE"}


def _checkout_form(client):
    page = _checkout_page(client).content.decode()
    hidden = {name: re.search(rf'name="{name}" value="([^"]+)"', page).group(1) for name in ("order_id", "token")}
    return {**ADDRESS, **hidden}


def _checkout_post(lines):
    def run(ctx, measure):
        client = _cart_with(ctx, lines)
        form = _checkout_form(client)
        with measure():
            response = _ok(client.post("/checkout/", form), "checkout")
        if response.status_code != 302 or "/account/orders/" not in response["Location"]:
            raise RuntimeError(f"checkout of {lines} lines did not place the order")
    return run


def _band_change_checkout(ctx, measure):
    """A one-line checkout of a product at the top of the "In stock" band, its checkout page and its order:
    the sale moves it to "Only N left", so its list index entries are written (the sales inside a band write
    none). With timed holds the units leave the stock when the checkout page holds them, without when the
    order is placed: both are measured, so either way the move is in it."""
    (pid,) = ctx.fresh_products(1)
    level = gateway.product_get(product_id=pid).stock_level
    gateway.stock_decrease(product_id=pid, quantity=level - availability.in_stock_band(), token=gateway.new_token(),
                           reason="damaged", who="capacity")
    client = ctx.client(ctx.shopper)
    client.get("/")
    _ok(client.post("/cart/add/", {"product_id": pid, "quantity": 1}, **HX), "add to cart")
    with measure():
        form = _checkout_form(client)
        response = _ok(client.post("/checkout/", form), "checkout")
    if response.status_code != 302 or gateway.product_get(product_id=pid).stock_band == availability.in_stock_band():
        raise RuntimeError("the band-changing checkout did not change the band")


def _relative_sale_line(ctx, measure):
    """What one line of a sale on the relative path writes (`SET stockLevel = stockLevel - :q` on
    `stockLevel >= :min`, which keeps the band, so no band is written): the product and the order line,
    which is the sale's record (entities.sale_record, with its Ledger and Buyers entries; no resulting
    level), as one transaction (the order itself not included)."""
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
        update(keys.product_key(pid), "SET stockLevel = stockLevel - :q",
               {":q": 1, ":min": 1 + availability.in_stock_band(), ":price": product.price},
               condition="stockLevel >= :min AND price = :price"),
        put(record, if_absent=True),
    ]
    with measure():
        refused = transact_write(actions, request_token=gateway.new_token()[:36])
    if refused is not None:
        raise RuntimeError("the relative sale line was refused")


def _hot_product(ctx):
    """A fresh product spread over HOT_BUCKETS stock buckets (buckets.py): its K set by staff, then one
    sale (not measured) spreads its units."""
    (pid,) = ctx.fresh_products(1)
    gateway.stock_set_buckets(product_id=pid, buckets=HOT_BUCKETS)
    product = gateway.product_get(product_id=pid)
    gateway.order_place(
        customer_id=str(ctx.shopper.customer_key_id), customer_name="Bench Shopper", order_id=gateway.new_order_id(),
        token=gateway.new_token(), lines=[gateway.PurchaseLine(product_id=pid, quantity=1, price=product.price)],
    )
    if gateway.product_get(product_id=pid).bucket_levels is None:
        raise RuntimeError("the hot product's stock was not spread over its buckets")
    return pid


def _hot_funnel(ctx, measure):
    """A buyer of a product spread over HOT_BUCKETS buckets, up to the checkout: add to cart, the cart and
    the checkout page (what they read of the product and its buckets). On a busy site the product is kept in
    each process's `hot_products` cache (catalog/hot_products.py), as here after the product page: these
    pages read nothing, and the model counts the process's own reads of it (`hot_refresh`) per second."""
    ctx.hot = _hot_product(ctx)
    client = ctx.client(ctx.shopper)
    client.get("/")
    _ok(client.get(f"/products/{ctx.hot}/"), "hot product page")
    with measure():
        _ok(client.post("/cart/add/", {"product_id": ctx.hot, "quantity": 1}, **HX), "add to cart")
        _ok(client.get("/cart/"), "cart")
        ctx.hot_form = _checkout_form(client)
    ctx.hot_client = client


def _hot_checkout(ctx, measure):
    """Placing that buyer's one-line order: the unit taken from one of the product's buckets."""
    with measure():
        response = _ok(ctx.hot_client.post("/checkout/", ctx.hot_form), "checkout")
    if response.status_code != 302 or "/account/orders/" not in response["Location"]:
        raise RuntimeError("the checkout of the hot product did not place the order")


def _hot_refresh(ctx, measure):
    """The product page of that product with the `hot_products` cache empty: what one server process reads
    of it each time its kept copy expires (about once a second, HOT_PRODUCT_CACHE_SECONDS)."""
    caches[hot_products.CACHE].clear()
    client = ctx.client()
    client.get("/")
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
    client = ctx.client(ctx.staff)
    client.get("/")
    ctx.adjusted = pid
    level = gateway.product_get(product_id=pid).stock_level
    form = {"action": "increase", "quantity": 1, "reason": "received", "token": gateway.new_token(),
            "seen_level": str(level)}
    with measure():
        _ok(client.post(f"/staff/products/{pid}/stock/", form, **HX), "staff adjustment")


def _staff_stock_page(ctx, measure):
    client = ctx.client(ctx.staff)
    client.get("/")
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
    for p in data["products"]:
        ctx.products[p["productId"]] = p
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
    *[Operation(f"cart_view_{n}", "page", _cart_view(n), f"the cart with {n} lines", lines=n) for n in LINE_COUNTS],
    *[Operation(f"checkout_get_{n}", "page", _checkout_get(n), f"the checkout page, {n} lines", lines=n)
      for n in LINE_COUNTS],
    *[Operation(f"checkout_post_{n}", "order", _checkout_post(n), f"placing an order of {n} lines", lines=n)
      for n in LINE_COUNTS],
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


def aggregate(meter, ctx, divisor=1):
    """{"where|role|kind|rw": units} of what the meter saw, divided by `divisor`."""
    out = {}
    for c in meter.charges():
        key = "|".join((c.where, ctx.role(c.pk), c.kind, c.rw))
        out[key] = out.get(key, 0.0) + c.units / divisor
    return {k: round(v, 6) for k, v in sorted(out.items())}


def measure_all(operations=OPERATIONS, log=print):
    """Seeds the current table with the capacity catalog and measures every operation.
    Returns {name: {...}}: charges by where/role/kind/rw, what DynamoDB Local reported, requests."""
    from contextlib import contextmanager

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
            reported = {
                where: {rw: round(u / divisor, 4) for rw, u in units.items()}
                for where, units in meter.reported_totals().items()
            }
            results[op.name] = {
                "per": op.per,
                "note": op.note,
                "lines": op.lines,
                "requests": meter.operations(),
                "charges": aggregate(meter, ctx, divisor),
                "reported": reported,
                "items": _item_counts(meter, divisor),
            }
            log(f"  {op.name:<20} {_short(results[op.name])}")
    return results


def _item_counts(meter, divisor):
    """Written table items and index entries, by where."""
    counts = {}
    for c in meter.charges():
        if c.rw == "W":
            counts[c.where] = counts.get(c.where, 0) + 1 / divisor
    return {k: round(v, 3) for k, v in counts.items()}


def totals(charges):
    """{"R": units, "W": units} of an operation's charges."""
    out = {"R": 0.0, "W": 0.0}
    for key, units in charges.items():
        out[key.rsplit("|", 1)[1]] += units
    return out


def _short(result):
    t = totals(result["charges"])
    return f"{t['R']:.1f} RRU {t['W']:.1f} WRU  {result['requests']}"
