"""The stock write's part of back-in-stock alerts: units that become available (a receipt, a cancelled
order) add to the product's due item in the stock write's own transaction (alert_due_action: one small
Update, no read, no email); the job (claiming) reads the due items later."""
from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from .. import keys
from ..dynamo.backoff import AGAIN, AGAIN_SOON, Again, retry_optimistic
from ..dynamo.transact import TRANSACTION_ACTIONS, Action, transact_write, update
from ..errors import CatalogUnavailable
from ..validate import utc_now
from .entities import stamp

if TYPE_CHECKING:
    from catalog.gateway.dynamo.transact import Refusal


log = logging.getLogger(__name__)


def marks_due(delta: int, *, waiting: int, level_before: int) -> bool:
    """Whether a staff stock write (or an import) of `delta` units marks the product's alerts due: when
    units come in and alerts wait (`waiting`, the product's count as read), or may (the product was sold
    out, `level_before` <= 0: nearly every product alerts wait for is). Otherwise the write is made on
    condition that none waits (stock._apply_stock_change)."""
    return delta > 0 and (waiting > 0 or level_before <= 0)


def alert_due_action(product_id: str, units: int) -> Action:
    """The Update action a stock write that makes `units` available adds to its own transaction:
    the product's due item gains the units (no condition: it never fails the stock write). Costs
    one small write; no read, no email."""
    return update(
        keys.alert_due_key(product_id),
        "ADD units :u SET productId = :pid, markedAt = if_not_exists(markedAt, :at)",
        {":u": units, ":pid": product_id, ":at": stamp(utc_now())},
    )


def transact_write_marking_due(
    actions: list[Action], due: list[Action], *, request_token: str, due_token: str
) -> Refusal | None:
    """transact_write(actions) of a stock write that makes units available, with their due marks `due`
    (alert_due_action each) after its actions: in the same transaction while it has room (DynamoDB's 100
    actions), else in their own right after it succeeded (`due_token`: the same write again is the same
    request), tried again while another transaction or throttling is in the way; if DynamoDB still cannot
    take them (or a crash comes in between) those alerts wait for the product's next receipt and the stock
    write stands (logged, never raised: the order or release is done). Returns the refusal of the stock
    write, as transact_write does (its actions' indices as they were)."""
    fits = len(actions) + len(due) <= TRANSACTION_ACTIONS
    refusal = transact_write(actions + due if fits else actions, request_token=request_token)
    if refusal is None and due and not fits:
        _marks_after(due, due_token)
    return refusal


def _marks_after(due: list[Action], due_token: str) -> None:
    def attempt(_n: int) -> None | Again:
        refused = transact_write(due, request_token=due_token)
        if refused is None or refused.replay:
            return None
        return AGAIN if refused.throttled else AGAIN_SOON

    try:
        retry_optimistic(attempt, busy=lambda: log.warning(
            "back-in-stock due marks not written (DynamoDB busy): %s", due_token))
    except CatalogUnavailable:
        log.warning("back-in-stock due marks not written (DynamoDB unavailable): %s", due_token, exc_info=True)
