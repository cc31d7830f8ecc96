"""Catalog reads: brands, categories, one product, many products, product lists, search.

Each access pattern (key condition, index, sort orders): docs/table.md.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from typing import Any

from .. import keys
from ..dynamo.batches import BATCH_GET_SIZE, batch_get
from ..dynamo.boundary import translate_errors
from ..dynamo.client import read, table_name
from ..dynamo.codec import deserialize, serialize
from ..dynamo.pages import KeyRange, Page, query_all, query_page, read_query
from ..errors import InvalidInput, NotFound
from ..validate import check_id, page_size
from . import text
from .entities import Brand, Category, Product

# The orders a list can be read in: None is the seed's (a brand's products by category, a
# category's by brand; a search's by name).
SORTS = (None, "name", "price", "-price")


def check_sort(sort: str | None) -> str | None:
    if sort not in SORTS:
        raise InvalidInput('Sort must be "name", "price" or "-price" (or nothing).')
    return sort


def _sorted_range(scope: Any, partition: Any, sort: str | None) -> KeyRange:
    """The KeyRange of a sort index for `sort` over one brand, category or pair partition."""
    index = keys.BY_NAME[scope] if sort == "name" else keys.BY_PRICE[scope]
    return KeyRange(index=index, partition=partition, forward=sort != "-price")


def brands_all() -> list[Brand]:
    """Pattern 1: every brand, by name."""
    items = query_all(KeyRange(partition=keys.BRANDS_PK))
    return sorted((Brand.from_item(i) for i in items), key=lambda b: (b.name.casefold(), b.brand_id))


def categories_all() -> list[Category]:
    """Pattern 2: every category, by name."""
    items = query_all(KeyRange(partition=keys.CATEGORIES_PK))
    return sorted((Category.from_item(i) for i in items), key=lambda c: (c.name.casefold(), c.category_id))


# --- one product (pattern 3) ------------------------------------------------------------

def product_get(*, product_id: str, consistent: bool = False) -> Product:
    """Pattern 3: the product with all its attributes. `consistent` reads the latest write."""
    check_id("Product", product_id)
    with translate_errors():
        response = read("GetItem", {
            "TableName": table_name(), "Key": serialize(keys.product_key(product_id)), "ConsistentRead": consistent,
        })
    if "Item" not in response:
        raise NotFound("Product", product_id)
    return with_buckets([Product.from_item(deserialize(response["Item"]))], consistent=consistent)[0]


def bucket_levels(products: Iterable[Product | tuple[str, int]], *, consistent: bool = False) -> dict[str, Any]:
    """{product_id: (level of bucket 0, 1, ...)} of the products (Product or (product_id, K) pairs)
    whose stock is spread over buckets: one BatchGetItem (100 keys a request) for all of them."""
    wanted = [(p.product_id, p.stock_buckets or 1) if isinstance(p, Product) else p for p in products]
    if not wanted:
        return {}
    items = batch_get([keys.bucket_key(pid, k) for pid, count in wanted for k in range(count)], consistent=consistent)
    by_pk = {i["PK"]: int(i.get("stockLevel", 0)) for i in items}
    return {
        pid: tuple(by_pk.get(keys.bucket_pk(pid, k), 0) for k in range(count)) for pid, count in wanted
    }


def with_buckets(
    products: Sequence[Product], *, consistent: bool = False, levels_of: Any = None
) -> Sequence[Product] | list[Any]:
    """`products` (a list) with the levels of the buckets of those whose stock is spread (one more
    request, bucket_levels, only if there are any): `stock_level` is then the total, the product
    item's own units plus its buckets'. A gathered product's item holds the total itself.
    `levels_of` (product IDs) limits the buckets read to those products' (None: all); the others'
    `bucket_levels` stay None and their `stock_level` is their item's own units only."""
    spread = [p for p in products if p.spread and (levels_of is None or p.product_id in levels_of)]
    if not spread:
        return products
    levels = bucket_levels(spread, consistent=consistent)
    return [levels_read(p, levels[p.product_id]) if p.product_id in levels else p for p in products]


