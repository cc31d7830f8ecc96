from django.contrib.auth import views as auth_views
from django.urls import include, path
from django.views.generic import TemplateView

urlpatterns = [
    path("accounts/login/", auth_views.LoginView.as_view(redirect_authenticated_user=True), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("", include("shop.urls")),
    path("staff/", include("staff.urls")),
    # The footer's pages: plain templates (TemplateView answers GET and HEAD).
    path("contact/", TemplateView.as_view(template_name="pages/contact.html"), name="contact"),
    path("returns/", TemplateView.as_view(template_name="pages/returns.html"), name="returns"),
    path("terms/", TemplateView.as_view(template_name="pages/terms.html"), name="terms"),
    path("", include("catalog.urls")),
]
