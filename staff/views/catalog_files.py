"""Many products at once (catalog editors only): every product as CSV (streamed), a CSV of new and changed
products, and a price change by percent for a brand or a category. An upload or a price change is first a
preview of exactly what will change (nothing written; any line in error: nothing can be applied); its
confirm button posts `confirm`, a random token of that one preview, its plan kept server-side in the cache
(PLAN_SECONDS) with the user and the fingerprint of what was previewed. Applying writes each product over the
version previewed, and the token is marked applied, so confirming twice writes once; uploading the same file
again is a new preview with a new token."""
import hashlib
import secrets

from django.conf import settings
from django.core.cache import cache
from django.shortcuts import render

from catalog import gateway, names

from ..catalog_csv import HEADER, MAX_LINES, CsvInvalid, export_row, read_upload
from ..catalog_forms import PriceChangeForm, UploadForm
from ..decorators import READ, READ_AND_POST, staff_view
from ..downloads import csv_response
from ..models import CATALOG

PLAN_SECONDS = 3600
APPLY_SECONDS = 120  # the DynamoDB budget of applying a confirmed plan (a thousand products and more)


@staff_view(READ, permission=CATALOG, htmx=False)
def catalog_export(request):
    """Every product, shown and hidden, as CSV, streamed: a brand's products a Query page at a time."""
    brand_ids = [b.brand_id for b in gateway.brands_all()]
    rows = (export_row(p) for page in gateway.products_every(brand_ids=brand_ids) for p in page)
    return csv_response("catalog.csv", HEADER, rows)


def _plan_key(token):
    return f"catalog-plan:{token}"


def _keep_plan(request, kind, plan, fingerprint):
    token = secrets.token_hex(32)  # one preview's: the same file uploaded again is previewed (and applied) anew
    cache.set(_plan_key(token), {"user": request.user.pk, "kind": kind, "plan": plan, "fingerprint": fingerprint},
              PLAN_SECONDS)
    return token


def _preview(request, template, context, plan, token, status=200):
    shown = [p for p in plan if p.changes]
    context.update(plan=shown, token=token, created=sum(p.before is None for p in shown),
                   changed=sum(p.before is not None for p in shown), unchanged=len(plan) - len(shown),
                   brand_names=names.brand_names(), category_names=names.category_names())
    return render(request, template, context, status=status)


def _confirm(request, template, context):
    """Apply the previewed plan whose token was posted; again: it was applied, nothing more is written."""
    token = request.POST["confirm"]
    kept = cache.get(_plan_key(token)) if len(token) == 64 else None
    done = cache.get(f"{_plan_key(token)}:applied")
    if done is not None:
        return render(request, template, {**context, "applied": done, "again": True})
    if kept is None or kept["user"] != request.user.pk:
        context["problems"] = ["This preview has expired: upload the file or ask for the change again."]
        return render(request, template, context, status=400)
    if not cache.add(f"{_plan_key(token)}:applying", True, APPLY_SECONDS):  # a second click while applying
        context["problems"] = ["This change is being applied: reload this page in a minute."]
        return render(request, template, context, status=409)
    try:
        with gateway.request_budget(seconds=max(APPLY_SECONDS, settings.DYNAMODB_WRITE_BUDGET)):
            applied = gateway.plan_apply(plan=kept["plan"], who=request.user.get_username())
    finally:
        cache.delete(f"{_plan_key(token)}:applying")
    if applied.failed:  # the plan stays: confirming again writes the products that failed
        return render(request, template, {**context, "applied": applied, "token": token})
    cache.set(f"{_plan_key(token)}:applied", applied, PLAN_SECONDS)
    cache.delete(_plan_key(token))
    return render(request, template, {**context, "applied": applied})


@staff_view(READ_AND_POST, permission=CATALOG, htmx=False)
def catalog_import(request):
    template, form = "staff/catalog/import.html", UploadForm()
    context = {"form": form}
    if request.method != "POST":
        return render(request, template, context)
    if "confirm" in request.POST:
        return _confirm(request, template, context)
    form = context["form"] = UploadForm(request.POST, request.FILES)
    if not form.is_valid():
        return render(request, template, context, status=400)
    upload = form.cleaned_data["file"]
    try:
        products, keep = read_upload(upload, brand_ids=set(names.brand_names()),
                                     category_ids=set(names.category_names()))
    except CsvInvalid as exc:
        context["problems"] = exc.problems
        return render(request, template, context, status=400)
    plan = gateway.plan_products(products=products, keep=keep)
    upload.seek(0)
    token = _keep_plan(request, "import", plan, hashlib.sha256(upload.read()).hexdigest())
    return _preview(request, template, context, plan, token)


@staff_view(READ_AND_POST, permission=CATALOG, htmx=False)
def catalog_prices(request):
    """A price change by percent for a brand's or a category's shown products: preview, then confirm."""
    template = "staff/catalog/prices.html"
    context = {"form": PriceChangeForm()}
    if request.method != "POST":
        return render(request, template, context)
    if "confirm" in request.POST:
        return _confirm(request, template, context)
    form = context["form"] = PriceChangeForm(request.POST)
    if not form.is_valid():
        return render(request, template, context, status=400)
    data = form.cleaned_data
    try:
        plan = gateway.plan_price_change(percent=data["percent"], brand_id=data["brand"] or None,
                                         category_id=data["category"] or None, most=MAX_LINES)
    except gateway.InvalidInput:
        context["problems"] = [f"This choice has more than {MAX_LINES:,} products, the most one change takes: "
                               "choose a smaller brand or category, or change prices with a CSV file."]
        return render(request, template, context, status=400)
    fingerprint = ":".join(f"{p.product_id}@{p.before.version}" for p in plan) + f":{data['percent']}"
    token = _keep_plan(request, "prices", plan, hashlib.sha256(fingerprint.encode()).hexdigest())
    context["percent"] = data["percent"]
    return _preview(request, template, context, plan, token)
