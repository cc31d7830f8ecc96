"""Back-in-stock alerts: shoppers asking to be told when a product is back (entities: the states).

What the gateway's face and the tests use is here; the modules hold it by job."""
from .asking import (
    MAX_ALERTS_PER_OWNER,
    AlertRefused,
    alert_ask,
    alert_cancel,
    alert_confirm,
    alert_counts,
    alert_get,
    alerts_of_owner,
)
from .claiming import alerts_claim, alerts_due
from .entities import FAILED, MAX_EMAIL, Alert
from .sending import alert_give_up, alert_lease, alert_mark_sent, alerts_outbox

__all__ = [
    "FAILED", "MAX_ALERTS_PER_OWNER", "MAX_EMAIL", "Alert", "AlertRefused", "alert_ask", "alert_cancel",
    "alert_confirm", "alert_counts", "alert_get", "alert_give_up", "alert_lease", "alert_mark_sent", "alerts_claim",
    "alerts_due", "alerts_of_owner", "alerts_outbox",
]
