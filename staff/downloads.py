"""CSV downloads that are safe to open in a spreadsheet, streamed row by row.

A cell that starts with `=`, `+`, `-`, `@`, a tab or a carriage return would be read by Excel,
LibreOffice or Google Sheets as a formula (CSV injection); such a cell gets a leading apostrophe,
as OWASP recommends. Numbers are written as non-negative counts (quantity in / out), so no
number needs neutralising.
"""
import csv

from django.http import StreamingHttpResponse

DANGEROUS = ("=", "+", "-", "@", "\t", "\r")


def safe_cell(value):
    text = "" if value is None else str(value)
    return "'" + text if text.startswith(DANGEROUS) else text


class _Echo:
    def write(self, value):
        return value


def csv_response(filename, header, rows):
    """A streamed CSV download: `header`, then each of `rows` (iterables of cells), every cell neutralised."""
    writer = csv.writer(_Echo())
    # The first row is read before the answer starts: DynamoDB out of reach is still a 503 page.
    rows = iter(rows)
    first = next(rows, None)

    def lines():
        yield writer.writerow([safe_cell(c) for c in header])
        if first is not None:
            yield writer.writerow([safe_cell(c) for c in first])
        for row in rows:
            yield writer.writerow([safe_cell(c) for c in row])

    response = StreamingHttpResponse(lines(), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    response["X-Content-Type-Options"] = "nosniff"
    return response


ADJUSTMENT_HEADER = (
    "at_utc", "product_id", "reason", "quantity_in", "quantity_out", "resulting_level", "reference", "note", "who",
    "order_id",
)


def adjustment_row(a):
    return (
        a.at.strftime("%Y-%m-%d %H:%M:%S"), a.product_id, a.reason, max(a.delta, 0), max(-a.delta, 0),
        a.resulting_level_shown, a.reference, a.note, a.who, a.order_id or "",
    )


BUYER_HEADER = (
    "at_utc", "order_number", "customer_name", "customer_email", "quantity", "unit_price", "product_id", "order_id",
    "customer_id", "cancelled",
)


def buyer_row(sale):
    """One order of a product (gateway.Sale) in the buyers download."""
    return (
        sale.at.strftime("%Y-%m-%d %H:%M:%S"), sale.order_number, sale.customer_name, sale.customer_email,
        sale.quantity, sale.unit_price, sale.product_id, sale.order_id, sale.customer_id,
        "yes" if sale.cancelled else "",
    )
