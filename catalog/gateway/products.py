"""Catalog reads: brands, categories, one product, many products, product lists.

| # | access pattern                | function                                        | request                   |
|---|-------------------------------|-------------------------------------------------|---------------------------|
| 1 | all brands                    | brands_all()                                    | Query PK=BRANDS           |
| 2 | all categories                | categories_all()                                | Query PK=CATEGORIES       |
| 3 | product by id                 | product_get(product_id=)                        | GetItem P#<pid>/METADATA  |
| 6 | products by brand             | products_by_brand(brand_id=)                    | Query GSI1                |
| 7 | products by brand + category  | products_by_brand(brand_id=, category_id=)      | Query GSI1 begins_with    |
| 8 | products by category          | products_by_category(category_id=)              | Query GSI2                |
| 9 | products by category + brand  | products_by_category(category_id=, brand_id=)   | Query GSI2 begins_with    |
"""
from . import keys
from .client import BATCH_GET_SIZE, batch_get, client, deserialize, serialize, table_name, translate_errors
from .entities import Brand, Category, Product
from .errors import NotFound
from .pages import KeyRange, query_all, query_page
from .validate import check_id, page_size


def brands_all():
    """Pattern 1: every brand, by name."""
    items = query_all(KeyRange(partition=keys.BRANDS_PK))
    return sorted((Brand.from_item(i) for i in items), key=lambda b: (b.name.casefold(), b.brand_id))


def categories_all():
    """Pattern 2: every category, by name."""
    items = query_all(KeyRange(partition=keys.CATEGORIES_PK))
    return sorted((Category.from_item(i) for i in items), key=lambda c: (c.name.casefold(), c.category_id))


# --- one product (pattern 3) ------------------------------------------------------------

def product_get(*, product_id, consistent=False):
    """Pattern 3: the product with all its attributes. `consistent` reads the latest write."""
    check_id("Product", product_id)
    with translate_errors():
        response = client().get_item(
            TableName=table_name(), Key=serialize(keys.product_key(product_id)), ConsistentRead=consistent
        )
    if "Item" not in response:
        raise NotFound("Product", product_id)
    return Product.from_item(deserialize(response["Item"]))


def products_get_many(*, product_ids, consistent=False):
    """Several products by id in one BatchGetItem (at most 100): {product_id: Product}.
    Unknown ids are simply absent."""
    ids = list(dict.fromkeys(check_id("Product", pid) for pid in product_ids))
    if len(ids) > BATCH_GET_SIZE:
        raise ValueError(f"at most {BATCH_GET_SIZE} products at once")
    items = batch_get([keys.product_key(pid) for pid in ids], consistent=consistent)
    return {p.product_id: p for p in (Product.from_item(i) for i in items)}


# --- product lists (patterns 6 to 9) ----------------------------------------------------

def products_by_brand(*, brand_id, category_id=None, after=None, limit=None):
    """Patterns 6 and 7: a brand's products, optionally in one category (GSI1)."""
    check_id("Brand", brand_id)
    if category_id is not None:
        check_id("Category", category_id)
    key_range = KeyRange(
        index=keys.GSI1,
        partition=keys.brand_gsi_pk(brand_id),
        prefix=keys.category_in_brand_prefix(category_id) if category_id is not None else None,
    )
    return query_page(key_range, size=page_size(limit), after=after, build=Product.from_item)


def products_by_category(*, category_id, brand_id=None, after=None, limit=None):
    """Patterns 8 and 9: a category's products, optionally of one brand (GSI2)."""
    check_id("Category", category_id)
    if brand_id is not None:
        check_id("Brand", brand_id)
    key_range = KeyRange(
        index=keys.GSI2,
        partition=keys.category_gsi_pk(category_id),
        prefix=keys.brand_in_category_prefix(brand_id) if brand_id is not None else None,
    )
    return query_page(key_range, size=page_size(limit), after=after, build=Product.from_item)

