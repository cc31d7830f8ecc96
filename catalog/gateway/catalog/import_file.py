"""The catalog import's file: loading it and checking all of it (every problem at once) before anything
is written (importer.py writes it)."""
from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Iterable, Set
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings

from common.numbers import Unreadable, parse_decimal

from .. import keys
from ..errors import ID_RULE
from ..validate import MAX_REORDER, valid_id
from . import text
from .entities import CENT, Brand, Category, Product

DEMO_CATALOG = Path(__file__).resolve().parents[2] / "demo" / "demo_catalog.json"

MAX_NAME = 200
MAX_DESCRIPTION = 2000
MAX_ATTRIBUTES = 50
MAX_PRICE = Decimal("999999999.99")  # 9 digits before the point (keys.PRICE_KEY_DIGITS)


class ImportInvalid(Exception):
    """The file has problems; nothing was written. `problems` lists them with their paths."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        super().__init__(f"{len(problems)} problem(s) in the catalog file")


@dataclass
class ImportResult:
    brands: int = 0
    categories: int = 0
    products_created: int = 0
    products_updated: int = 0
    stock_entries: int = 0  # opening stock changes written (levels set by the import)
    terms_written: int = 0
    requests: dict = field(default_factory=dict)

    def count(self, operation: str, n: int = 1) -> None:
        self.requests[operation] = self.requests.get(operation, 0) + n


def load(path: str) -> Any:
    """Read a catalog file; numbers are read exactly (Decimal), never as floats."""
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f, parse_float=Decimal)
    except OSError as exc:
        raise ImportInvalid([f"{path}: cannot read: {exc.strerror}"]) from None
    except json.JSONDecodeError as exc:
        raise ImportInvalid([f"{path}: not valid JSON: {exc.msg} at line {exc.lineno}"]) from None


# --- validation -------------------------------------------------------------------------

CONTROL = "has a control character (a line break, tab or invisible character): use one line of letters, digits, "\
    "spaces and punctuation"


def _name(value: Any, path: str, problems: list[str], named: str = "") -> str | None:
    """A one-line name (`named`: whose, for the message: 'product "p1"')."""
    if not isinstance(value, str) or not 1 <= len(value.strip()) <= MAX_NAME:
        problems.append(f"{path}: must be text of 1 to {MAX_NAME} characters")
        return None
    if text.has_control_characters(value.strip()):
        problems.append(f"{path}: the name of {named or 'this entry'}, {value.strip()!r}, {CONTROL}")
        return None
    return value.strip()


def _id(value: Any, path: str, problems: list[str]) -> Any | None:
    if not valid_id(value):
        problems.append(f"{path}: {value!r} is not a valid ID ({ID_RULE})")
        return None
    return value


def _price(value: Any, path: str, problems: list[str]) -> Decimal | None:
    text = str(value) if isinstance(value, (str, int, Decimal)) and not isinstance(value, bool) else None
    try:
        if text is None or text != text.strip():
            raise Unreadable("not text")
        return parse_decimal(text, maximum=MAX_PRICE, places=2).quantize(CENT)
    except Unreadable:
        problems.append(f"{path}: {value!r} is not a price (a non-negative amount with at most 2 decimals)")
        return None


MAX_IMAGE = 500
IMAGE_PATH = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9_./-]*\.(png|jpe?g|webp|gif|svg|avif)")


def _image(value: Any, path: str, problems: list[str]) -> str | None:
    """An optional picture: an https URL on one of PRODUCT_IMAGE_HOSTS, or the path of a file under
    static/ ("img/x.svg")."""
    if value is None or value == "":
        return ""
    if not isinstance(value, str) or len(value) > MAX_IMAGE:
        problems.append(f"{path}: must be text of at most {MAX_IMAGE} characters")
        return None
    if value.startswith("https://"):
        from django.core.exceptions import ValidationError
        from django.core.validators import URLValidator

        try:
            URLValidator(schemes=["https"])(value)
        except ValidationError:
            problems.append(f"{path}: {value!r} is not an https URL")
            return None
        if urlsplit(value).netloc.lower() not in settings.PRODUCT_IMAGE_HOSTS:
            # The page's Content-Security-Policy (img-src) would not let a browser show it.
            problems.append(f"{path}: {value!r} is not on a picture host of PRODUCT_IMAGE_HOSTS "
                            f"({', '.join(settings.PRODUCT_IMAGE_HOSTS) or 'none set'})")
            return None
        return value
    if not IMAGE_PATH.fullmatch(value) or ".." in value.split("/") or "//" in value:
        problems.append(
            f"{path}: {value!r} is neither an https URL nor the path of a picture under static/ (img/x.png)"
        )
        return None
    from django.contrib.staticfiles import finders

    if not finders.find(value):
        problems.append(f"{path}: no file static/{value}")
        return None
    return value


def _stock(value: Any, path: str, problems: list[str]) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        problems.append(f"{path}: {value!r} is not a stock level (a whole number >= 0)")
        return None
    return value


def _reorder_point(value: Any, path: str, problems: list[str]) -> int | None:
    """`reorderPoint` is optional (None: the stored one, or LOW_STOCK_THRESHOLD)."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_REORDER:
        problems.append(f"{path}: {value!r} is not a reorder point (a whole number from 0 to {MAX_REORDER:,})")
        return None
    return value


