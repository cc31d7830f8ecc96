import pytest


@pytest.fixture
def staff(django_user_model):
    return django_user_model.objects.create_user(username="ann", password="pw-ann-staff", is_staff=True)


@pytest.fixture
def staff_client(client, staff):
    client.force_login(staff)
    return client
