"""The checkout in progress: its order ID and idempotency key are issued by the server and kept in
the session, so a posted form can only place the order this checkout was given.

The checkout form carries both (hidden fields), which keeps a double click, a retry or Back and
resubmit to one order; a posted ID that is not the one issued here (another customer's, an earlier
order's, a made-up one) is refused before anything is read or written.
"""
import time
from datetime import UTC, datetime

from django.contrib import messages
from django.shortcuts import redirect
from prometheus_client import Counter

from catalog import gateway

from . import accounts

SESSION_KEY = "checkout"

# Checkouts by what the shopper was told: `placed`; `sold_out` (a line short of stock, nothing
# ordered); `rejected` (a product gone or its price changed); `busy` (too many buyers of one product
# at once: try again); `unknown` (DynamoDB's answer was lost: the order may or may not be placed).
OUTCOMES = ("placed", "sold_out", "rejected", "busy", "unknown")
CHECKOUTS = Counter("fromatoz_checkouts", "Checkouts by outcome", ["outcome"])
_outcomes = {outcome: CHECKOUTS.labels(outcome) for outcome in OUTCOMES}


def counted(outcome):
    """Count a checkout that ended in `outcome` (one of OUTCOMES)."""
    _outcomes[outcome].inc()


def rejected_outcome(problems):
    """`sold_out` when a line is short of stock, else `rejected`."""
    return "sold_out" if any(p.kind == p.SHORT for p in problems) else "rejected"


def issue(session):
    """The order ID and key of this session's checkout in progress ({"order_id", "token"}); new
    ones when there is none (the same ones until the order is placed, so two tabs agree)."""
    pending = session.get(SESSION_KEY)
    if not pending:
        pending = {"order_id": gateway.new_order_id(), "token": gateway.new_token()}
        session[SESSION_KEY] = pending
    return dict(pending)


def is_issued(session, *, order_id, token):
    """Whether `order_id` and `token` are the ones issued to this session's checkout in progress."""
    pending = session.get(SESSION_KEY) or {}
    return bool(pending) and pending.get("order_id") == order_id and pending.get("token") == token


def done(session):
    """The order is placed: the next checkout gets a new ID."""
    session.pop(SESSION_KEY, None)


# --- timed holds: what this session holds, so the cart can count it as the shopper's ----

HOLDS_KEY = "held"


def held(session, holds):
    """Remember the shopper's holds just taken ({product_id: Hold}): their end, units and whether it is their
    cap."""
    session[HOLDS_KEY] = {pid: {"quantity": hold.quantity, "until": hold.until, "final": hold.final()}
                          for pid, hold in holds.items()}


def first_held(session, product_ids) -> tuple[datetime, bool] | None:
    """(end, whether it is the cap) of the first of this session's holds of these products to end, as
    remembered; None when none is held now. The checkout shows it without reading DynamoDB."""
    now = time.time()
    remembered = session.get(HOLDS_KEY) or {}
    ends = [h for pid, h in remembered.items() if pid in product_ids and h["until"] > now]
    if not ends:
        return None
    first = min(ends, key=lambda h: h["until"])
    return datetime.fromtimestamp(first["until"], UTC), bool(first.get("final"))


def own_units(session):
    """{product_id: units} this session holds now (as remembered; the order reads the holds themselves)."""
    now = time.time()
    return {pid: h["quantity"] for pid, h in (session.get(HOLDS_KEY) or {}).items() if h["until"] > now}


def forget_holds(session, product_ids=None):
    """The holds of these products (all: None) were released or became the order."""
    remembered = dict(session.get(HOLDS_KEY) or {})
    for pid in list(remembered) if product_ids is None else product_ids:
        remembered.pop(pid, None)
    session[HOLDS_KEY] = remembered


def placed(request, cart, address, order):
    """After the order is placed: the cart and the checkout are done, the holds became the order, the
    address is remembered, the confirmation mailed (after the transaction; it never undoes it; once, as
    the order's claim says, whoever else placed it), and the shopper sees the order."""
    counted("placed")
    cart.placed(order.order_id)
    done(request.session)
    forget_holds(request.session)
    accounts.remember_address(request.user, address)
    accounts.send_order_confirmation(request.user, order)
    messages.success(request, f"Thank you! Your order {order.reference} is placed.")
    return redirect("order", order_id=order.order_id)
