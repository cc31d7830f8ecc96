"""The shop's account: Django's user with a customer ID that is never reused.

Orders live in DynamoDB under CUSTOMER#<customer_id>, a random UUID given at creation: a recreated
database or a second app server can hand out row number 1 again, never the same UUID."""
import uuid

from django.conf import settings
from django.contrib.auth.models import AbstractUser, UserManager
from django.db import models
from django.db.models import F
from django.db.models.functions import Lower
from django.utils.crypto import salted_hmac


class User(AbstractUser):
    customer_id = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    name = models.CharField("name", max_length=150, blank=True)
    # The delivery address of the last order (name, street, postcode, city, country), to fill in the
    # next checkout. Each order item in DynamoDB keeps its own copy.
    last_address = models.JSONField(default=dict, blank=True)
    # Raised when a second factor is added or removed: it is part of the session auth hash (as the
    # password is), so Django's own check at each request ends every session signed in before it.
    session_epoch = models.PositiveIntegerField(default=0, editable=False)

    objects = UserManager()

    class Meta(AbstractUser.Meta):
        swappable = "AUTH_USER_MODEL"
        constraints = [
            models.UniqueConstraint(
                Lower("email"), name="shop_user_email_unique_ci", condition=~models.Q(email=""),
                violation_error_message="An account with this email address already exists.",
            ),
        ]

    def _epoch_hash(self, password_hash: str, secret: str | None = None) -> str:
        if not self.session_epoch:
            return password_hash  # an account whose factors never changed keeps Django's own hash
        key_salt = "shop.User.get_session_auth_hash"
        return salted_hmac(key_salt, f"{password_hash}:{self.session_epoch}", secret=secret,
                           algorithm="sha256").hexdigest()

    def get_session_auth_hash(self) -> str:
        return self._epoch_hash(super().get_session_auth_hash())

    def get_session_auth_fallback_hash(self):
        for secret, password_hash in zip(settings.SECRET_KEY_FALLBACKS, super().get_session_auth_fallback_hash()):
            yield self._epoch_hash(password_hash, secret)

    def end_other_sessions(self) -> None:
        """Every session of this account signs out at its next request (the caller keeps its own with
        django.contrib.auth.update_session_auth_hash)."""
        type(self).objects.filter(pk=self.pk).update(session_epoch=F("session_epoch") + 1)
        self.refresh_from_db(fields=["session_epoch"])

    @property
    def display_name(self):
        return self.name or self.get_username()

    @property
    def customer_key_id(self):
        """The ID the DynamoDB gateway keys this customer's orders on."""
        return str(self.customer_id)
