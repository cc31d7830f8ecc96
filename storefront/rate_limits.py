"""ACCOUNT_RATE_LIMITS: allauth's rate limits, the one throttling mechanism (counted in Django's default
cache), in allauth's text ("N/period/per", comma-separated: see allauth's docs). storefront/settings.py
reads the numbers from the environment; this module says what each limit counts."""


def account_rate_limits(*, login_failed, reset_password, request_login_code, confirm_email, mails_per_mailbox):
    """The sign-in and account mail limits."""
    return {
        # Failed sign-ins per client address and per account (a good sign-in gives back its own try; a
        # password reset or an emailed sign-in code lets the owner in while strangers keep failing).
        "login_failed": login_failed,
        # Mails to an address ("key": the address typed), whoever asks: password resets, sign-in codes, and
        # confirmation codes (which also carry the "account already exists" mail of a sign-up with a taken
        # address). Over a limit the request is refused alike for every address, known or not.
        "reset_password": reset_password,
        "request_login_code": request_login_code,
        "confirm_email": confirm_email,
        # ... and every account mail to one inbox, whatever `+tag` its address carries (victim+1@, victim+2@
        # are one inbox; the limits above count each address apart): past it the mail is not sent
        # (shop/adapter.py).
        "account_mail": f"{mails_per_mailbox}/h/key",
    }


def alert_rate_limits(*, per_ip, per_email, per_user):
    """Asking for back-in-stock alerts, an hour: per client address (guests and signed-in shoppers alike), per
    email address a guest enters, per signed-in account; 0 leaves that limit out."""
    return {
        "stock_alert": _hourly(ip=per_ip),
        "stock_alert_email": _hourly(key=per_email),
        "stock_alert_user": _hourly(user=per_user),
    }


def _hourly(**amounts):
    """allauth's rate limit text ("N/h/per", comma-separated) of the non-zero `amounts` per ip, key or user."""
    return ",".join(f"{amount}/h/{per}" for per, amount in amounts.items() if amount)
