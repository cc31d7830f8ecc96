from .cart import Cart


def cart(request):
    """The header's cart badge: read from the session, no DynamoDB request."""
    session = getattr(request, "session", None)
    return {"cart_count": Cart(session).count if session is not None else 0}
