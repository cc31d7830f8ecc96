"""Card payments in the single table: checkouts waiting for their payment (pending.py), the payment
recorded on an order (orders.py), and the provider's events handled once (events.py)."""
