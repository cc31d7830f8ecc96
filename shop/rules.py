"""The shop's rules, in one place: what a cart may hold, what adding to it does, what each cart line
needs to be bought (how stock is shown, and whether it can be bought: catalog/availability.py).

The conditions DynamoDB itself holds an order to (the product exists, its price is the one the
shopper saw, there is enough stock) are the gateway's `line_problems`, used here and by the
order's transaction alike; at most `MAX_LINES` products an order is the gateway's too (one
transaction). What is the shop's own: at most MAX_LINE_QUANTITY of one product.
"""
from dataclasses import dataclass
from decimal import Decimal

from django.conf import settings

from catalog import availability
from catalog.gateway import MAX_LINES, LineProblem, line_problems

MAX_LINE_QUANTITY = 99


def vat_note():
    """What a price includes, beside it: "incl. VAT" (SHOP_PRICES_INCLUDE_VAT, the default) or "plus VAT"."""
    return "incl. VAT" if settings.SHOP_PRICES_INCLUDE_VAT else "plus VAT"


@dataclass(frozen=True)
class Addition:
    """What adding to the cart does: `quantity` added (0 when refused, with `error`), and what the
    shopper is told (`message`), which says so when fewer were added than asked for."""

    quantity: int = 0
    error: str | None = None
    message: str = ""


def addition(*, product, quantity, in_cart, lines_in_cart):
    """Adding `quantity` of `product` to a cart that has `in_cart` of it and `lines_in_cart`
    different products: how many are added, or why none are (a product staff hid: none)."""
    if not product.published:
        return Addition(error=f"{product.name} is no longer available.")
    if not availability.can_buy(product.stock_level, in_cart + quantity):
        return Addition(
            error=availability.shortage(product.name, product.stock_level)
            + (f"; you have {in_cart} in your cart." if in_cart and product.in_stock else ".")
        )
    if not in_cart and lines_in_cart >= MAX_LINES:
        return Addition(error=f"A cart holds at most {MAX_LINES} different products.")
    room = MAX_LINE_QUANTITY - in_cart
    if room <= 0:
        return Addition(error=f"You have {in_cart} of {product.name} in your cart, the most one order can take.")
    added = min(quantity, room)
    message = f"Added {added} × {product.name} to your cart."
    if added < quantity:
        message = (
            f"Added {added} × {product.name}, not {quantity}: you now have {MAX_LINE_QUANTITY} in your cart, "
            "the most one order can take."
        )
    return Addition(quantity=added, message=message)


@dataclass(frozen=True)
class CartLineView:
    """A cart line as the cart page shows it: the product as it is now, and what stands in the
    way of buying it (`problem`, a LineProblem, or None)."""

    product_id: str
    product: object
    quantity: int
    price: Decimal
    price_changed_from: Decimal | None
    problem: LineProblem | None

    @property
    def total(self):
        return self.price * self.quantity

    @property
    def gone(self):
        return self.problem is not None and self.problem.kind == LineProblem.GONE

    @property
    def short(self):
        return self.problem is not None and self.problem.kind == LineProblem.SHORT


def cart_lines(lines, products):
    """Each PurchaseLine of a cart with the products as they are now ({product_id: Product})."""
    problems = {p.product_id: p for p in line_problems(lines, products)}
    shown = []
    for line in lines:
        product = products.get(line.product_id)
        problem = problems.get(line.product_id)
        if problem is not None and problem.kind == LineProblem.PRICE and product.stock_level < line.quantity:
            # The new price is shown (and agreed to) on this page: what still stands in the way is stock.
            problem = LineProblem(line.product_id, LineProblem.SHORT, name=product.name, available=product.stock_level)
        elif problem is not None and problem.kind == LineProblem.PRICE:
            problem = None
        shown.append(
            CartLineView(
                product_id=line.product_id,
                product=product,
                quantity=line.quantity,
                price=product.price if product else line.price,
                price_changed_from=line.price if product and product.price != line.price else None,
                problem=problem,
            )
        )
    return shown


def cart_total(lines):
    return sum((line.total for line in lines if not line.gone), Decimal("0.00"))


def can_check_out(lines):
    return bool(lines) and not any(line.problem for line in lines)
