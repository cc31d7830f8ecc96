"""Typed results of the catalog: brands, categories and products (nothing outside the gateway sees a raw
DynamoDB item), and the value readers the other entities share."""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from catalog import availability

from .. import keys
from . import text

CENT = Decimal("0.01")



def price_value(value: Any) -> Any:
    if not isinstance(value, Decimal):  # DynamoDB's numbers are Decimal already: no detour through str
        value = Decimal(str(value if value is not None else 0))
    return value.quantize(CENT)



def int_value(value: Any, default: int | None = 0) -> Any:
    return int(value) if value is not None else default



def plain_value(value: Any) -> Any:
    """DynamoDB numbers arrive as Decimal; give attributes back as int or float."""
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    return value



def counts_value(value: Any) -> dict[str, Any]:
    """A count map as DynamoDB keeps it -> {id: n} of the non-zero counts."""
    return {k: int(v) for k, v in (value or {}).items() if int(v) > 0}



@dataclass(frozen=True)
class Brand:
    """A brand; `category_counts` says how many of its products each category has (kept by the
    import, so the cached list of brands brings the counts of every brand page's chips)."""

    brand_id: str
    name: str
    category_counts: Mapping[str, int] = field(default_factory=dict, hash=False, compare=False)

    @classmethod
    def from_item(cls, item: dict[str, Any]) -> Brand:
        return cls(brand_id=item["brandId"], name=item["name"],
                   category_counts=counts_value(item.get("categoryCounts")))

    @property
    def product_count(self) -> int:
        return sum(self.category_counts.values())

    def to_item(self) -> dict[str, Any]:
        return {**keys.brand_key(self.brand_id), "type": "BRAND", "brandId": self.brand_id, "name": self.name}



@dataclass(frozen=True)
class Category:
    """A category; `brand_counts` says how many of its products each brand has."""

    category_id: str
    name: str
    brand_counts: Mapping[str, int] = field(default_factory=dict, hash=False, compare=False)

    @classmethod
    def from_item(cls, item: dict[str, Any]) -> Category:
        return cls(
            category_id=item["categoryId"], name=item["name"], brand_counts=counts_value(item.get("brandCounts"))
        )

    @property
    def product_count(self) -> int:
        return sum(self.brand_counts.values())

    def to_item(self) -> dict[str, Any]:
        return {
            **keys.category_key(self.category_id),
            "type": "CATEGORY",
            "categoryId": self.category_id,
            "name": self.name,
        }



