"""Money at the payment provider: the shop counts in Decimal euros (or SHOP_CURRENCY), Stripe in integer
cents. The one conversion each way."""
from decimal import ROUND_HALF_UP, Decimal

CENT = Decimal("0.01")


def to_cents(amount: Decimal) -> int:
    """12.34 -> 1234 (a two-decimal currency such as EUR; prices are whole cents already)."""
    return int((Decimal(amount).quantize(CENT, rounding=ROUND_HALF_UP) * 100).to_integral_value())


def from_cents(cents: int) -> Decimal:
    """1234 -> Decimal("12.34")."""
    return (Decimal(int(cents)) / 100).quantize(CENT)
