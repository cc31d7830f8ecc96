"""allauth's pages answer a refused form with 200; the shop answers bad input with 400 (the guide's
rule, and what the shop's own forms do). Its views return TemplateResponses, so the status can be set
from the form they render, before rendering."""
from django.forms import BaseForm

ALLAUTH_VIEWS = ("allauth.",)


class AccountFormErrorsMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_view(self, request, view_func, view_args, view_kwargs):
        module = getattr(getattr(view_func, "view_class", view_func), "__module__", "") or ""
        request.allauth_view = module.startswith(ALLAUTH_VIEWS)

    def process_template_response(self, request, response):
        if request.method == "POST" and getattr(request, "allauth_view", False) and response.status_code == 200:
            forms = [v for v in (response.context_data or {}).values() if isinstance(v, BaseForm)]
            if any(form.is_bound and form.errors for form in forms):
                response.status_code = 400
        return response