def levels_read(product: Product, levels: Any) -> Product:
    """`product` with its buckets' levels `levels` (a tuple): the total is its item's own plus theirs."""
    return dataclasses.replace(product, bucket_levels=levels, stock_level=(product.reserve or 0) + sum(levels))


def products_stock_levels(*, product_ids: Iterable[str]) -> dict[str, Any]:
    """{product_id: stock level} of up to 100 products: one BatchGetItem reading only the level
    (search term items do not carry it: a sale would have to write every term of the name)."""
    ids = list(dict.fromkeys(check_id("Product", pid) for pid in product_ids))
    if len(ids) > BATCH_GET_SIZE:
        raise ValueError(f"at most {BATCH_GET_SIZE} products at once")
    if not ids:
        return {}
    items = batch_get(
        [keys.product_key(pid) for pid in ids], projection="productId, stockLevel, stockBuckets, stockSpread"
    )
    levels = {i["productId"]: int(i["stockLevel"]) for i in items if "stockLevel" in i}
    spread = bucket_levels([(i["productId"], int(i.get("stockBuckets", 1))) for i in items if i.get("stockSpread")])
    return {pid: level + sum(spread.get(pid, ())) for pid, level in levels.items()}


def with_stock_levels(page: Page[Product]) -> Page[Product]:
    """`page` (of Products) with each product's exact stock level: one BatchGetItem of the levels
    (products_stock_levels). For the lists that show the level, not the band the list indexes and
    search terms carry: the staff stock table; a search (its terms carry no stock at all)."""
    levels = products_stock_levels(product_ids=[p.product_id for p in page.items])
    return dataclasses.replace(
        page, items=[dataclasses.replace(p, stock_level=levels.get(p.product_id)) for p in page.items],
    )


def products_get_many(*, product_ids: Iterable[str], consistent: bool = False, levels_of: Any = None) -> dict[str, Any]:
    """Several products by id in one BatchGetItem (at most 100): {product_id: Product}.
    Unknown ids are simply absent. `levels_of`: as with_buckets."""
    ids = list(dict.fromkeys(check_id("Product", pid) for pid in product_ids))
    if len(ids) > BATCH_GET_SIZE:
        raise ValueError(f"at most {BATCH_GET_SIZE} products at once")
    items = batch_get([keys.product_key(pid) for pid in ids], consistent=consistent)
    products = with_buckets([Product.from_item(i) for i in items], consistent=consistent, levels_of=levels_of)
    return {p.product_id: p for p in products}


# --- product lists (patterns 6 to 9) ----------------------------------------------------

def products_by_brand(
    *, brand_id: str, category_id: str | None = None, sort: str | None = None, after: str | None = None,
    limit: int | None = None
) -> Page[Any]:
    """Patterns 6 and 7: a brand's products, optionally in one category (GSI1), in the seed's
    order or `sort`ed (one Query on a sort index either way)."""
    check_id("Brand", brand_id)
    if category_id is not None:
        check_id("Category", category_id)
    if check_sort(sort):
        key_range = (
            _sorted_range("pair", keys.pair_pk(brand_id, category_id), sort)
            if category_id is not None
            else _sorted_range("brand", keys.brand_gsi_pk(brand_id), sort)
        )
        return query_page(key_range, size=page_size(limit), after=after, build=Product.from_item)
    key_range = KeyRange(
        index=keys.GSI1,
        partition=keys.brand_gsi_pk(brand_id),
        prefix=keys.category_in_brand_prefix(category_id) if category_id is not None else None,
    )
    return query_page(key_range, size=page_size(limit), after=after, build=Product.from_item)


