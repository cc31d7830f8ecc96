"""Helpers the tests share: a small catalog, seeding through the import path, reading a
partition back, a scripted DynamoDB, and the browser tests' Chromium settings."""
import copy
import dataclasses
import json
import time
from datetime import datetime, timedelta
from pathlib import Path

from catalog.gateway import client as dynamo
from catalog.gateway import codec, keys
from catalog.gateway.catalog import importer
from catalog.gateway.stock.entities import StockAdjustment, is_sale_record
from tests.picture_files import picture_bytes as picture_bytes  # where the editor's tests take it from
from tests.staff_groups import CATALOG_EDITORS as CATALOG_EDITORS  # the staff groups' helpers
from tests.staff_groups import WAREHOUSE, join
from tests.staff_groups import warehouse_staff as warehouse_staff

REPO = Path(__file__).resolve().parent.parent

# A small catalog. Brand and category IDs 1 and 10 both exist: prefix queries must keep them apart.
SMALL_CATALOG = {
    "brands": [
        {"brandId": "1", "name": "Microsoft"},
        {"brandId": "2", "name": "Google"},
        {"brandId": "3", "name": "Tesla"},
        {"brandId": "10", "name": "Acme"},
    ],
    "categories": [
        {"categoryId": "1", "name": "Cars"},
        {"categoryId": "2", "name": "Boats"},
        {"categoryId": "3", "name": "Phones"},
        {"categoryId": "10", "name": "Chargers"},
    ],
    "products": [
        {"productId": "1", "name": "Model 3", "brandId": "3", "categoryId": "1", "price": "39990.00",
         "stockLevel": 70, "description": "Electric sedan.", "attributes": {"range_km": 510, "seats": 5}},
        {"productId": "2", "name": "Model Y", "brandId": "3", "categoryId": "1", "price": "44990.00",
         "stockLevel": 3, "description": "Electric SUV.", "attributes": {"range_km": 533, "awd": True}},
        {"productId": "3", "name": "Wall Connector", "brandId": "3", "categoryId": "10", "price": "475.00",
         "stockLevel": 0, "description": "Home charger.", "attributes": {"kw": 11.5}},
        {"productId": "4", "name": "Pixel 9", "brandId": "2", "categoryId": "3", "price": "899.00",
         "stockLevel": 12, "description": "Phone.", "attributes": {"storage_gb": 128, "color": "Obsidian"}},
        {"productId": "5", "name": "Surface Duo", "brandId": "1", "categoryId": "3", "price": "1399.99",
         "stockLevel": 5, "description": "Folding phone.", "attributes": {}},
        {"productId": "6", "name": "Acme Jet Boat", "brandId": "10", "categoryId": "2", "price": "15000.00",
         "stockLevel": 2, "description": "Fast.", "attributes": {"length_m": 5.2}},
        {"productId": "7", "name": "Acme Car Charger", "brandId": "10", "categoryId": "10", "price": "29.90",
         "stockLevel": 40, "description": "12 V.", "attributes": {}},
        {"productId": "8", "name": "Acme Roadster", "brandId": "10", "categoryId": "1", "price": "9999.00",
         "stockLevel": 1, "description": "Tiny car.", "attributes": {}},
    ],
}


def small_catalog():
    return copy.deepcopy(SMALL_CATALOG)


def seed(data=None):
    """Fill the current table through the project's own import path."""
    return importer.import_catalog(data if data is not None else small_catalog())


# The items an import of the small catalog writes into an empty table, per DynamoDB (moto or DynamoDB Local) and
# day (the opening stock changes carry the time of the import), in DynamoDB's wire format.
_SMALL_CATALOG_ITEMS = {}


def _all_items():
    ddb, items, start = dynamo.client(), [], {}
    while True:
        page = ddb.scan(TableName=dynamo.table_name(), ConsistentRead=True, **start)
        items += page["Items"]
        if "LastEvaluatedKey" not in page:
            return items
        start = {"ExclusiveStartKey": page["LastEvaluatedKey"]}


def _item_key(item):
    return json.dumps([item["PK"], item["SK"]], sort_keys=True)


def put_items(items):
    """Write wire-format items into the current table with BatchWriteItem (25 a request, unprocessed ones again)."""
    ddb, table = dynamo.client(), dynamo.table_name()
    for start in range(0, len(items), 25):
        writes = [{"PutRequest": {"Item": item}} for item in items[start:start + 25]]
        for attempt in range(50):
            writes = ddb.batch_write_item(RequestItems={table: writes}).get("UnprocessedItems", {}).get(table)
            if not writes:
                break
            time.sleep(0.05 * (attempt + 1))
        else:
            raise RuntimeError("DynamoDB kept items of a BatchWriteItem unprocessed")


