"""Orders: placing, cancelling, shipping and listing orders, and the checks of purchase lines."""
