"""Generate the Fromatoz demo catalog: demo_catalog.json, written beside this file.

    python catalog/demo/generate.py

Standard library only. A fixed seed makes every run byte-identical, so the JSON can be
committed and regenerated without noise in the diff.
"""
import itertools
import json
import random
from pathlib import Path

if __package__:
    from .lines import BRANDS, CATEGORIES, LINES, SPECIALS
else:  # run as a script: python catalog/demo/generate.py
    from lines import BRANDS, CATEGORIES, LINES, SPECIALS

SEED = 20210301
OUTPUT = Path(__file__).with_name("demo_catalog.json")


def kw(watts):
    return f"{watts / 1000:g} kW" if watts >= 1000 else f"{watts:g} W"


def describe(category, n, a):
    """One or two plain sentences from the model name `n` and the variant's attributes `a`."""
    if category == "Cars":
        drive = "all-wheel drive" if a["drive"] == "AWD" else "rear-wheel drive"
        return (f"The {n} seats {a['seats']} and offers an estimated {a['range_km']} km of range with {drive}. "
                f"Top speed is {a['top_speed_kmh']} km/h, finished in {a['color']}.")
    if category == "Boats":
        return (f"The {n} is a {a['length_m']} m boat with room for {a['passengers']} passengers. "
                f"{a['engine_hp']} hp for relaxed cruising or watersports.")
    if category == "Phones":
        return (f"The {n} is a {a['screen_in']}-inch {'5G ' if a['5g'] else ''}smartphone with {a['storage_gb']} GB "
                f"of storage. Its {a['battery_mah']} mAh battery easily lasts a full day.")
    if category == "Laptops":
        return (f"The {n} pairs a {a['screen_in']}-inch display with {a['cpu']}, {a['ram_gb']} GB of memory and "
                f"{a['storage_gb']} GB of SSD storage. Weighs just {a['weight_kg']} kg.")
    if category == "Headphones":
        sound = "active noise cancelling" if a["anc"] else "a natural, open sound"
        return f"Wireless {a['type']} headphones with {sound}. Up to {a['battery_h']} hours of listening per charge."
    if category == "Watches":
        return (f"GPS smartwatch with a {a['case_mm']} mm case and up to {a['battery_days']} days of battery life. "
                f"Water resistant to {a['water_resistance_m']} m.")
    if category == "Tablets":
        pen = " Works with a stylus for notes and sketches." if a["stylus_support"] else ""
        return f"The {n} has a {a['screen_in']}-inch display, {a['chip']} and {a['storage_gb']} GB of storage.{pen}"
    if category == "Cameras":
        lens = ("Compact body with a built-in zoom lens." if a.get("fixed_lens") else
                "Supplied with a standard zoom kit lens." if a["kit_lens"] else "Body only, lens sold separately.")
        return f"A {a['megapixels']} MP {a['sensor']} camera that records {a['video']} video. {lens}"
    if category == "Bikes":
        kind = "e-bike with pedal assist" if a["electric"] else "bike"
        return (f"The {n} {kind}: {a['gears']} gears, frame size {a['frame_size']}, {a['weight_kg']} kg. "
                "Assembled and safety-checked before delivery.")
    if category == "Kitchen":
        care = "Dishwasher-safe parts make cleanup easy." if a["dishwasher_safe"] else "Wipe clean with a damp cloth."
        return f"The {n} has a {a['capacity_l']} L capacity and is rated at {a['power_w']} W. {care}"
    if category == "Chargers":
        extra = f" with a {a['capacity_mah']} mAh battery" if "capacity_mah" in a else ""
        plug = f" over {a['connector']}" if "connector" in a else f" across {a['ports']} ports"
        return f"Delivers up to {kw(a['power_w'])}{plug}{extra}. Certified for safe, cool charging."
    if a["kind"] == "game":
        return f"{n} for Nintendo Switch, for up to {a['players']} players. {a['format']} edition in the original case."
    storage_text = f" with {a['storage_gb']} GB of storage" if "storage_gb" in a else ""
    return f"{n}: a {a['kind']}{storage_text}. Official product with full manufacturer warranty."