def seed_small_catalog():
    """The small catalog in the current, empty table, as seed() leaves it. The first table of a process (and day)
    is filled through the import path and its items are kept; later tables get a copy of those items with
    BatchWriteItem, a tenth of an import's time (the importer's own tests call seed())."""
    from django.conf import settings

    key = (settings.DYNAMODB_ENDPOINT_URL, datetime.now().date())
    if key in _SMALL_CATALOG_ITEMS:
        put_items(_SMALL_CATALOG_ITEMS[key])
    else:
        before = {_item_key(item): item for item in _all_items()}  # what the empty table holds (its layout's marks)
        seed()
        _SMALL_CATALOG_ITEMS[key] = [item for item in _all_items() if before.get(_item_key(item)) != item]
    return small_catalog()


SALE_RECORD = (*keys.BUYER_ATTRIBUTES, f"{keys.LEDGER}PK", f"{keys.LEDGER}SK", "at", "customerId", "customerName",
               "customerEmail", "orderNumber", "resultingLevel")


def with_sales_as_adjustments(items, *, keep=()):
    """`items` with each sale's record a stock adjustment under P#<pid> (with its Ledger and ByReason keys)
    and its order line a plain line (`keep`: but these of its attributes), as a table of the seed's layout
    holds sales."""
    out = {}
    for key, item in items.items():
        if is_sale_record(item):
            sale = StockAdjustment.from_item(item).to_item()
            out[(sale["PK"], sale["SK"])] = sale
            item = {k: v for k, v in item.items() if k not in SALE_RECORD or k in keep}
        out[key] = item
    return out


def items_in_partition(pk):
    """Every item of one partition (to check what a write left behind)."""
    response = dynamo.client().query(
        TableName=dynamo.table_name(),
        KeyConditionExpression="PK = :pk",
        ExpressionAttributeValues=codec.serialize({":pk": pk}),
        ConsistentRead=True,
    )
    return [codec.deserialize(i) for i in response["Items"]]


def age_hold(customer_id, product_id, seconds):
    """Time passes for a shopper's hold (timed holds): it was taken, and ends, `seconds` earlier than it
    did (its item rewritten, with its HoldExpiry keys)."""
    from catalog.gateway.stock.holds import holds_of

    hold = holds_of(customer_id=customer_id, product_ids=[product_id])[product_id]
    taken = datetime.fromisoformat(hold.held_at) - timedelta(seconds=seconds)
    older = dataclasses.replace(hold, until=hold.until - seconds, held_at=taken.isoformat(timespec="microseconds"))
    dynamo.client().put_item(TableName=dynamo.table_name(), Item=codec.serialize(older.to_item()))
    return older


def age_hold_cap(customer_id, product_id, seconds):
    """Time passes for what a shopper's released hold left (its first time, holds.Hold.cap_item)."""
    key = codec.serialize(keys.hold_cap_key(product_id, customer_id))
    found = dynamo.client().get_item(TableName=dynamo.table_name(), Key=key, ConsistentRead=True)
    item = codec.deserialize(found["Item"])
    taken = datetime.fromisoformat(item["heldAt"]) - timedelta(seconds=seconds)
    item.update(heldAt=taken.isoformat(timespec="microseconds"), expiresAt=int(item["expiresAt"]) - seconds)
    item.update({name: int(item[name]) - seconds for name in ("capAt", "coolUntil") if name in item})
    dynamo.client().put_item(TableName=dynamo.table_name(), Item=codec.serialize(item))


def units_counted(customer_id):
    """A shopper's count of units held over every product (holds' HOLDUNITS item), read as it is."""
    key = codec.serialize(keys.hold_units_key(customer_id))
    found = dynamo.client().get_item(TableName=dynamo.table_name(), Key=key, ConsistentRead=True)
    return int(codec.deserialize(found["Item"])["heldUnits"]) if "Item" in found else 0


def paged_catalog(settings, n=7, size=3):
    """Pages of `size`; brand 2 / category 3 gets `n` gadgets (x0, x1, ...), enough to page through."""
    settings.CATALOG_PAGE_SIZE = size
    data = small_catalog()
    data["products"] = [
        {"productId": f"x{i}", "name": f"Gadget {i}", "brandId": "2", "categoryId": "3", "price": "5.00",
         "stockLevel": 9}
        for i in range(n)
    ]
    seed(data)


# --- real browser ---------------------------------------------------------------------------

CHROMIUM = "/usr/bin/chromium"
SCREENSHOTS = REPO / "var" / "screenshots"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def screenshot(page, name):
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=True)


def axe_violations(page, axe_script):
    """axe-core's WCAG 2.2 A/AA violations on the page as it is now: ["rule: selector, ...", ...]."""
    from tools.axe import WCAG_TAGS

    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.add_script_tag(path=axe_script)
    result = page.evaluate(
        """tags => axe.run(document, {runOnly: {type: 'tag', values: tags}, resultTypes: ['violations'],
                                      rules: {'p-as-heading': {enabled: true}}})""",  # experimental: off by default
        WCAG_TAGS,
    )
    return [
        f"{v['id']}: {', '.join(' '.join(n['target']) for n in v['nodes'][:5])}" for v in result["violations"]
    ]


