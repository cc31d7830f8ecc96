"""The demo catalog's brands, categories and product lines (the data generate.py expands into
products): one row a product line, with its variant axes and colour palette."""
from decimal import Decimal

# Ids "1".."3" are fixed by the data model. Brand "10" and category "10" exist on purpose:
# they share a prefix with "1" and so exercise the '#'-terminated key prefixes.
BRANDS = ["Microsoft", "Google", "Tesla", "Apple", "Samsung", "Sony", "Bose", "Garmin", "Canon",
          "Yamaha", "Trek", "KitchenAid", "Nintendo", "Lenovo", "Nikon", "Sea Ray", "Anker", "Polestar"]
CATEGORIES = ["Cars", "Boats", "Phones", "Laptops", "Headphones", "Watches", "Tablets", "Cameras",
              "Bikes", "Chargers", "Kitchen", "Gaming"]

PALETTES = {  # default colours per category; a line may bring its own palette
    "Cars": ["Pearl White", "Stealth Grey", "Deep Blue Metallic", "Ultra Red", "Solid Black"],
    "Boats": ["Arctic White", "Ice Blue", "Graphite", "Black Cherry"],
    "Phones": ["Midnight Black", "Glacier White", "Sage Green", "Cobalt Violet"],
    "Laptops": ["Platinum", "Graphite", "Silver"],
    "Headphones": ["Black", "White Smoke", "Midnight Blue", "Sandstone"],
    "Watches": ["Black", "Silver", "Slate Gray", "Whitestone"],
    "Tablets": ["Silver", "Space Gray", "Blue"],
    "Bikes": ["Matte Black", "Crimson", "Alpine Blue", "Lithium Grey"],
    "Kitchen": ["Empire Red", "Almond Cream", "Contour Silver", "Onyx Black", "Pistachio", "Ice Blue"],
    "Gaming": ["Carbon Black", "Robot White", "Shock Blue", "Pulse Red"],
    "Chargers": ["Black", "White"],
    "Cameras": ["Black", "Silver"],
}
COLOURS_PER_LINE = {"Cars": 2, "Boats": 2, "Phones": 2, "Laptops": 2, "Headphones": 3,
                    "Watches": 3, "Tablets": 2, "Bikes": 1, "Kitchen": 3}
TESLA = ["Pearl White", "Stealth Grey", "Deep Blue Metallic", "Ultra Red", "Solid Black", "Quicksilver"]
POLESTAR = ["Snow", "Space", "Thunder", "Magnesium", "Jupiter", "Midnight"]
SAMSUNG = ["Onyx Black", "Marble Grey", "Cobalt Violet", "Amber Yellow", "Titanium Gray", "Jade Green"]
IPHONE = ["Black", "Blue", "Green", "Yellow", "Pink"]
IPHONE_PRO = ["Natural Titanium", "Blue Titanium", "White Titanium", "Black Titanium"]
SURFACE = ["Platinum", "Black", "Sapphire", "Dune"]
MACBOOK_AIR = ["Midnight", "Starlight", "Space Gray", "Silver"]


# Variant axes: each option is (label for the name, price delta, attributes it sets).
def storage(*options):
    return [(f"{gb // 1024}TB" if gb >= 1024 else f"{gb}GB", delta, {"storage_gb": gb})
            for gb, delta in options]


def config(*options):
    return [(f"{ram}GB {ssd}", delta, {"ram_gb": ram, "storage_gb": 1024 if ssd == "1TB" else int(ssd[:-2])})
            for ram, ssd, delta in options]


def trims(*options):
    return [(label, delta, {"drive": drive, "range_km": km, "top_speed_kmh": top})
            for label, delta, drive, km, top in options]


def engines(*options):
    return [(label, delta, {"engine_hp": hp}) for label, delta, hp in options]


def sizes(small, large):
    return [(f"{small}mm", 0, {"case_mm": small}), (f"{large}mm", 30, {"case_mm": large})]


def kit(delta):
    return [("Body", 0, {"kit_lens": False}), ("Lens Kit", delta, {"kit_lens": True})]


AIR = [config((8, "256GB", 0), (16, "512GB", 400))]
DEFAULT_AXES = {
    "Phones": [storage((128, 0), (256, 100), (512, 300))],
    "Laptops": [config((16, "512GB", 0), (32, "1TB", 600))],
    "Tablets": [storage((128, 0), (256, 100))],
    "Cameras": [kit(400)],
    "Bikes": [[(f"Size {s}", 0, {"frame_size": s}) for s in ("S", "M", "L")]],
}