def _stock_buckets(value: Any, path: str, problems: list[str]) -> int | None:
    """`stockBuckets` is optional (None: the stored K, or 1 for a new product): how many stock buckets
    a hot product's stock is spread over (buckets.py)."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= keys.MAX_STOCK_BUCKETS:
        problems.append(f"{path}: {value!r} is not a number of stock buckets (a whole number from 1 to "
                        f"{keys.MAX_STOCK_BUCKETS})")
        return None
    return value


def _attributes(value: Any, path: str, problems: list[str]) -> dict[str, Any] | dict[Any, str | int | Decimal] | None:
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
        elif text.has_control_characters(name) or (isinstance(v, str) and text.has_control_characters(v)):
            problems.append(f"{path}.{name!r}: {CONTROL}")
        elif isinstance(v, (str, bool, int)) or (isinstance(v, Decimal) and v.is_finite()):
            clean[name] = v
        elif isinstance(v, float) and math.isfinite(v):
            clean[name] = Decimal(str(v))  # DynamoDB numbers are exact; so are ours
        else:
            problems.append(f"{path}.{name}: must be a string, number or boolean, not {type(v).__name__}")
    return clean


def _list(data: Any, name: str, problems: list[str]) -> list[Any]:
    value = data.get(name, [])
    if not isinstance(value, list):
        problems.append(f"{name}: must be a list")
        return []
    return value


def _entities(data: Any, name: str, id_key: str, build: Any, problems: list[str]) -> tuple[list[Any], set[Any]]:
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


def _brand(raw: Any, path: str, brand_id: str, problems: list[str]) -> Brand | None:
    name = _name(raw.get("name"), f"{path}.name", problems, named=f'brand "{brand_id}"')
    return Brand(brand_id=brand_id, name=name) if name else None


def _category(raw: Any, path: str, category_id: str, problems: list[str]) -> Category | None:
    name = _name(raw.get("name"), f"{path}.name", problems, named=f'category "{category_id}"')
    return Category(category_id=category_id, name=name) if name else None


def _reference(raw: Any, key: str, path: str, known: Any, what: str, problems: list[str]) -> Any:
    value = _id(raw.get(key), f"{path}.{key}", problems)
    if value is not None and value not in known:
        problems.append(f'{path}.{key}: unknown {what} "{value}"')
    return value


def _product_builder(
    brand_ids: Iterable[str], category_ids: Iterable[str]
) -> Callable[[Any, str, str | None, list[str]], Product | None]:
    def product(raw: Any, path: str, product_id: str | None, problems: list[str]) -> Product | None:
        before = len(problems)
        name = _name(raw.get("name"), f"{path}.name", problems, named=f'product "{product_id}"')
        brand_id = _reference(raw, "brandId", path, brand_ids, "brand", problems)
        category_id = _reference(raw, "categoryId", path, category_ids, "category", problems)
        price = _price(raw.get("price"), f"{path}.price", problems)
        stock = _stock(raw.get("stockLevel", 0), f"{path}.stockLevel", problems)
        description = raw.get("description", "")
        if not isinstance(description, str) or len(description) > MAX_DESCRIPTION:
            problems.append(f"{path}.description: must be text of at most {MAX_DESCRIPTION} characters")
        attributes = _attributes(raw.get("attributes"), f"{path}.attributes", problems)
        reorder_point = _reorder_point(raw.get("reorderPoint"), f"{path}.reorderPoint", problems)
        image = _image(raw.get("image"), f"{path}.image", problems)
        stock_buckets = _stock_buckets(raw.get("stockBuckets"), f"{path}.stockBuckets", problems)
        if len(problems) > before:
            return None
        # Each check that gives None has said why in `problems`: none of these is None here.
        assert product_id is not None and name is not None and price is not None
        assert attributes is not None and image is not None
        return Product(
            product_id=product_id, name=name, brand_id=brand_id, category_id=category_id,
            price=price, stock_level=stock, description=description.strip(), attributes=attributes,
            reorder_point=reorder_point, image=image, stock_buckets=stock_buckets,
        )

    return product


def check_product(
    raw: Any, *, path: str, brand_ids: Iterable[str], category_ids: Iterable[str]
) -> tuple[Product | None, list[str]]:
    """One product as the import file gives it (productId, name, brandId, categoryId, price, stockLevel,
    description, attributes, image), checked by the import's rules (the staff editor and its CSV use them
    too): (the Product, []) or (None, its problems, each starting with `path`)."""
    problems: list[str] = []
    product_id = _id(raw.get("productId"), f"{path}.productId", problems)
    product = _product_builder(brand_ids, category_ids)(raw, path, product_id, problems)
    return (product if not problems else None), problems


def validate(
    data: Any, *, known_brand_ids: Set[str] = frozenset(), known_category_ids: Set[str] = frozenset()
) -> tuple[Any, Any, Any]:
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


def referenced_ids(data: Any, entity: Any, id_key: str) -> set[Any] | set[Any | None]:
    """IDs that products reference but the file does not define (these must be in the table)."""
    if not isinstance(data, dict) or not isinstance(data.get("products"), list):
        return set()
    entities = data.get(entity)
    defined = {b.get(id_key) for b in entities if isinstance(b, dict)} if isinstance(entities, list) else set()
    return {p.get(id_key) for p in data["products"] if isinstance(p, dict)} - defined