def page_overflow(page):
    """How many CSS pixels the page is wider than the window (0 when it fits)."""
    return page.evaluate("Math.max(0, document.documentElement.scrollWidth - window.innerWidth)")


def totp_code(secret, at=None):
    """The authenticator app's six digits for a base32 secret (RFC 6238: SHA-1, 30 s), as a phone would show."""
    import base64
    import hashlib
    import hmac
    import struct
    import time

    key = base64.b32decode(secret.upper() + "=" * (-len(secret) % 8))
    counter = int((time.time() if at is None else at) // 30)
    digest = hmac.new(key, struct.pack(">Q", counter), hashlib.sha1).digest()
    offset = digest[-1] & 0x0F
    return f"{(struct.unpack('>I', digest[offset:offset + 4])[0] & 0x7FFFFFFF) % 1_000_000:06d}"


def keep_hot_products(settings, seconds=300):
    """Shoppers' pages keep a spread product's figures for the whole test: their one second (the default) is
    not enough for several requests on a busy machine."""
    from catalog import hot_products

    settings.CACHES = {**settings.CACHES,
                       hot_products.CACHE: {**settings.CACHES[hot_products.CACHE], "TIMEOUT": seconds}}


def wrong_totp_code(secret):
    """Six digits that are no code of the secret's in the steps a server with a tolerance of 1 takes now."""
    import time

    now = time.time()
    valid = {totp_code(secret, at=now + 30 * step) for step in (-2, -1, 0, 1, 2)}
    return next(code for code in ("000000", "111111", "222222", "333333", "444444", "555555") if code not in valid)


def mailed_code(message):
    """The code in an email allauth sent (to confirm an address, or to sign in): XXXX-XXXX."""
    import re

    return re.search(r"^([A-Z0-9]{4}-[A-Z0-9]{4})$", message.body, re.M).group(1)


def make_account(django_user_model, username, password, *, groups=None, **fields):
    """An account as sign-up leaves it once its address is confirmed (allauth's EmailAddress, verified). A staff
    account joins `groups` (by default "Warehouse": the stock pages' permission, staff/models.py)."""
    from allauth.account.models import EmailAddress

    user = django_user_model.objects.create_user(username, email=f"{username}@example.com", password=password,
                                                 **fields)
    EmailAddress.objects.create(user=user, email=user.email, primary=True, verified=True)
    if user.is_staff:
        join(user, *(groups if groups is not None else [WAREHOUSE]))
    return user


TOTP_SECRET = "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP"


def sign_in_staff(client, user):
    """`client` signed in as `user` (staff) as after a sign-in with the authenticator app's code: the account
    has an authenticator app (secret TOTP_SECRET), and the session records its use as allauth does
    (the staff pages ask for a factor used in the session: shop/mfa.py)."""
    from allauth.mfa.models import Authenticator

    from bench.flows import record_second_factor

    app, _ = Authenticator.objects.get_or_create(user=user, type=Authenticator.Type.TOTP,
                                                 defaults={"data": {"secret": TOTP_SECRET}})
    client.force_login(user)
    record_second_factor(client, user, app)
    return client


def alert_count(product_id):
    """The back-in-stock alerts waiting for a product, as its item counts them (consistent read; as stored,
    so a count taken below 0 shows)."""
    from catalog.gateway import client as dynamo
    from catalog.gateway import codec, keys

    item = dynamo.client().get_item(TableName=dynamo.table_name(), Key=codec.serialize(keys.product_key(product_id)),
                                    ConsistentRead=True).get("Item")
    return int(codec.deserialize(item).get(keys.ALERTS_WAITING, 0))


def level(product_id):
    """A product's stock level as stored (consistent read)."""
    from catalog import gateway

    return gateway.product_get(product_id=product_id, consistent=True).stock_level


def history(product_id):
    """A product's stock changes, newest first (its first 100; consistent read)."""
    from catalog import gateway

    return gateway.stock_history(product_id=product_id, limit=100, consistent=True).items


def buy(user, product_id, quantity=1):
    """`user` (an account) orders `quantity` of a product at its price, under the user's customer key, name
    and address; returns the placed order."""
    from catalog import gateway
    from catalog.gateway import PurchaseLine
    from catalog.gateway.orders import orders

    return orders.order_place(
        customer_id=user.customer_key_id, customer_name=user.display_name, customer_email=user.email,
        order_id=orders.new_order_id(), token=gateway.new_token(),
        lines=[PurchaseLine(product_id, quantity, gateway.product_get(product_id=product_id).price)],
    )


def place(customer, lines, *, name=None, order_id=None, token=None):
    """Customer `customer` (a customer ID) places an order of `lines` (PurchaseLines), under the name
    `name` (the ID when none); returns the placed order."""
    from catalog import gateway

    return gateway.order_place(customer_id=customer, customer_name=customer if name is None else name,
                               order_id=order_id or gateway.new_order_id(), token=token or gateway.new_token(),
                               lines=lines)