def products_by_category(
    *, category_id: str, brand_id: str | None = None, sort: str | None = None, after: str | None = None,
    limit: int | None = None
) -> Page[Any]:
    """Patterns 8 and 9: a category's products, optionally of one brand (GSI2), in the seed's
    order or `sort`ed (the brand+category pair's sort index is the same as on the brand page)."""
    check_id("Category", category_id)
    if brand_id is not None:
        check_id("Brand", brand_id)
    if check_sort(sort):
        key_range = (
            _sorted_range("pair", keys.pair_pk(brand_id, category_id), sort)
            if brand_id is not None
            else _sorted_range("category", keys.category_gsi_pk(category_id), sort)
        )
        return query_page(key_range, size=page_size(limit), after=after, build=Product.from_item)
    key_range = KeyRange(
        index=keys.GSI2,
        partition=keys.category_gsi_pk(category_id),
        prefix=keys.brand_in_category_prefix(brand_id) if brand_id is not None else None,
    )
    return query_page(key_range, size=page_size(limit), after=after, build=Product.from_item)



# --- search by name ---------------------------------------------------------------------

# A search whose words are not all answered by the one term Queried (several words, or a word
# longer than text.MAX_TERM) checks the names it reads and may need more Queries to fill a page:
# at most this many, each reading up to FILTER_READ_FACTOR pages' worth of term items.
MAX_SEARCH_REQUESTS = 4
FILTER_READ_FACTOR = 4


def search_words(query: str) -> tuple[Any, Any]:
    """(words, term): the query's words and the term a search Queries (None: too short to search)."""
    words = text.query_words(query or "")
    return words, text.lookup_term(words)


def products_search(
    *, query: str, sort: str | None = None, after: str | None = None, limit: int | None = None, levels: bool = True
) -> Page[Product]:
    """Products whose name has every word of `query` as a word or a word's start (accents and
    case ignored). One Query on TERM#<term> (the longest word) in name or price order; when other
    words must be checked too, the names read are checked and up to MAX_SEARCH_REQUESTS Queries
    fill a page. `Page.total` is the number of matches when known (a one-word search: the term's
    count item, read by the same Query; otherwise only when everything was read). The page's stock
    levels, which term items do not carry, come with one BatchGetItem (products_stock_levels), so
    results show the same stock badges as every other list."""
    words, term = search_words(query)
    if term is None:
        raise InvalidInput(f"Type at least {text.MIN_TERM} letters or digits to search.")
    check_sort(sort)
    size = page_size(limit)
    partition = keys.term_pk(term)
    if sort in (None, "name"):
        key_range = KeyRange(partition=partition)
    else:
        key_range = KeyRange(index=keys.BY_PRICE["brand"], partition=partition, forward=sort == "price")
    filtering = any(w != term for w in words)
    start = key_range.start_key(after) if after is not None else None
    found: list[dict[str, Any]] = []
    total, exhausted, resume = None, False, None
    for request in range(MAX_SEARCH_REQUESTS if filtering else 1):
        params = key_range.params(limit=(size + 1) * FILTER_READ_FACTOR if filtering else size + 2)
        if start is not None:
            params["ExclusiveStartKey"] = serialize(start)
        response = read_query(params)
        for item in (deserialize(i) for i in response["Items"]):
            if item.get("type") == "TERM_COUNT":
                if request == 0 and after is None and not found and total is None:
                    total = int(item.get("count", 0))
                continue
            if not filtering or text.matches(words, item.get("name", "")):
                found.append(item)
                if len(found) > size:
                    break
            resume = item
        if len(found) > size:
            break
        last = response.get("LastEvaluatedKey")
        if last is None:
            exhausted = True
            break
        start = deserialize(last)
    more = len(found) > size
    found = found[:size]
    next_key = found[-1] if more else (None if exhausted else resume)
    if filtering or total is None:  # several words, or a term no product has (no count item)
        total = len(found) if exhausted and after is None else None
    page = Page(
        items=[Product.from_item(i) for i in found],
        next_cursor=key_range.encode(next_key) if next_key else None,
        total=total,
    )
    return with_stock_levels(page) if levels else page  # `levels`: False for lists that show no stock
