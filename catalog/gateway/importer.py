"""Bulk catalog import: validate the whole file first, then write in batches.

Importing again updates a product's names, price, description, attributes, brand and category
(and its index keys) but keeps its stock level: stock only changes through stock writes,
unless `reset_stock` says otherwise.
"""
import dataclasses
import json
import math
import re
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from pathlib import Path

from botocore.exceptions import ClientError

from . import keys
from .client import batch_get, batch_put, client, deserialize, error_code, serialize, table_name, translate_errors
from .entities import Brand, Category, Product
from .validate import MAX_REORDER, valid_id

DEMO_CATALOG = Path(__file__).resolve().parent.parent / "demo" / "demo_catalog.json"

MAX_NAME = 200
MAX_DESCRIPTION = 2000
MAX_ATTRIBUTES = 50
PRICE = re.compile(r"[0-9]{1,9}(\.[0-9]{1,2})?", re.ASCII)  # plain digits only ("١٢" is no price)


class ImportInvalid(Exception):
    """The file has problems; nothing was written. `problems` lists them with their paths."""

    def __init__(self, problems):
        self.problems = problems
        super().__init__(f"{len(problems)} problem(s) in the catalog file")


@dataclass
class ImportResult:
    brands: int = 0
    categories: int = 0
    products_created: int = 0
    products_updated: int = 0
    requests: dict = field(default_factory=dict)

    def count(self, operation, n=1):
        self.requests[operation] = self.requests.get(operation, 0) + n


def load(path):
    """Read a catalog file; numbers are read exactly (Decimal), never as floats."""
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f, parse_float=Decimal)
    except OSError as exc:
        raise ImportInvalid([f"{path}: cannot read: {exc.strerror}"]) from None
    except json.JSONDecodeError as exc:
        raise ImportInvalid([f"{path}: not valid JSON: {exc.msg} at line {exc.lineno}"]) from None


# --- validation -------------------------------------------------------------------------

def _name(value, path, problems):
    if not isinstance(value, str) or not 1 <= len(value.strip()) <= MAX_NAME:
        problems.append(f"{path}: must be text of 1 to {MAX_NAME} characters")
        return None
    return value.strip()


def _id(value, path, problems):
    if not valid_id(value):
        problems.append(f"{path}: {value!r} is not a valid ID (1 to 64 letters, digits, '-' or '_')")
        return None
    return value


def _price(value, path, problems):
    text = str(value) if isinstance(value, (str, int, Decimal)) and not isinstance(value, bool) else None
    if text is None or not PRICE.fullmatch(text):
        problems.append(f"{path}: {value!r} is not a price (a non-negative amount with at most 2 decimals)")
        return None
    try:
        return Decimal(text).quantize(Decimal("0.01"))
    except InvalidOperation:
        problems.append(f"{path}: {value!r} is not a price")
        return None


def _stock(value, path, problems):
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        problems.append(f"{path}: {value!r} is not a stock level (a whole number >= 0)")
        return None
    return value