def expand(rng, spec):
    """Every variant of one product line: its axes crossed with a seeded pick of colours."""
    colours = rng.sample(spec["palette"], spec["colours"]) if spec["colours"] else [None]
    for *options, colour in itertools.product(*spec["axes"], colours):
        attrs = dict(spec["attrs"])
        price = spec["price"]
        for _, delta, extra in options:
            price += delta
            attrs.update(extra)
        if colour:
            attrs["color"] = colour
        name = " ".join([spec["model"]] + [label for label, _, _ in options if label] + ([colour] if colour else []))
        yield {"brand": spec["brand"], "category": spec["category"], "name": name, "price": f"{price:.2f}",
               "description": describe(spec["category"], spec["model"], attrs), "attributes": attrs}


def stock_levels(rng, count):
    """About 8% sold out, 10% low stock (1..4), the rest 5..250, in a seeded order."""
    sold_out, low = round(count * 0.08), round(count * 0.10)
    buckets = ["out"] * sold_out + ["low"] * low + ["ok"] * (count - sold_out - low)
    rng.shuffle(buckets)
    return [0 if b == "out" else rng.randint(1, 4) if b == "low" else rng.randint(5, 250) for b in buckets]


PICTURES = Path(__file__).resolve().parent.parent.parent / "static" / "img" / "demo"
PICTURE = (
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 160 120" width="160" height="120">\n'
    '<rect width="160" height="120" fill="{bg}"/>\n'
    '<circle cx="80" cy="50" r="28" fill="#ffffff" fill-opacity="0.85"/>\n'
    '<text x="80" y="60" font-family="sans-serif" font-size="26" font-weight="bold" fill="{bg}" '
    'text-anchor="middle">{initials}</text>\n'
    '<text x="80" y="104" font-family="sans-serif" font-size="15" fill="#ffffff" text-anchor="middle">{name}</text>\n'
    "</svg>\n"
)
PICTURE_COLOURS = ["#305f72", "#7a3b52", "#3c6e47", "#7c5a1e", "#54407a", "#216a6a",
                   "#82492a", "#46507c", "#63702c", "#6f2f6f", "#2c4c66", "#555b5e"]


def picture_path(category):
    return f"img/demo/{category.lower().replace(' ', '-')}.svg"


def write_pictures():
    """One picture a category (static/img/demo/<category>.svg): no CDN, no binary files."""
    PICTURES.mkdir(parents=True, exist_ok=True)
    for i, category in enumerate(CATEGORIES):
        svg = PICTURE.format(bg=PICTURE_COLOURS[i % len(PICTURE_COLOURS)], initials=category[:2], name=category)
        (PICTURES.parent.parent / picture_path(category)).write_text(svg, encoding="utf-8")


def main():
    rng = random.Random(SEED)
    write_pictures()
    brand_ids = {name: str(i) for i, name in enumerate(BRANDS, 1)}
    category_ids = {name: str(i) for i, name in enumerate(CATEGORIES, 1)}
    drafts = [p for spec in LINES for p in expand(rng, spec)] + [dict(s) for s in SPECIALS]
    rng.shuffle(drafts)
    products = [
        {"productId": str(i), "name": d["name"], "brandId": brand_ids[d["brand"]],
         "categoryId": category_ids[d["category"]], "price": d["price"], "stockLevel": stock,
         "description": d["description"], "attributes": d["attributes"],
         # Three products in four show their category's picture; the fourth its generated placeholder.
         **({"image": picture_path(d["category"])} if i % 4 else {})}
        for i, (d, stock) in enumerate(zip(drafts, stock_levels(rng, len(drafts))), 1)
    ]
    catalog = {
        "brands": [{"brandId": bid, "name": name} for name, bid in brand_ids.items()],
        "categories": [{"categoryId": cid, "name": name} for name, cid in category_ids.items()],
        "products": products,
    }
    with OUTPUT.open("w", encoding="utf-8") as fh:
        json.dump(catalog, fh, indent=1, ensure_ascii=False)
        fh.write("\n")
    print(f"wrote {len(products)} products, {len(BRANDS)} brands, {len(CATEGORIES)} categories to {OUTPUT}")


if __name__ == "__main__":
    main()
