"""What every staff view is wrapped in: signed-in staff with a second factor and the permission of its
area (staff/models.py: the warehouse's or the catalog editor's), the HTTP methods it answers, a longer
DynamoDB budget for the lists merged from many shards, and `Vary: HX-Request` for
the views that answer HTMX with a partial."""
from functools import wraps

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.shortcuts import redirect
from django.urls import reverse
from django.views.decorators.http import require_http_methods
from django.views.decorators.vary import vary_on_headers
from django_htmx.http import HttpResponseClientRedirect

from catalog import gateway
from shop.mfa import needs_second_factor

from .access import may
from .models import WAREHOUSE

READ = ("GET", "HEAD")
READ_AND_POST = ("GET", "HEAD", "POST")
POST = ("POST",)


def staff_required(view, permission=WAREHOUSE):
    """Anonymous visitors go to the login page (with ?next=); signed-in accounts that are not
    staff, or staff without `permission` (None: any staff), get a 403, not another trip to the login
    page. A staff session that has not used a second factor is sent to use it (or to set one up), back to
    this page after (STAFF_MFA_REQUIRED)."""

    @login_required
    @wraps(view)
    def staff_only(request, *args, **kwargs):
        if not request.user.is_staff:
            raise PermissionDenied("This page is for staff only.")
        if permission is not None and not may(request.user, permission):
            raise PermissionDenied("Your staff account may not use these pages.")
        next_path = (request.htmx.current_url_abs_path if request.htmx else None) or request.get_full_path()
        factor = needs_second_factor(request, next_path)
        if factor is not None:
            # No staff page or staff POST before this session used a second factor (shop/mfa.py).
            if factor == reverse("mfa_index"):
                messages.warning(request, "Staff pages need a second factor: set up an authenticator app or a "
                                          "passkey, then open the staff pages again.")
            else:
                messages.warning(request, "Staff pages need your second factor in this session: enter your "
                                          "authenticator app's code or use your passkey.")
            if request.htmx:
                return HttpResponseClientRedirect(factor)
            return redirect(factor)
        return view(request, *args, **kwargs)

    @wraps(view)
    def signed_in(request, *args, **kwargs):
        if request.htmx and not request.user.is_authenticated:
            # The session ended: open the login page as a page, not in the place of a form.
            login = redirect_to_login(request.htmx.current_url_abs_path or request.get_full_path())
            return HttpResponseClientRedirect(login["Location"])
        return staff_only(request, *args, **kwargs)

    return signed_in


def shard_budget(view):
    """A staff list merged from many shards (open orders: a Query of each of 65 partitions a page; the
    ledger: 64 a day; who bought a product) may take DYNAMODB_WRITE_BUDGET: staff wait a moment rather
    than get a 503; a shopper's page keeps the read budget."""
    @wraps(view)
    def within(request, *args, **kwargs):
        with gateway.request_budget(seconds=settings.DYNAMODB_WRITE_BUDGET):
            return view(request, *args, **kwargs)

    return within


def staff_view(methods=READ, *, shards=False, htmx=True, permission=WAREHOUSE):
    """A staff view answering `methods` (others get a 405), staff with `permission` only (`staff_required`,
    checked first); `shards`: within the shard budget; `htmx`: the view answers HTMX with a partial, so its
    responses vary on HX-Request."""

    def decorate(view):
        if htmx:
            view = vary_on_headers("HX-Request")(view)
        view = require_http_methods(list(methods))(view)
        if shards:
            view = shard_budget(view)
        return staff_required(view, permission)

    return decorate
