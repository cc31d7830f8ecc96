import pytest


@pytest.fixture(autouse=True)
def _staff_sign_in_with_force_login(settings):
    """These tests sign staff in with force_login: the second factor is not what they test
    (tests/staff/test_second_factor.py is, with STAFF_MFA_REQUIRED on)."""
    settings.STAFF_MFA_REQUIRED = False


@pytest.fixture
def staff(django_user_model):
    return django_user_model.objects.create_user(username="ann", password="pw-ann-staff", is_staff=True)


@pytest.fixture
def staff_client(client, staff):
    client.force_login(staff)
    return client