def _reorder_point(value, path, problems):
    """`reorderPoint` is optional (None: the stored one, or LOW_STOCK_THRESHOLD)."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_REORDER:
        problems.append(f"{path}: {value!r} is not a reorder point (a whole number from 0 to {MAX_REORDER:,})")
        return None
    return value


def _attributes(value, path, problems):
    if value is None:
        return {}
    if not isinstance(value, dict):
        problems.append(f"{path}: must be an object of names to strings, numbers or booleans")
        return None
    if len(value) > MAX_ATTRIBUTES:
        problems.append(f"{path}: at most {MAX_ATTRIBUTES} attributes")
        return None
    clean = {}
    for name, v in value.items():
        if not 1 <= len(name) <= 64:
            problems.append(f"{path}: attribute names must be 1 to 64 characters")
        elif isinstance(v, (str, bool, int)) or (isinstance(v, Decimal) and v.is_finite()):
            clean[name] = v
        elif isinstance(v, float) and math.isfinite(v):
            clean[name] = Decimal(str(v))  # DynamoDB numbers are exact; so are ours
        else:
            problems.append(f"{path}.{name}: must be a string, number or boolean, not {type(v).__name__}")
    return clean


def _list(data, name, problems):
    value = data.get(name, [])
    if not isinstance(value, list):
        problems.append(f"{name}: must be a list")
        return []
    return value


def _entities(data, name, id_key, build, problems):
    """The valid entities of one list of the file (`build(raw, path, id, problems)` each) and
    every ID it names; what is wrong is added to `problems` with its path."""
    found, seen = [], set()
    for i, raw in enumerate(_list(data, name, problems)):
        path = f"{name}[{i}]"
        if not isinstance(raw, dict):
            problems.append(f"{path}: must be an object")
            continue
        entity_id = _id(raw.get(id_key), f"{path}.{id_key}", problems)
        if entity_id in seen:
            problems.append(f"{path}.{id_key}: duplicate ID {entity_id!r}")
        seen.add(entity_id)
        entity = build(raw, path, entity_id, problems)
        if entity is not None and entity_id is not None:
            found.append(entity)
    return found, seen


def _brand(raw, path, brand_id, problems):
    name = _name(raw.get("name"), f"{path}.name", problems)
    return Brand(brand_id=brand_id, name=name) if name else None


def _category(raw, path, category_id, problems):
    name = _name(raw.get("name"), f"{path}.name", problems)
    return Category(category_id=category_id, name=name) if name else None


def _reference(raw, key, path, known, what, problems):
    value = _id(raw.get(key), f"{path}.{key}", problems)
    if value is not None and value not in known:
        problems.append(f'{path}.{key}: unknown {what} "{value}"')
    return value


def _product_builder(brand_ids, category_ids):
    def product(raw, path, product_id, problems):
        before = len(problems)
        name = _name(raw.get("name"), f"{path}.name", problems)
        brand_id = _reference(raw, "brandId", path, brand_ids, "brand", problems)
        category_id = _reference(raw, "categoryId", path, category_ids, "category", problems)
        price = _price(raw.get("price"), f"{path}.price", problems)
        stock = _stock(raw.get("stockLevel", 0), f"{path}.stockLevel", problems)
        description = raw.get("description", "")
        if not isinstance(description, str) or len(description) > MAX_DESCRIPTION:
            problems.append(f"{path}.description: must be text of at most {MAX_DESCRIPTION} characters")
        attributes = _attributes(raw.get("attributes"), f"{path}.attributes", problems)
        reorder_point = _reorder_point(raw.get("reorderPoint"), f"{path}.reorderPoint", problems)
        if len(problems) > before:
            return None
        return Product(
            product_id=product_id, name=name, brand_id=brand_id, category_id=category_id,
            price=price, stock_level=stock, description=description.strip(), attributes=attributes,
            reorder_point=reorder_point,
        )

    return product


def validate(data, *, known_brand_ids=frozenset(), known_category_ids=frozenset()):
    """Check the whole file; return (brands, categories, products) or raise ImportInvalid
    listing every problem. `known_*` are the IDs already in the table."""
    problems = []
    if not isinstance(data, dict):
        raise ImportInvalid(["(top level): must be an object with brands, categories and products"])
    unknown = set(data) - {"brands", "categories", "products"}
    if unknown:
        problems.append(f"(top level): unknown key(s) {', '.join(sorted(unknown))}")
    brands, brand_ids = _entities(data, "brands", "brandId", _brand, problems)
    categories, category_ids = _entities(data, "categories", "categoryId", _category, problems)
    product = _product_builder(brand_ids | set(known_brand_ids), category_ids | set(known_category_ids))
    products, _ = _entities(data, "products", "productId", product, problems)
    if problems:
        raise ImportInvalid(problems)
    return brands, categories, products


def referenced_ids(data, entity, id_key):
    """IDs that products reference but the file does not define (these must be in the table)."""
    if not isinstance(data, dict) or not isinstance(data.get("products"), list):
        return set()
    entities = data.get(entity) if isinstance(data.get(entity), list) else []
    defined = {b.get(id_key) for b in entities if isinstance(b, dict)}
    return {p.get(id_key) for p in data["products"] if isinstance(p, dict)} - defined


# --- writing ----------------------------------------------------------------------------

def _existing_products(product_ids, result):
    """The level and reorder point of those of these products already in the table
    (BatchGetItem, 100 a request): {product_id: Product with only those}."""
    items = batch_get(
        [keys.product_key(pid) for pid in product_ids], projection="productId, stockLevel, reorderPoint",
        consistent=True, on_request=result.count,
    )
    return {i["productId"]: Product.from_item(i) for i in items}


def _update_keeping_stock(product, stored, result):
    """Update everything of an existing product but its stock level (one UpdateItem), on the
    level read: its Reorder index keys follow from that level and the reorder point (the file's,
    or the stored one when the file has none). A stock write in between: read again, retry."""
    while True:
        reorder_point = product.reorder_point if product.reorder_point is not None else stored.reorder_point
        item = dataclasses.replace(product, stock_level=stored.stock_level, reorder_point=reorder_point).to_item()
        key = {"PK": item.pop("PK"), "SK": item.pop("SK")}
        item.pop("stockLevel")
        names = {f"#a{i}": name for i, name in enumerate(item)}
        values = {f":v{i}": value for i, value in enumerate(item.values())}
        removes = [name for name in keys.REORDER_ATTRIBUTES if name not in item]
        values[":level"] = stored.stock_level
        try:
            with translate_errors():
                client().update_item(
                    TableName=table_name(),
                    Key=serialize(key),
                    UpdateExpression="SET " + ", ".join(f"#a{i} = :v{i}" for i in range(len(item)))
                    + (" REMOVE " + ", ".join(removes) if removes else ""),
                    ConditionExpression="stockLevel = :level",
                    ExpressionAttributeNames=names,
                    ExpressionAttributeValues=serialize(values),
                    ReturnValuesOnConditionCheckFailure="ALL_OLD",
                )
        except ClientError as exc:
            if error_code(exc) != "ConditionalCheckFailedException" or not exc.response.get("Item"):
                raise
            result.count("UpdateItem")
            stored = Product.from_item(deserialize(exc.response["Item"]))
            continue
        result.count("UpdateItem")
        return


def write(brands, categories, products, *, reset_stock=False, progress=None):
    """Write validated entities. Returns an ImportResult with counts and requests used."""
    result = ImportResult(brands=len(brands), categories=len(categories))
    batch_put([b.to_item() for b in brands] + [c.to_item() for c in categories], on_request=result.count)
    existing = _existing_products([p.product_id for p in products], result)
    result.products_created = sum(p.product_id not in existing for p in products)
    result.products_updated = len(products) - result.products_created
    # New products (and, with reset_stock, every product) are written whole, in batches;
    # existing ones are updated in place so that a concurrent sale is never overwritten.
    whole = [p for p in products if reset_stock or p.product_id not in existing]
    batch_put([p.to_item() for p in whole], on_request=result.count, progress=progress)
    if not reset_stock:
        for product in products:
            if product.product_id in existing:
                _update_keeping_stock(product, existing[product.product_id], result)
                if progress:
                    progress(1)
    return result


def import_catalog(data, *, reset_stock=False, progress=None):
    """Validate `data` (a parsed catalog file) against itself and the table, then write it."""
    from .products import brands_all, categories_all

    known_brands = known_categories = frozenset()
    if referenced_ids(data, "brands", "brandId"):
        known_brands = {b.brand_id for b in brands_all()}
    if referenced_ids(data, "categories", "categoryId"):
        known_categories = {c.category_id for c in categories_all()}
    brands, categories, products = validate(
        data, known_brand_ids=known_brands, known_category_ids=known_categories
    )
    return write(brands, categories, products, reset_stock=reset_stock, progress=progress)
