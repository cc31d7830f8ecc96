import pytest


@pytest.fixture(autouse=True)
def _staff_without_second_factor(settings):
    """The staff pages' browser tests sign in with a password (or force_login): the second factor is
    not what they test; tests/browser/test_two_factor.py is, with STAFF_MFA_REQUIRED on."""
    settings.STAFF_MFA_REQUIRED = False


@pytest.fixture
def shop(catalog, live_server):
    """The live site (pytest-django's live server) on the small catalog (moto): its address. A test file
    adds its accounts and settings by a `shop` fixture of its own that takes this one."""
    return live_server.url
