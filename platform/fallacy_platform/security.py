"""Content-Security-Policy on every response (Django 5.2 has none built in).

``settings.CONTENT_SECURITY_POLICY``: scripts and styles from this origin only, nothing
inline, no frames, no plugins. The app (frontend/dist), the Swagger UI (split view: its
init script is a file) and the Django admin's scripts comply. The admin and
django-simple-history's history pages carry a few ``style`` attributes, so under
``ADMIN_URL`` styles may also be inline (scripts stay strict). A view that needs another
policy sets the header itself; it is then left alone.
"""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse

HEADER = "Content-Security-Policy"


def with_inline_styles(policy: str) -> str:
    directives = [d.strip() for d in policy.split(";") if d.strip()]
    out = []
    for directive in directives:
        if directive.split()[0] == "style-src" and "'unsafe-inline'" not in directive:
            directive += " 'unsafe-inline'"
        out.append(directive)
    return "; ".join(out)


class ContentSecurityPolicyMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response
        self.policy = settings.CONTENT_SECURITY_POLICY
        self.admin_policy = with_inline_styles(self.policy)
        self.admin_prefix = "/" + settings.ADMIN_URL

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if self.policy and HEADER not in response:
            admin = request.path.startswith(self.admin_prefix)
            response[HEADER] = self.admin_policy if admin else self.policy
        return response
