"""Checkouts over HTTP, unpaid beside paid (localstripe): p50/p99 of the POST, the requests an order costs."""
import statistics

import requests
from django.contrib.auth import get_user_model
from django.test import override_settings

from catalog.gateway.dynamo.testing import count_requests
from payments import stripe_api
from tools import stripe_local

from .flows import ADDRESS, django_client, hidden_field
from .load import Server


def _checkout(browser, base, mode, n, get, post):
    """Buyer `n`'s checkout form with one unit in the cart (paid: with a card token, as Stripe.js gives it)."""
    product = str(n % 40 + 1)
    page = get(browser, f"{base}/products/{product}/")
    post(browser, f"{base}/cart/add/", {"csrfmiddlewaretoken": hidden_field(page, "csrfmiddlewaretoken"),
                                        "product_id": product, "quantity": "1"})
    page = get(browser, f"{base}/checkout/")
    form = {name: hidden_field(page, name) for name in ("csrfmiddlewaretoken", "order_id", "token")} | ADDRESS
    if mode == "stripe":
        card = {"number": "4242424242424242", "exp_month": 12, "exp_year": 2034, "cvc": "123"}
        form["stripe_token"] = stripe_api.client().v1.tokens.create(params={"card": card}).id
    return form


def _buyer(n, mode):
    name = f"bench-{mode}-{n}"
    return django_client(get_user_model().objects.create_user(name, email=f"{name}@example.com", password=None))


def run(server_env, table, *, orders, out, log):
    stripe = stripe_local.start()
    keys = {"STRIPE_API_BASE": stripe.url, "STRIPE_JS_URL": f"{stripe.url}/js.stripe.com/v3/",
            "STRIPE_SECRET_KEY": "sk_test_bench", "STRIPE_PUBLISHABLE_KEY": "pk_test_bench"}
    results = {}
    try:
        for mode in ("off", "stripe"):
            env = {**server_env, "DYNAMODB_TABLE": table, "SHOP_PAYMENTS": mode, **keys}
            with Server(env, out / f"gunicorn-checkout-{mode}.log") as server, override_settings(
                    SHOP_PAYMENTS=mode, DYNAMODB_TABLE=table, **keys):
                times = []
                for n in range(orders):
                    browser = requests.Session()
                    browser.cookies.update({k: v.value for k, v in _buyer(n, mode).cookies.items()})
                    form = _checkout(browser, server.url, mode, n, lambda b, u: b.get(u, timeout=30).text,
                                     lambda b, u, d: b.post(u, data=d, timeout=30))
                    answer = browser.post(f"{server.url}/checkout/", data=form, allow_redirects=False, timeout=30)
                    if "/account/orders/" not in answer.headers.get("Location", ""):
                        raise RuntimeError(f"{mode} checkout not placed: HTTP {answer.status_code}")
                    times.append(answer.elapsed.total_seconds() * 1000)
                form = _checkout(client := _buyer(2 * orders, mode), "", mode, 2 * orders,
                                 lambda c, u: c.get(u).content.decode(), lambda c, u, d: c.post(u, d))
                sent = stripe_api.requests_sent()
                with count_requests() as counter:
                    client.post("/checkout/", form)
            results[mode] = {"orders": orders, "p50_ms": round(statistics.median(times), 1),
                             "p99_ms": round(statistics.quantiles(times, n=100)[98], 1),
                             "dynamodb_requests": counter.total, "dynamodb_operations": counter.operations,
                             "stripe_requests": stripe_api.requests_sent() - sent}
            log(f"  checkout {mode:<6} p50 {results[mode]['p50_ms']} ms  p99 {results[mode]['p99_ms']} ms")
    finally:
        stripe_local.stop(stripe)
    return results
