"""The shopper's cart, kept in the Django session: product ID → quantity and the price last shown."""
from decimal import Decimal

from catalog.gateway import PurchaseLine

from .rules import MAX_LINE_QUANTITY

SESSION_KEY = "cart"
PLACED_KEY = "placed_orders"

class Cart:
    def __init__(self, session):
        self.session = session
        self.lines = dict(session.get(SESSION_KEY, {}))

    def __len__(self):
        return len(self.lines)

    def __contains__(self, product_id):
        return product_id in self.lines

    @property
    def count(self):
        return sum(line["quantity"] for line in self.lines.values())

    def quantity(self, product_id):
        return self.lines.get(product_id, {}).get("quantity", 0)

    def add(self, product, quantity):
        """Add `quantity` (what rules.addition allowed) at the product's current price."""
        total = min(self.quantity(product.product_id) + quantity, MAX_LINE_QUANTITY)
        self.lines[product.product_id] = {"quantity": total, "price": str(product.price)}
        self._save()

    def set_quantity(self, product_id, quantity):
        if product_id in self.lines:
            self.lines[product_id] = {**self.lines[product_id], "quantity": min(quantity, MAX_LINE_QUANTITY)}
            self._save()

    def remove(self, product_id):
        if self.lines.pop(product_id, None) is not None:
            self._save()

    def saw(self, products):
        """Remember the prices just shown: they are the prices the shopper agreed to."""
        changed = False
        for product_id, line in self.lines.items():
            product = products.get(product_id)
            if product is not None and line["price"] != str(product.price):
                line["price"] = str(product.price)
                changed = True
        if changed:
            self._save()

    def order_lines(self):
        return [
            PurchaseLine(product_id=pid, quantity=line["quantity"], price=Decimal(line["price"]))
            for pid, line in self.lines.items()
        ]

    def placed(self, order_id):
        """The order is placed: empty the cart and remember the order for replays."""
        self.lines = {}
        self._save()
        placed = self.session.get(PLACED_KEY, [])[-9:]
        self.session[PLACED_KEY] = placed + [order_id]

    def was_placed(self, order_id):
        return order_id in self.session.get(PLACED_KEY, [])

    def _save(self):
        self.session[SESSION_KEY] = self.lines
        self.session.modified = True
