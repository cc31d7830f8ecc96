"""An authenticator app's code is taken once (RFC 6238, 5.2): the step of the last code taken is kept in the
database, so the same code, or an earlier one, is refused for as long as it is valid (90 s with
MFA_TOTP_TOLERANCE = 1), by every server, and of two servers taking one code at once only one wins."""
import base64
import os
import re
import threading
import time
from unittest import mock

import pytest
from allauth.mfa.models import Authenticator
from django.core.cache import cache
from django.db import connection

from shop.mfa_forms import take_totp_code
from tests.helpers import make_account, totp_code

pytestmark = pytest.mark.database  # ORM writes that race or commit: SQLite and PostgreSQL differ

PASSWORD = "a-long-password-1"
REAL_TIME = time.time


@pytest.fixture
def ann(django_user_model):
    user = make_account(django_user_model, "ann", PASSWORD)
    user.secret = base64.b32encode(os.urandom(20)).decode()
    Authenticator.objects.create(user=user, type=Authenticator.Type.TOTP, data={"secret": user.secret})
    return user


def sign_in_with_code(client, code):
    client.logout()
    assert client.post("/accounts/login/", {"login": "ann", "password": PASSWORD})["Location"] == \
        "/accounts/2fa/authenticate/"
    return client.post("/accounts/2fa/authenticate/", {"code": code})


@pytest.mark.django_db
def test_a_code_is_taken_once_for_its_whole_validity(ann, client):
    now = REAL_TIME()
    code = totp_code(ann.secret, at=now)
    assert sign_in_with_code(client, code).status_code == 302
    assert sign_in_with_code(client, code).status_code == 400
    # 31 s later the code is still one the server takes (the step before its own), and Django's cache
    # (allauth's used-code mark, 30 s) has forgotten it: the database has not.
    with mock.patch("time.time", lambda: REAL_TIME() + 31):
        response = sign_in_with_code(client, code)
    assert response.status_code == 400 and "Incorrect code." in response.content.decode()
    assert "_auth_user_id" not in client.session


@pytest.mark.django_db
def test_an_earlier_code_is_refused_after_a_later_one(ann, client):
    now = REAL_TIME()
    assert sign_in_with_code(client, totp_code(ann.secret, at=now + 30)).status_code == 302
    assert sign_in_with_code(client, totp_code(ann.secret, at=now)).status_code == 400


@pytest.mark.django_db
def test_another_server_refuses_a_code_taken_on_the_first(ann, client):
    """Each server has its own cache (LocMem): clearing it stands for the second server."""
    code = totp_code(ann.secret)
    assert sign_in_with_code(client, code).status_code == 302
    cache.clear()
    assert sign_in_with_code(type(client)(), code).status_code == 400


@pytest.mark.django_db(transaction=True)  # allauth tells of a new authenticator once it is committed
def test_the_code_that_set_the_app_up_does_not_sign_in(django_user_model, client):
    make_account(django_user_model, "ann", PASSWORD)
    client.post("/accounts/login/", {"login": "ann", "password": PASSWORD})
    client.post(client.get("/accounts/2fa/totp/activate/")["Location"], {"password": PASSWORD})
    secret = re.search(r'value="([A-Z2-7]{16,})"', client.get("/accounts/2fa/totp/activate/").content.decode())[1]
    code = totp_code(secret)
    assert client.post("/accounts/2fa/totp/activate/", {"code": code}).status_code == 302
    cache.clear()  # another server
    assert sign_in_with_code(type(client)(), code).status_code == 400


@pytest.mark.django_db
def test_of_two_servers_holding_the_authenticator_as_it_was_one_takes_the_code(ann):
    """Both servers read the authenticator before either took the code: the conditional UPDATE, not
    the copy each holds, decides."""
    first, second = (Authenticator.objects.get(user=ann, type=Authenticator.Type.TOTP) for _ in range(2))
    code = totp_code(ann.secret)
    assert [take_totp_code(first, code), take_totp_code(second, code)] == [True, False]


@pytest.mark.django_db(transaction=True)
def test_threads_racing_one_code_at_most_one_wins(ann):
    code = totp_code(ann.secret)
    start = threading.Barrier(4)
    results = []

    def take():
        copy = Authenticator.objects.get(user=ann, type=Authenticator.Type.TOTP)
        start.wait()
        results.append(take_totp_code(copy, code))
        connection.close()

    threads = [threading.Thread(target=take) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(results) == [False, False, False, True]


@pytest.mark.django_db
def test_a_spent_code_counts_as_a_wrong_one_and_does_not_clear_the_wrong_codes(ann, client):
    """Someone who saw one code typed cannot keep guessing by slipping it in between guesses: allauth clears
    the count of wrong codes at a valid one, and a spent code is no longer valid."""
    now = time.time()
    spent = totp_code(ann.secret, at=now)
    assert sign_in_with_code(client, spent).status_code == 302
    client.logout()
    cache.clear()  # half a minute on: allauth's mark of the used code (30 s in the cache) is gone
    assert client.post("/accounts/login/", {"login": "ann", "password": PASSWORD})["Location"] == \
        "/accounts/2fa/authenticate/"
    wrong = f"{(int(spent) + 1) % 1_000_000:06d}"
    assert wrong not in {totp_code(ann.secret, at=now + 30 * step) for step in (-2, -1, 0, 1, 2)}
    for code in (wrong, wrong, spent, wrong, spent):  # five wrong codes, two of them the spent one
        assert client.post("/accounts/2fa/authenticate/", {"code": code}).status_code == 400
    # the next step's code, right, is refused: the wrong codes paused the account's codes
    refused = client.post("/accounts/2fa/authenticate/", {"code": totp_code(ann.secret, at=now + 30)})
    assert refused.status_code == 400 and "_auth_user_id" not in client.session