def table(category, columns, *rows):
    """One product line per row: (brand, model, base price, *values for columns[, options]).
    A None value leaves that attribute out; options may set colours, axes and palette."""
    for brand, model, price, *values in rows:
        opts = values.pop() if len(values) > len(columns) else {}
        attrs = {k: v for k, v in zip(columns, values, strict=True) if v is not None}
        yield {"brand": brand, "category": category, "model": model, "price": Decimal(str(price)), "attrs": attrs,
               "axes": opts.get("axes", DEFAULT_AXES.get(category, [])),
               "colours": opts.get("colours", COLOURS_PER_LINE.get(category, 0)),
               "palette": opts.get("palette", PALETTES[category])}


OVER, IN, FF, APSC = "over-ear", "in-ear", "Full frame", "APS-C"
LINES = [
    *table("Cars", ("seats",),  # trims: label, price delta, drive, range km, top speed km/h
           ("Tesla", "Model 3", 39990, 5, dict(palette=TESLA, axes=[trims(
               ("RWD", 0, "RWD", 513, 201), ("Long Range AWD", 7000, "AWD", 629, 201),
               ("Performance", 13000, "AWD", 528, 262))])),
           ("Tesla", "Model Y", 44990, 5, dict(palette=TESLA, axes=[trims(
               ("RWD", 0, "RWD", 455, 217), ("Long Range AWD", 5000, "AWD", 533, 217),
               ("Performance", 10000, "AWD", 514, 250))])),
           ("Tesla", "Model S", 74990, 5, dict(palette=TESLA, axes=[trims(
               ("Dual Motor AWD", 0, "AWD", 634, 250), ("Plaid", 15000, "AWD", 600, 322))])),
           ("Tesla", "Model X", 79990, 7, dict(palette=TESLA, axes=[trims(
               ("Dual Motor AWD", 0, "AWD", 576, 250), ("Plaid", 15000, "AWD", 543, 262))])),
           ("Tesla", "Cybertruck", 79990, 5, dict(colours=1, palette=["Stainless Steel"], axes=[trims(
               ("Dual Motor AWD", 0, "AWD", 547, 180), ("Cyberbeast", 20000, "AWD", 515, 209))])),
           ("Polestar", "Polestar 2", 49900, 5, dict(palette=POLESTAR, axes=[trims(
               ("Long Range Single Motor", 0, "RWD", 654, 205), ("Long Range Dual Motor", 5000, "AWD", 596, 205),
               ("Performance Pack", 11000, "AWD", 560, 205))])),
           ("Polestar", "Polestar 3", 73400, 5, dict(palette=POLESTAR, axes=[trims(
               ("Long Range Dual Motor", 0, "AWD", 610, 210), ("Performance Pack", 6500, "AWD", 560, 210))])),
           ("Polestar", "Polestar 4", 59900, 5, dict(palette=POLESTAR, axes=[trims(
               ("Long Range Single Motor", 0, "RWD", 620, 200), ("Long Range Dual Motor", 6000, "AWD", 590, 200))]))),
    *table("Chargers", ("power_w", "connector", "cable_m", "ports", "capacity_mah", "color"),
           ("Tesla", "Wall Connector", 475, 11500, "NACS", 7.3, None, None, None),
           ("Tesla", "Universal Wall Connector", 595, 11500, "NACS and J1772", 7.3, None, None, None),
           ("Tesla", "Mobile Connector", 250, 7700, "NACS", 6.1, None, None, None),
           ("Tesla", "CCS Combo 1 Adapter", 250, 250000, "CCS1 to NACS", None, None, None, None),
           ("Tesla", "J1772 Adapter", 50, 19200, "J1772 to NACS", None, None, None, None),
           ("Anker", "Nano 65W Charger", 45.99, 65, None, None, 3, None, None, dict(colours=2)),
           ("Anker", "Prime 100W GaN Charger", 84.99, 100, None, None, 3, None, None, dict(colours=2)),
           ("Anker", "737 Power Bank 24000mAh", 109.99, 140, None, None, 3, 24000, None, dict(colours=2)),
           ("Anker", "MagGo 3-in-1 Wireless Charging Station", 109.99, 15, None, None, 3, None, None, dict(colours=2)),
           ("Anker", "PowerCore 10000 Slim", 21.99, 22.5, None, None, 2, 10000, None, dict(colours=2)),
           ("Apple", "20W USB-C Power Adapter", 19, 20, "USB-C", None, None, None, "White"),
           ("Apple", "MagSafe Charger", 39, 25, "MagSafe", None, None, None, None,
            dict(axes=[[("1 m", 0, {"cable_m": 1.0}), ("2 m", 10, {"cable_m": 2.0})]])),
           ("Google", "30W USB-C Charger", 25, 30, "USB-C", None, None, None, "White"),
           ("Google", "Pixel Stand 2", 79, 23, "Qi wireless", None, None, None, "Porcelain"),
           ("Samsung", "45W Power Adapter", 49.99, 45, "USB-C", None, None, None, None, dict(colours=2)),
           ("Samsung", "25W Power Adapter", 19.99, 25, "USB-C", None, None, None, None, dict(colours=2))),
    *table("Boats", ("length_m", "passengers"),  # engines: label, price delta, hp
           ("Sea Ray", "SPX 190", 38500, 5.87, 8, dict(axes=[engines(
               ("Mercury 150 hp", 0, 150), ("Mercury 200 hp", 6500, 200))])),
           ("Sea Ray", "SDX 270 Outboard", 129000, 8.5, 13, dict(axes=[engines(
               ("Mercury 350 hp", 0, 350), ("Mercury 400 hp", 9000, 400))])),
           ("Sea Ray", "SLX 260", 142000, 8.0, 14, dict(axes=[engines(
               ("Mercury 350 hp", 0, 350), ("Twin Mercury 300 hp", 38000, 600))])),
           ("Sea Ray", "Sundancer 320", 329000, 10.2, 12, dict(axes=[engines(
               ("Twin Mercury 350 hp", 0, 700), ("Twin Mercury 400 hp", 24000, 800))])),
           ("Yamaha", "WaveRunner FX Cruiser", 17999, 3.58, 3, dict(axes=[engines(
               ("HO", 0, 180), ("SVHO", 2600, 250))])),
           ("Yamaha", "WaveRunner VX Cruiser", 13299, 3.37, 3, dict(axes=[engines(
               ("Standard", 0, 125), ("HO", 1700, 180))])),
           ("Yamaha", "195S", 37999, 5.94, 8, dict(axes=[engines(("1.8L", 0, 250))])),
           ("Yamaha", "255XD", 91999, 7.77, 12, dict(axes=[engines(("Twin 1.8L HO", 0, 500))]))),
    *table("Phones", ("screen_in", "5g", "battery_mah"),
           ("Samsung", "Galaxy S24", 799.99, 6.2, True, 4000, dict(palette=SAMSUNG)),
           ("Samsung", "Galaxy S24+", 999.99, 6.7, True, 4900, dict(palette=SAMSUNG)),
           ("Samsung", "Galaxy S24 Ultra", 1299.99, 6.8, True, 5000, dict(palette=SAMSUNG)),
           ("Samsung", "Galaxy Z Flip6", 1099.99, 6.7, True, 4000, dict(palette=SAMSUNG)),
           ("Samsung", "Galaxy Z Fold6", 1899.99, 7.6, True, 4400, dict(palette=SAMSUNG)),
           ("Samsung", "Galaxy A55", 449.99, 6.6, True, 5000,
            dict(palette=SAMSUNG, axes=[storage((128, 0), (256, 70))])),
           ("Samsung", "Galaxy A15", 199.99, 6.5, False, 5000, dict(palette=SAMSUNG, axes=[storage((128, 0))])),
           ("Apple", "iPhone 15", 799, 6.1, True, 3349, dict(palette=IPHONE)),
           ("Apple", "iPhone 15 Plus", 899, 6.7, True, 4383, dict(palette=IPHONE)),
           ("Apple", "iPhone 15 Pro", 999, 6.1, True, 3274, dict(palette=IPHONE_PRO)),
           ("Apple", "iPhone 15 Pro Max", 1199, 6.7, True, 4422,
            dict(palette=IPHONE_PRO, axes=[storage((256, 0), (512, 200), (1024, 400))])),
           ("Google", "Pixel 8", 699, 6.2, True, 4575,
            dict(palette=["Obsidian", "Hazel", "Rose"], axes=[storage((128, 0), (256, 60))])),
           ("Google", "Pixel 8 Pro", 999, 6.7, True, 5050, dict(palette=["Obsidian", "Porcelain", "Bay"])),
           ("Google", "Pixel 8a", 499, 6.1, True, 4492,
            dict(palette=["Obsidian", "Porcelain", "Bay", "Aloe"], axes=[storage((128, 0), (256, 60))])),
           ("Sony", "Xperia 1 VI", 1399.99, 6.5, True, 5000,
            dict(palette=["Black", "Platinum Silver", "Khaki Green", "Scarlet"], axes=[storage((256, 0), (512, 150))])),
           ("Sony", "Xperia 10 VI", 449.99, 6.1, True, 5000,
            dict(colours=3, palette=["Black", "White", "Blue"], axes=[storage((128, 0))]))),
    *table("Laptops", ("screen_in", "cpu", "weight_kg"),
           ("Microsoft", "Surface Laptop 7 13.8-inch", 999.99, 13.8, "Snapdragon X Plus", 1.34, dict(palette=SURFACE)),
           ("Microsoft", "Surface Laptop 7 15-inch", 1299.99, 15.0, "Snapdragon X Elite", 1.66, dict(palette=SURFACE)),
           ("Microsoft", "Surface Laptop Go 3", 799.99, 12.4, "Intel Core i5-1235U", 1.13,
            dict(palette=["Platinum", "Sage", "Ice Blue", "Sandstone"],
                 axes=[config((8, "256GB", 0), (16, "256GB", 200))])),
           ("Apple", "MacBook Air 13-inch M3", 1099, 13.6, "Apple M3", 1.24, dict(palette=MACBOOK_AIR, axes=AIR)),
           ("Apple", "MacBook Air 15-inch M3", 1299, 15.3, "Apple M3", 1.51, dict(palette=MACBOOK_AIR, axes=AIR)),
           ("Apple", "MacBook Pro 14-inch M3 Pro", 1999, 14.2, "Apple M3 Pro", 1.61,
            dict(palette=["Space Black", "Silver"], axes=[config((18, "512GB", 0), (36, "1TB", 800))])),
           ("Apple", "MacBook Pro 16-inch M3 Max", 3499, 16.2, "Apple M3 Max", 2.16,
            dict(palette=["Space Black", "Silver"], axes=[config((36, "1TB", 0), (48, "1TB", 500))])),
           ("Lenovo", "ThinkPad X1 Carbon Gen 12", 1899, 14.0, "Intel Core Ultra 7 155U", 1.09,
            dict(colours=1, palette=["Black"])),
           ("Lenovo", "Yoga Slim 7x", 1199.99, 14.5, "Snapdragon X Elite", 1.28,
            dict(palette=["Cosmic Blue", "Luna Grey"])),
           ("Lenovo", "IdeaPad Slim 5", 699.99, 16.0, "AMD Ryzen 7 8845HS", 1.89,
            dict(palette=["Cloud Grey", "Abyss Blue"], axes=[config((8, "512GB", 0), (16, "512GB", 100))])),
           ("Lenovo", "Legion Pro 5", 1599.99, 16.0, "Intel Core i9-14900HX", 2.5,
            dict(colours=1, palette=["Onyx Grey"]))),
    *table("Headphones", ("type", "anc", "battery_h", "wireless"),
           ("Bose", "QuietComfort Ultra Headphones", 429, OVER, True, 24, True),
           ("Bose", "QuietComfort Ultra Earbuds", 299, IN, True, 6, True),
           ("Bose", "QuietComfort Headphones", 349, OVER, True, 24, True),
           ("Bose", "Ultra Open Earbuds", 299, "open-ear", False, 7.5, True),
           ("Sony", "WH-1000XM5", 399.99, OVER, True, 30, True),
           ("Sony", "WF-1000XM5", 299.99, IN, True, 8, True),
           ("Sony", "WH-CH720N", 149.99, OVER, True, 35, True),
           ("Microsoft", "Surface Headphones 2", 249.99, OVER, True, 18.5, True,
            dict(colours=2, palette=["Light Gray", "Matte Black"])),
           ("Google", "Pixel Buds Pro 2", 229, IN, True, 8, True,
            dict(palette=["Hazel", "Porcelain", "Peony", "Wintergreen"])),
           ("Google", "Pixel Buds A-Series", 99, IN, False, 5, True,
            dict(palette=["Clearly White", "Charcoal", "Olive"])),
           ("Apple", "AirPods Pro 2", 249, IN, True, 6, True, dict(colours=1, palette=["White"])),
           ("Apple", "AirPods 4", 129, IN, False, 5, True, dict(colours=1, palette=["White"])),
           ("Apple", "AirPods Max", 549, OVER, True, 20, True,
            dict(palette=["Midnight", "Starlight", "Blue", "Purple", "Orange"])),
           ("Samsung", "Galaxy Buds2 Pro", 229.99, IN, True, 5, True,
            dict(colours=2, palette=["Graphite", "White", "Bora Purple"])),
           ("Samsung", "Galaxy Buds FE", 99.99, IN, True, 6, True, dict(colours=2, palette=["Graphite", "White"])),
           ("Yamaha", "YH-E700B", 349.95, OVER, True, 32, True, dict(colours=2)),
           ("Yamaha", "YH-L700A", 499.95, OVER, True, 34, True, dict(colours=2)),
           ("Yamaha", "TW-E3C", 79.95, IN, False, 6, True, dict(colours=2)),
           ("Anker", "Soundcore Space Q45", 149.99, OVER, True, 50, True, dict(colours=2)),
           ("Anker", "Soundcore Liberty 4 NC", 99.99, IN, True, 10, True, dict(colours=2)),
           ("Anker", "Soundcore P40i", 59.99, IN, True, 12, True, dict(colours=2))),
    *table("Watches", ("case_mm", "gps", "battery_days", "water_resistance_m"),
           ("Garmin", "fenix 7 Pro Solar", 799.99, 47, True, 18, 100),
           ("Garmin", "Forerunner 265", 449.99, 46, True, 13, 50),
           ("Garmin", "Venu 3", 449.99, 45, True, 14, 50),
           ("Garmin", "Instinct 2 Solar", 399.99, 45, True, 28, 100),
           ("Garmin", "epix Pro", 899.99, 47, True, 16, 100),
           ("Apple", "Apple Watch Series 9", 399, None, True, 1.5, 50, dict(
               colours=2, palette=["Midnight", "Starlight", "Silver", "Pink"], axes=[sizes(41, 45)])),
           ("Apple", "Apple Watch Ultra 2", 799, 49, True, 3, 100, dict(
               colours=2, palette=["Natural Titanium", "Black Titanium"])),
           ("Apple", "Apple Watch SE", 249, None, True, 1.5, 50, dict(
               colours=2, palette=["Midnight", "Starlight", "Silver"], axes=[sizes(40, 44)])),
           ("Google", "Pixel Watch 2", 349.99, 41, True, 1, 50, dict(
               palette=["Polished Silver", "Matte Black", "Champagne Gold"])),
           ("Samsung", "Galaxy Watch6", 299.99, None, True, 2, 50, dict(
               colours=2, palette=["Graphite", "Silver", "Gold"], axes=[sizes(40, 44)])),
           ("Samsung", "Galaxy Watch6 Classic", 399.99, None, True, 2, 50, dict(
               colours=2, palette=["Black", "Silver"], axes=[sizes(43, 47)]))),
    *table("Tablets", ("screen_in", "chip", "stylus_support"),
           ("Apple", "iPad", 349, 10.9, "A14 Bionic", True,
            dict(palette=["Blue", "Pink", "Yellow", "Silver"], axes=[storage((64, 0), (256, 150))])),
           ("Apple", "iPad Air 11-inch", 599, 11.0, "Apple M2", True,
            dict(palette=["Space Gray", "Blue", "Purple", "Starlight"])),
           ("Apple", "iPad Pro 11-inch", 999, 11.0, "Apple M4", True,
            dict(palette=["Space Black", "Silver"], axes=[storage((256, 0), (512, 200))])),
           ("Apple", "iPad mini", 499, 8.3, "A15 Bionic", True,
            dict(palette=["Space Gray", "Pink", "Purple", "Starlight"])),
           ("Microsoft", "Surface Pro 11", 999.99, 13.0, "Snapdragon X Plus", True,
            dict(palette=SURFACE, axes=[storage((256, 0), (512, 200))])),
           ("Microsoft", "Surface Go 4", 579.99, 10.5, "Intel N200", True,
            dict(colours=1, palette=["Platinum"], axes=[storage((64, 0), (128, 100))])),
           ("Google", "Pixel Tablet", 499, 10.95, "Google Tensor G2", True, dict(palette=["Hazel", "Porcelain"])),
           ("Samsung", "Galaxy Tab S9", 799.99, 11.0, "Snapdragon 8 Gen 2", True, dict(palette=["Graphite", "Beige"])),
           ("Samsung", "Galaxy Tab S9 FE", 449.99, 10.9, "Exynos 1380", True,
            dict(palette=["Gray", "Silver", "Mint", "Lavender"])),
           ("Lenovo", "Tab P12", 399.99, 12.7, "MediaTek Dimensity 7050", True,
            dict(colours=1, palette=["Storm Grey"])),
           ("Lenovo", "Tab M11", 229.99, 11.0, "MediaTek Helio G88", False,
            dict(palette=["Luna Grey", "Seafoam Green"], axes=[storage((64, 0), (128, 40))]))),
    *table("Cameras", ("megapixels", "sensor", "video", "weight_g"),
           ("Canon", "EOS R5", 3899, 45, FF, "8K", 738, dict(axes=[kit(1100)])),
           ("Canon", "EOS R6 Mark II", 2499, 24.2, FF, "4K60", 670, dict(axes=[kit(1100)])),
           ("Canon", "EOS R8", 1499, 24.2, FF, "4K60", 461),
           ("Canon", "EOS R10", 979, 24.2, APSC, "4K60", 429, dict(axes=[kit(120)])),
           ("Canon", "EOS R50", 679, 24.2, APSC, "4K30", 375, dict(axes=[kit(120)])),
           ("Canon", "PowerShot G7 X Mark III", 749, 20.1, "1-inch", "4K30", 304,
            dict(colours=2, axes=[[("", 0, {"fixed_lens": True})]])),
           ("Nikon", "Z8", 3999.95, 45.7, FF, "8K", 910, dict(axes=[kit(1000)])),
           ("Nikon", "Z6 III", 2499.95, 24.5, FF, "6K", 760, dict(axes=[kit(600)])),
           ("Nikon", "Z5", 999.95, 24.3, FF, "4K30", 675),
           ("Nikon", "Z fc", 959.95, 20.9, APSC, "4K30", 445, dict(axes=[kit(150)])),
           ("Nikon", "Z50 II", 859.95, 20.9, APSC, "4K60", 550, dict(axes=[kit(150)])),
           ("Sony", "Alpha 7 IV", 2499.99, 33, FF, "4K60", 658, dict(axes=[kit(300)])),
           ("Sony", "Alpha 7C II", 2199.99, 33, FF, "4K60", 514, dict(axes=[kit(300)])),
           ("Sony", "ZV-E10 II", 999.99, 26, APSC, "4K60", 377, dict(axes=[kit(100)]))),
    *table("Bikes", ("gears", "electric", "weight_kg"),
           ("Trek", "Domane SL 5", 3299.99, 22, False, 9.4),
           ("Trek", "Marlin 7", 1099.99, 10, False, 13.8),
           ("Trek", "FX 3 Disc", 1049.99, 10, False, 10.9),
           ("Trek", "Fuel EX 8", 4299.99, 12, False, 14.5),
           ("Trek", "Allant+ 7", 3999.99, 10, True, 23.1),
           ("Trek", "Verve+ 2", 2799.99, 9, True, 22.0),
           ("Yamaha", "Wabash RT", 3999, 11, True, 22.6),
           ("Yamaha", "CrossCore RC", 2599, 9, True, 21.2),
           ("Yamaha", "Moro 07", 4399, 12, True, 24.5)),
    *table("Kitchen", ("capacity_l", "power_w", "dishwasher_safe"),
           ("KitchenAid", "Artisan Tilt-Head Stand Mixer", 449.99, 4.8, 300, True),
           ("KitchenAid", "Artisan Mini Stand Mixer", 379.99, 3.3, 250, True),
           ("KitchenAid", "Pro 600 Bowl-Lift Stand Mixer", 549.99, 5.7, 575, True),
           ("KitchenAid", "K400 Blender", 199.99, 1.4, 1200, True),
           ("KitchenAid", "13-Cup Food Processor", 249.99, 3.1, 500, True),
           ("KitchenAid", "Electric Kettle", 99.99, 1.7, 2400, False),
           ("KitchenAid", "Burr Coffee Grinder", 199.99, 0.34, 150, False)),
    *table("Gaming", ("kind", "storage_gb", "max_resolution", "wireless", "color"),
           ("Microsoft", "Xbox Series X", 499.99, "console", 1024, "4K", None, "Carbon Black"),
           ("Microsoft", "Xbox Series X Digital Edition", 449.99, "console", 1024, "4K", None, "Robot White"),
           ("Microsoft", "Xbox Series S", 299.99, "console", None, "1440p", None, "Robot White",
            dict(axes=[storage((512, 0), (1024, 50))])),
           ("Microsoft", "Xbox Wireless Controller", 59.99, "controller", None, None, True, None, dict(colours=3)),
           ("Microsoft", "Xbox Elite Wireless Controller Series 2", 179.99, "controller", None, None, True, "Black"),
           ("Nintendo", "Switch OLED Model", 349.99, "console", 64, "1080p", None, None,
            dict(colours=2, palette=["White", "Neon Red and Neon Blue"])),
           ("Nintendo", "Switch Lite", 199.99, "console", 32, "720p", None, None,
            dict(colours=3, palette=["Coral", "Turquoise", "Yellow", "Gray", "Blue"])),
           ("Nintendo", "Switch Pro Controller", 69.99, "controller", None, None, True, "Black"),
           ("Nintendo", "Joy-Con Pair", 79.99, "controller", None, None, True, None, dict(colours=3, palette=[
               "Neon Red and Neon Blue", "Pastel Purple and Pastel Green", "Gray", "Neon Yellow"])),
           ("Sony", "PlayStation 5 Slim", 499.99, "console", 1024, "4K", None, None, dict(axes=[[
               ("Disc Edition", 0, {"disc_drive": True}), ("Digital Edition", -50, {"disc_drive": False})]])),
           ("Sony", "DualSense Wireless Controller", 69.99, "controller", None, None, True, None, dict(
               colours=3, palette=["White", "Midnight Black", "Cosmic Red", "Volcanic Red", "Starlight Blue"])),
           ("Sony", "PlayStation VR2", 549.99, "VR headset", None, "2000x2040 per eye", False, None),
           ("Sony", "PlayStation Portal", 199.99, "remote player", None, "1080p", True, None)),
    *table("Gaming", ("kind", "players", "format"),
           ("Nintendo", "Mario Kart 8 Deluxe", 59.99, "game", 4, "Physical"),
           ("Nintendo", "The Legend of Zelda: Tears of the Kingdom", 69.99, "game", 1, "Physical"),
           ("Nintendo", "Super Mario Bros. Wonder", 59.99, "game", 4, "Physical")),
]

