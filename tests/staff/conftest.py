import pytest

from tests.helpers import sign_in_staff, warehouse_staff


@pytest.fixture
def staff(django_user_model):
    return warehouse_staff(django_user_model.objects.create_user(
        username="ann", password="pw-ann-staff", is_staff=True))


@pytest.fixture
def staff_client(client, staff):
    """Signed in with the second factor, as staff pages ask (STAFF_MFA_REQUIRED, on by default)."""
    return sign_in_staff(client, staff)
