"""The shop's account: Django's user with a customer ID that is never reused.

Orders live in DynamoDB under CUSTOMER#<customer_id>, a random UUID given at creation: a recreated
database or a second app server can hand out row number 1 again, never the same UUID."""
import uuid

from django.contrib.auth.models import AbstractUser, UserManager
from django.db import models
from django.db.models.functions import Lower


class User(AbstractUser):
    customer_id = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    name = models.CharField("name", max_length=150, blank=True)
    # The delivery address of the last order (name, street, postcode, city, country), to fill in the
    # next checkout. Each order item in DynamoDB keeps its own copy.
    last_address = models.JSONField(default=dict, blank=True)

    objects = UserManager()

    class Meta(AbstractUser.Meta):
        swappable = "AUTH_USER_MODEL"
        constraints = [
            models.UniqueConstraint(
                Lower("email"), name="shop_user_email_unique_ci", condition=~models.Q(email=""),
                violation_error_message="An account with this email address already exists.",
            ),
        ]

    @property
    def display_name(self):
        return self.name or self.get_username()

    @property
    def customer_key_id(self):
        """The ID the DynamoDB gateway keys this customer's orders on."""
        return str(self.customer_id)
