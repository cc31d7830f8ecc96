"""Mails the shop sends to an address on anybody's request (password reset, sign-in code, the "account
already exists" mail of a sign-up) are bounded per address and hour, and an address with no account
gets none: nobody can have the shop flood an inbox."""
import time

import pytest
from allauth.core.internal import ratelimit
from django.core import mail

from tests.helpers import make_account

pytestmark = pytest.mark.django_db
PASSWORD = "a-long-password-1"
PER_HOUR = 5  # the settings' defaults: ACCOUNT_RATE_LIMIT_RESET_PASSWORD, _REQUEST_LOGIN_CODE, _CONFIRM_EMAIL


class _Clock:
    """allauth's rate limits' clock, `offset` seconds ahead (the cache keeps what they counted)."""

    def __init__(self):
        self.offset = 0.0

    def time(self) -> float:
        return time.time() + self.offset

    def __getattr__(self, name):
        return getattr(time, name)


@pytest.fixture
def clock(monkeypatch):
    fake = _Clock()
    monkeypatch.setattr(ratelimit, "time", fake)
    return fake


@pytest.fixture
def alice(catalog, django_user_model):
    return make_account(django_user_model, "alice", PASSWORD)


def _mails_to(address):
    return [m for m in mail.outbox if address in m.to]


def test_resets_for_an_address_without_account_send_nothing(catalog, client, clock):
    for _ in range(8):
        client.post("/accounts/password/reset/", {"email": "nobody@example.com"})
        clock.offset += 61  # past allauth's per-minute limits
    assert _mails_to("nobody@example.com") == []


def test_sign_in_codes_for_an_address_without_account_send_nothing(catalog, client, clock):
    for _ in range(4):
        client.post("/accounts/login/code/", {"email": "nobody@example.com"})
        clock.offset += 61
    assert _mails_to("nobody@example.com") == []


def test_resets_mail_a_known_address_at_most_the_hourly_limit_and_answer_as_for_an_unknown(alice, client, clock):
    answers = []
    for _ in range(PER_HOUR + 3):
        answers.append(client.post("/accounts/password/reset/", {"email": "alice@example.com"}).status_code)
        clock.offset += 61  # a minute apart: allauth's own limit is per minute
    assert len(_mails_to("alice@example.com")) == PER_HOUR
    assert answers == [302] * PER_HOUR + [429] * 3
    unknown = [client.post("/accounts/password/reset/", {"email": "nobody@example.com"}).status_code
               for _ in range(PER_HOUR + 1)]
    assert unknown == [302] * PER_HOUR + [429]  # the same answers for an address with no account
    clock.offset += 3601
    assert client.post("/accounts/password/reset/", {"email": "alice@example.com"}).status_code == 302
    assert len(_mails_to("alice@example.com")) == PER_HOUR + 1


def test_sign_in_codes_mail_a_known_address_at_most_the_hourly_limit(alice, client, clock):
    for _ in range(PER_HOUR + 3):
        type(client)().post("/accounts/login/code/", {"email": "alice@example.com"})
        clock.offset += 61
    assert len(_mails_to("alice@example.com")) == PER_HOUR


def test_sign_ups_with_a_taken_address_mail_its_owner_at_most_the_hourly_limit(alice, client, clock):
    for i in range(PER_HOUR + 3):
        type(client)().post("/accounts/signup/", {"username": f"mallory{i}", "email": "alice@example.com",
                                                  "password1": PASSWORD, "password2": PASSWORD})
        clock.offset += 11  # past allauth's one mail every 10 s
    owner_mail = _mails_to("alice@example.com")
    assert len(owner_mail) == PER_HOUR and all("already" in m.body.lower() for m in owner_mail)


def test_tagged_addresses_reach_one_inbox_at_most_its_hourly_limit(catalog, client, clock, settings):
    """Sign-ups with victim+1@, victim+2@, ... each ask for a confirmation code: allauth counts each address
    apart, but they land in one inbox, which gets at most ACCOUNT_MAILS_PER_MAILBOX an hour."""
    for i in range(settings.ACCOUNT_MAILS_PER_MAILBOX + 3):
        type(client)().post("/accounts/signup/", {"username": f"mallory{i}", "email": f"victim+{i}@example.com",
                                                  "password1": PASSWORD, "password2": PASSWORD})
        clock.offset += 11
    inbox = [m for m in mail.outbox if any(to.startswith("victim") for to in m.to)]
    assert len(inbox) == settings.ACCOUNT_MAILS_PER_MAILBOX
    clock.offset += 3601  # an hour on, the inbox gets mail again
    type(client)().post("/accounts/signup/", {"username": "late", "email": "victim@example.com",
                                              "password1": PASSWORD, "password2": PASSWORD})
    assert len([m for m in mail.outbox if "victim@example.com" in m.to]) == 1
