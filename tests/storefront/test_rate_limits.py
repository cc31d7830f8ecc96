"""storefront.rate_limits: ACCOUNT_RATE_LIMITS in allauth's text, a limit of 0 left out."""
from storefront.rate_limits import account_rate_limits, alert_rate_limits


def test_the_account_limits_keep_what_the_environment_says_and_add_the_inbox_limit():
    limits = account_rate_limits(login_failed="10/m/ip", reset_password="5/h/key", request_login_code="3/m/key",
                                 confirm_email="1/10s/key", mails_per_mailbox=7)
    assert limits == {"login_failed": "10/m/ip", "reset_password": "5/h/key", "request_login_code": "3/m/key",
                      "confirm_email": "1/10s/key", "account_mail": "7/h/key"}


def test_an_alert_limit_of_zero_is_no_limit():
    assert alert_rate_limits(per_ip=20, per_email=0, per_user=3) == {
        "stock_alert": "20/h/ip", "stock_alert_email": "", "stock_alert_user": "3/h/user"}
