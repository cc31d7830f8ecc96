"""Large catalogs, made in memory in the import file format, deterministic for a size: skewed brand and
category popularity, and the first FEATURED products brand 1 in category 1, so the measured pages have the
same shape (full pages with a "Load more") at every size."""

import random
from decimal import Decimal

BRANDS = 50
CATEGORIES = 20
# Enough for two full pages (24 each) and one more: page 2 of brand 1 · category 1 is full too.
FEATURED = 60
FEATURED_BRAND = "1"
FEATURED_CATEGORY = "1"

_WORDS = (
    "durable lightweight compact premium wireless ergonomic waterproof recycled aluminium "
    "titanium quiet fast efficient modular rugged elegant classic modern portable smart "
    "battery display sensor frame motor charger cable case strap lens speaker keyboard "
    "designed for everyday use with long warranty and easy repairs tested in the field "
    "all day comfort made to last crafted quality reliable performance great value"
).split()
_COLOURS = ["Black", "White", "Silver", "Graphite", "Midnight Blue", "Forest Green", "Crimson", "Sand"]
_MATERIALS = ["aluminium", "steel", "recycled plastic", "carbon fibre", "oak", "glass", "fabric"]


def _description(rng):
    target, words, length = rng.randint(150, 300), [], 0
    while length < target:
        words.append(rng.choice(_WORDS))
        length += len(words[-1]) + 1
    text = " ".join(words)[:target].rstrip()
    return text[0].upper() + text[1:] + "."


def _attributes(rng, i):
    attributes = {
        "colour": rng.choice(_COLOURS),
        "weight_kg": Decimal(rng.randint(50, 250_000)) / 100,
        "warranty_years": rng.choice([1, 2, 3, 5]),
        "model": f"FX-{i:06d}-{rng.randint(100, 999)}",
    }
    extra = [("material", lambda: rng.choice(_MATERIALS)), ("power_w", lambda: rng.randint(5, 3000)),
             ("waterproof", lambda: rng.random() < 0.5), ("width_cm", lambda: Decimal(rng.randint(10, 20_000)) / 10)]
    for name, value in extra[: rng.randint(0, len(extra))]:
        attributes[name] = value()
    return attributes


def _weights(n):
    """Zipf-like popularity: the first IDs are the big ones."""
    return [1 / (rank + 1) for rank in range(n)]


def make_catalog(products, *, seed=20240501, stock=100):
    """A catalog of `products` products, as the dict `importer.import_catalog` takes."""
    rng = random.Random(seed)
    brand_ids = [str(b) for b in range(1, BRANDS + 1)]
    category_ids = [str(c) for c in range(1, CATEGORIES + 1)]
    brand_weights, category_weights = _weights(BRANDS), _weights(CATEGORIES)
    items = []
    for i in range(1, products + 1):
        if i <= FEATURED:
            brand_id, category_id = FEATURED_BRAND, FEATURED_CATEGORY
        else:
            brand_id = rng.choices(brand_ids, brand_weights)[0]
            category_id = rng.choices(category_ids, category_weights)[0]
        items.append({
            "productId": str(i), "name": f"{rng.choice(_WORDS).capitalize()} {rng.choice(_WORDS)} {i}",
            "brandId": brand_id, "categoryId": category_id, "price": f"{rng.randint(99, 500_000) / 100:.2f}",
            "stockLevel": stock, "description": _description(rng), "attributes": _attributes(rng, i),
        })
    return {
        "brands": [{"brandId": b, "name": f"Brand {b}"} for b in brand_ids],
        "categories": [{"categoryId": c, "name": f"Category {c}"} for c in category_ids],
        "products": items,
    }
