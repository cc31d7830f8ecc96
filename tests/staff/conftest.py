import pytest


@pytest.fixture(autouse=True)
def _staff_sign_in_with_force_login(settings):
    """These tests sign staff in with force_login: the second factor is not what they test
    (tests/staff/test_second_factor.py is, with STAFF_MFA_REQUIRED on)."""
    settings.STAFF_MFA_REQUIRED = False