@dataclass(frozen=True)
class Product:
    """A product. From a list (GSI1/GSI2, the sort indexes) `attributes` is empty: the indexes
    project only what a list shows, the stock band (`band`, `stock_band`) but not the exact level
    (`stock_level` None); `product_get` returns them all. From a search (term items) `stock_level`
    is None until the page's levels are read: term items do not carry it, so a sale never writes them."""

    product_id: str
    name: str
    brand_id: str
    category_id: str
    price: Decimal
    stock_level: int | None
    description: str = ""
    attributes: Mapping[str, object] = field(default_factory=dict, hash=False)
    reorder_point: int | None = None  # None: LOW_STOCK_THRESHOLD
    image: str = ""
    band: int | None = field(default=None, compare=False)  # `stockBand` as stored (the v2 list indexes project it)
    # Stock buckets (buckets.py): K, whether the stock is spread over the bucket items
    # (None: gathered, all of it on the product item, which then holds the exact total), the product
    # item's own units (`reserve`) and the buckets' levels as read (None: not read). While spread,
    # `stock_level` is the total only once the buckets were read (products_get_many, product_get).
    stock_buckets: int | None = 1  # None only in an import file that leaves it out (keep the stored K)
    spread: str | None = field(default=None, compare=False)
    reserve: int | None = field(default=None, compare=False)
    bucket_levels: tuple | None = field(default=None, compare=False)
    # Back-in-stock alerts waiting for it (keys.ALERTS_WAITING). Not an import's: to_item
    # leaves it out, so an import never resets it.
    alerts_waiting: int = field(default=0, compare=False)
    # Shown to shoppers (False: hidden by staff: in no list, count or search, its page a 404; to_item
    # then puts it in the hidden products' GSI1 partition instead of the shoppers' indexes).
    published: bool = True
    # How many times staff or an import changed it: the editor writes only if it is still the one shown.
    version: int = field(default=0, compare=False)

    @classmethod
    def from_item(cls, item: dict[str, Any]) -> Product:
        return cls(
            alerts_waiting=max(0, int_value(item.get(keys.ALERTS_WAITING), 0)),
            band=int_value(item["stockBand"]) if item.get("stockBand") is not None else None,
            reorder_point=int_value(item["reorderPoint"]) if item.get("reorderPoint") is not None else None,
            product_id=item["productId"],
            name=item.get("name", ""),
            brand_id=item.get("brandId", ""),
            category_id=item.get("categoryId", ""),
            price=price_value(item.get("price")),
            stock_level=int_value(item["stockLevel"]) if "stockLevel" in item and not item.get("stockSpread") else None,
            stock_buckets=int_value(item.get("stockBuckets"), 1),
            spread=item.get("stockSpread"),
            reserve=int_value(item["stockLevel"]) if "stockLevel" in item else None,
            description=item.get("description", ""),
            attributes={k: plain_value(v) for k, v in (item.get("attributes") or {}).items()},
            image=item.get("image", ""),
            published=item.get("published", True) is not False,
            version=int_value(item.get("version"), 0),
        )

    @property
    def normalised_name(self) -> str:
        return text.normalise_name(self.name)

    def to_item(self) -> dict[str, Any]:
        item = {
            **keys.product_key(self.product_id),
            **self.list_keys(),
            "type": "PRODUCT",
            "productId": self.product_id,
            "name": self.name,
            "brandId": self.brand_id,
            "categoryId": self.category_id,
            "price": self.price,
            "stockLevel": self.stock_level,
            **({"stockBand": availability.stock_band(self.stock_level)} if self.stock_level is not None else {}),
            "description": self.description,
            "attributes": dict(self.attributes),
            **({"reorderPoint": self.reorder_point} if self.reorder_point is not None else {}),
            **({"stockBuckets": self.stock_buckets} if (self.stock_buckets or 1) > 1 else {}),
            **reorder_index_keys(self.product_id, self.stock_level, self.reorder_point),
        }
        if self.image:
            item["image"] = self.image
        if not self.published:
            item["published"] = False
        return item

    def list_keys(self) -> dict[str, Any]:
        """The index keys that put it in lists: shown, GSI1, GSI2 and the six sort indexes (the seed's
        keys); hidden, only the hidden products' GSI1 partition (staff's list of them)."""
        where = {"product_id": self.product_id, "brand_id": self.brand_id, "category_id": self.category_id}
        if not self.published:
            return keys.hidden_index_keys(**where)
        return {**keys.product_index_keys(**where),
                **keys.product_sort_keys(**where, normalised_name=self.normalised_name, price=self.price)}

    def term_items(self) -> list[Any]:
        """The search index items of this product: one per term of its name (text.terms), with
        what a search result shows (no stock level); none while it is hidden."""
        if not self.published:
            return []
        normalised = self.normalised_name
        shown = {
            "type": "TERM", "productId": self.product_id, "name": self.name, "brandId": self.brand_id,
            "categoryId": self.category_id, "price": self.price,
        }
        if self.image:
            shown["image"] = self.image
        return [
            {
                **keys.term_key(term, product_id=self.product_id, normalised_name=normalised),
                **keys.term_index_keys(term, product_id=self.product_id, price=self.price),
                "term": term,
                **shown,
            }
            for term in sorted(text.terms(self.name))
        ]

    @property
    def stock_band(self) -> Any | None:
        """What a list shows of the stock (availability.stock_band): from the exact level when it was
        read (a product page, a search's levels), else from the stored
        band (the v2 list indexes); None when neither was read."""
        if self.stock_level is not None:
            return availability.stock_band(self.stock_level)
        return availability.band_as_read(self.band) if self.band is not None else None

    @property
    def in_stock(self) -> Any:
        return availability.can_buy(self.stock_level)

    @property
    def effective_reorder_point(self) -> Any:
        return availability.reorder_point(self.reorder_point)

    @property
    def needs_reorder(self) -> Any:
        return availability.at_or_below_reorder_point(self.stock_level, self.reorder_point)



def reorder_index_keys(
    product_id: str, level: int | None, reorder_point: int | None
) -> dict[str, Any] | dict[str, Any]:
    """The Reorder index keys when a product at `level` is at or below its reorder point, else {}."""
    if not availability.at_or_below_reorder_point(level, reorder_point):
        return {}
    return keys.reorder_keys(product_id, level)