# Hand-written products whose text needs HTML escaping (quote, ampersand, apostrophe).
SPECIALS = [
    {"brand": "Trek", "category": "Bikes", "price": "349.99",
     "name": "Precaliber 16 \"Tom & Jerry\" Kids' Bike",
     "description": "A 16-inch kids' bike with training wheels & a coaster brake. "
                    "The \"Tom & Jerry\" paint job is a playground favourite.",
     "attributes": {"frame_size": "16 in", "gears": 1, "electric": False, "weight_kg": 8.9, "color": "Cartoon Blue"}},
    {"brand": "KitchenAid", "category": "Kitchen", "price": "529.99",
     "name": "Artisan \"Chef's Choice\" Mixer & Bowl Set",
     "description": "Our tilt-head stand mixer bundled with a ceramic bowl & pouring shield. "
                    "It's the \"one mixer\" every home baker asks for.",
     "attributes": {"capacity_l": 4.8, "power_w": 300, "dishwasher_safe": True, "color": "Empire Red"}},
    {"brand": "Nintendo", "category": "Gaming", "price": "399.99",
     "name": "Switch OLED \"Mario & Friends\" Players' Bundle",
     "description": "The Switch OLED console, a pair of Joy-Con & a download code for Mario Kart 8 Deluxe. "
                    "It's \"game night\" in a box.",
     "attributes": {"kind": "console bundle", "storage_gb": 64, "max_resolution": "1080p", "wireless": True}},
]
