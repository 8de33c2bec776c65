"""Content-Security-Policy on every response (Django 5.2 has none built in).

``settings.CONTENT_SECURITY_POLICY``: scripts and styles from this origin only, nothing
inline, no frames, no plugins. The app (frontend/dist), the Swagger UI (split view: its
init script is a file) and the Django admin's scripts comply. The admin and
django-simple-history's history pages carry a few ``style`` attributes, so under
``ADMIN_URL`` styles may also be inline (scripts stay strict). A view that needs another
policy sets the header itself; it is then left alone: the app shell
(``frontend_views.app``) adds a fresh nonce to ``style-src`` on each response, for the
``<style>`` elements its code editor writes (``with_style_nonce``).
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


def with_style_nonce(policy: str, nonce: str) -> str:
    """The policy with ``'nonce-…'`` added to its ``style-src`` (a copy of ``default-src``
    when it has none): ``<style>`` elements carrying that nonce apply, no other inline style.
    A ``style-src`` that already allows every inline style is left as it is (a nonce would
    turn its ``'unsafe-inline'`` off); so is a policy that restricts no style."""
    directives = [d.strip() for d in policy.split(";") if d.strip()]
    names = [d.split()[0].lower() for d in directives]
    source = f"'nonce-{nonce}'"
    if "style-src" in names:
        i = names.index("style-src")
        if "'unsafe-inline'" not in directives[i].split():
            directives[i] += f" {source}"
    elif "default-src" in names:
        sources = directives[names.index("default-src")].split()[1:]
        if "'unsafe-inline'" not in sources:
            directives.append(" ".join(["style-src", *sources, source]))
    return "; ".join(directives)


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
