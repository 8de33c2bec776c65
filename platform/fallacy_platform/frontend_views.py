"""Serve the browser app: the Vite build's index.html for every client-side route.

Assets (frontend/dist/assets/…) are served by WhiteNoise under STATIC_URL; this view only
returns the HTML shell, with the CSRF cookie set so the app can make session writes, and a
``<meta name="fallacy-session">`` saying whether the request has a signed-in session, so the
app asks who is signed in only when someone is (no 403 in an anonymous visitor's console),
and a fresh style nonce: ``<meta property="csp-nonce" nonce="…">`` in the head, the same
nonce in the policy's ``style-src`` (the rule editor's CodeMirror writes ``<style>``
elements). The shell also answers unknown paths, with status 404
(``errors.page_not_found``): the app shows its own "page not found".
"""

import re
import secrets
from pathlib import Path

from django.conf import settings
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.templatetags.static import static
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import ensure_csrf_cookie

from fallacy_platform.security import HEADER as CSP_HEADER
from fallacy_platform.security import with_inline_styles, with_style_nonce

MISSING_BUILD = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Frontend not built</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:4rem auto;padding:0 1rem}
code{background:#f1f3f5;padding:2px 5px;border-radius:4px}</style></head>
<body><h1>The annotation app is not built yet</h1>
<p>The browser app lives in <code>frontend/</code> and must be built before Django can serve it.
Run <code>make install</code>
(or <code>cd frontend &amp;&amp; npm ci &amp;&amp; npm run build</code>),
then restart the server.</p>
<p>The REST API is available meanwhile at <a href="/api/docs/">/api/docs/</a>.</p></body></html>
"""


HEAD = re.compile(r"<head(\s[^>]*)?>", re.IGNORECASE)


def index_path() -> Path:
    return Path(settings.FRONTEND_DIST) / "index.html"


def with_nonce_meta(html: str, nonce: str) -> str:
    """The shell with the nonce first in its head, for scripts to read as ``meta.nonce``."""
    meta = f'\n    <meta property="csp-nonce" nonce="{nonce}" />'
    return HEAD.sub(lambda m: m.group(0) + meta, html, count=1)


@never_cache
@ensure_csrf_cookie
def app(request: HttpRequest, **kwargs) -> HttpResponse:
    try:
        html = index_path().read_text(encoding="utf-8")
    except FileNotFoundError:
        response = HttpResponse(MISSING_BUILD, status=503, content_type="text/html; charset=utf-8")
        # Its one <style> block is inline; it has no script.
        response[CSP_HEADER] = with_inline_styles(settings.CONTENT_SECURITY_POLICY)
        return response
    signed_in = "1" if request.user.is_authenticated else "0"
    hint = f'<meta name="fallacy-session" content="{signed_in}" />\n'
    html = html.replace("</head>", hint + "</head>", 1)
    nonce = secrets.token_urlsafe(18)
    response = HttpResponse(with_nonce_meta(html, nonce), content_type="text/html; charset=utf-8")
    if settings.CONTENT_SECURITY_POLICY:
        response[CSP_HEADER] = with_style_nonce(settings.CONTENT_SECURITY_POLICY, nonce)
    return response


def favicon(request: HttpRequest) -> HttpResponse:
    """``/favicon.ico``, which browsers ask for on pages without an icon link (the API's
    JSON, its docs): the build's icon (``frontend/public/favicon.ico``)."""
    return HttpResponseRedirect(static("favicon.ico"))
