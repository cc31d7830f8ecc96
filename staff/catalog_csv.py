"""The catalog as CSV for staff: the export's columns and rows, and an uploaded file read into products,
each line checked by the catalog import's rules (gateway.check_product), every problem with its line number.

Columns: product_id, name, brand_id, category_id, price, published (yes/no), description, attributes (a JSON
object, {"seats": 5}), and on upload an optional stock_level (a new product's opening level; an existing
product's stock stays with the warehouse pages). An upload may leave out the columns published, description
and attributes: an existing product keeps its own, a new one is shown, without description or
attributes; an empty cell of description or attributes is an empty value, an empty published cell an error."""
import csv
import dataclasses
import io
import json
from decimal import Decimal

from catalog import gateway

from .downloads import DANGEROUS

HEADER = ("product_id", "name", "brand_id", "category_id", "price", "published", "description", "attributes")
REQUIRED = ("product_id", "name", "brand_id", "category_id", "price")
OPTIONAL = ("published", "description", "attributes", "stock_level")
KEPT_FIELD = {"published": "published", "description": "description", "attributes": "attributes"}
COLUMN_OF = {"productId": "product_id", "brandId": "brand_id", "categoryId": "category_id",
             "stockLevel": "stock_level"}
MAX_BYTES = 20 * 1024 * 1024
MAX_LINES = 5_000  # a confirmed file is applied within one request (APPLY_SECONDS)
YES, NO = ("yes", "true", "1", "y"), ("no", "false", "0", "n")


def _attributes_text(attributes):
    return json.dumps({k: (float(v) if isinstance(v, Decimal) else v) for k, v in attributes.items()},
                      ensure_ascii=False, separators=(", ", ": ")) if attributes else ""


def export_row(product):
    return (product.product_id, product.name, product.brand_id, product.category_id, f"{product.price:.2f}",
            "yes" if product.published else "no", product.description, _attributes_text(product.attributes))


def _cell(value):
    """A cell as written: the export's apostrophe before a formula-like start (downloads.safe_cell) taken off."""
    value = (value or "").strip()
    return value[1:] if value.startswith("'") and value[1:].startswith(DANGEROUS) else value


class CsvInvalid(Exception):
    def __init__(self, problems):
        self.problems = problems
        super().__init__(f"{len(problems)} problem(s) in the file")


def _published(text, line, problems):
    if text.lower() in YES:
        return True
    if text.lower() in NO:
        return False
    problems.append(f"line {line}: published: {text!r} is not yes or no")
    return None


def _stock_level(text, line, problems):
    """A new product's opening level: empty is 0; else ASCII digits only ("²" and "٣" are digits to Python)."""
    if not text:
        return 0
    if text.isascii() and text.isdigit():
        return int(text)
    problems.append(f"line {line}: stock_level: {text!r} is not a whole number >= 0")
    return 0


def _attributes(text, line, problems):
    if not text:
        return {}
    try:
        value = json.loads(text, parse_float=Decimal)
    except ValueError:
        problems.append(f'line {line}: attributes: not a JSON object such as {{"seats": 5}}')
        return None
    if not isinstance(value, dict):
        problems.append(f'line {line}: attributes: not a JSON object such as {{"seats": 5}}')
        return None
    return value


def _decoded(upload):
    if upload.size > MAX_BYTES:
        raise CsvInvalid([f"The file is larger than {MAX_BYTES // (1024 * 1024)} MB."])
    try:
        return upload.read().decode("utf-8-sig")
    except UnicodeDecodeError:
        raise CsvInvalid(["The file is not UTF-8 text: save it as CSV UTF-8."]) from None


def _column_names(problem):
    """An import rule's message with the CSV's column names ("brandId" -> "brand_id")."""
    for name, column in COLUMN_OF.items():
        problem = problem.replace(f": {name}:", f": {column}:", 1)
    return problem


def read_upload(upload, *, brand_ids, category_ids):
    """(products, keep): the file's products (gateway.Product) and {product_id: fields the file left out};
    CsvInvalid with every problem, by line number, if any line has one."""
    reader = csv.DictReader(io.StringIO(_decoded(upload), newline=""))
    columns = [c.strip() for c in reader.fieldnames or []]
    missing = [c for c in REQUIRED if c not in columns]
    if missing:
        raise CsvInvalid([f"line 1: the header lacks {', '.join(missing)} (it has {', '.join(columns) or 'nothing'})"])
    unknown = [c for c in columns if c not in REQUIRED + OPTIONAL]
    if unknown:
        raise CsvInvalid([f"line 1: unknown column(s) {', '.join(unknown)}"])
    absent = [field for column, field in KEPT_FIELD.items() if column not in columns]  # kept as stored
    problems, products, keep, seen = [], [], {}, set()
    for number, row in enumerate(reader, start=2):
        if number > MAX_LINES + 1:
            problems.append(f"The file has more than {MAX_LINES:,} lines: split it.")
            break
        row = {(k or "").strip(): _cell(v) for k, v in row.items() if k}
        before = len(problems)
        raw = {"productId": row.get("product_id"), "name": row.get("name"), "brandId": row.get("brand_id"),
               "categoryId": row.get("category_id"), "price": row.get("price"),
               "description": row.get("description", ""),
               "attributes": _attributes(row.get("attributes", ""), number, problems),
               "stockLevel": _stock_level(row.get("stock_level", ""), number, problems)}
        published = _published(row["published"], number, problems) if "published" in columns else True
        if row.get("product_id") in seen:
            problems.append(f"line {number}: product_id: {row['product_id']!r} is on an earlier line too")
        seen.add(row.get("product_id"))
        if raw["attributes"] is None:
            raw["attributes"] = {}
        product, found = gateway.check_product(raw, path=f"line {number}", brand_ids=brand_ids,
                                               category_ids=category_ids)
        problems += [_column_names(p.replace(f"line {number}.", f"line {number}: ", 1)) for p in found]
        if product is not None and len(problems) == before:
            products.append(dataclasses.replace(product, published=published))
            keep[product.product_id] = [*absent, "image"]  # pictures are uploaded on the product page
    if problems:
        raise CsvInvalid(problems)
    if not products:
        raise CsvInvalid(["The file has no product lines."])
    return products, keep
