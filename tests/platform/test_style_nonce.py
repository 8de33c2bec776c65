"""The app shell's style nonce (no browser): a fresh one per response, in the policy's
style-src and in the page's head; scripts stay 'self' only and no inline style is allowed."""

from __future__ import annotations

import re

from fallacy_platform.security import with_style_nonce

SHELL = '<!doctype html><html><head><meta charset="utf-8" /></head><body><div id="app"></div>'


def shell(client, settings, tmp_path):
    (tmp_path / "index.html").write_text(SHELL)
    settings.FRONTEND_DIST = tmp_path
    return client.get("/projects/1/")


def test_each_shell_gets_its_own_nonce_in_policy_and_head(client, settings, tmp_path):
    nonces = []
    for _ in range(2):
        response = shell(client, settings, tmp_path)
        policy = response["Content-Security-Policy"]
        nonce = re.search(r"style-src 'self' 'nonce-([A-Za-z0-9_-]{20,})'", policy).group(1)
        head = f'<head>\n    <meta property="csp-nonce" nonce="{nonce}" /><meta charset="utf-8" />'
        assert head in response.content.decode()
        assert "script-src 'self';" in policy and "unsafe-inline" not in policy
        nonces.append(nonce)
    assert nonces[0] != nonces[1]


def test_other_responses_keep_the_plain_policy(client):
    policy = client.get("/api/auth/me/")["Content-Security-Policy"]
    assert "nonce-" not in policy and "style-src 'self'" in policy


def test_policy_shapes():
    assert with_style_nonce("default-src 'self'; style-src 'self'", "n1") == (
        "default-src 'self'; style-src 'self' 'nonce-n1'"
    )
    # no style-src: default-src's sources plus the nonce
    assert with_style_nonce("default-src 'self' data:; img-src *", "n2") == (
        "default-src 'self' data:; img-src *; style-src 'self' data: 'nonce-n2'"
    )
    # already every inline style, or no restriction at all: left as it is
    inline = "style-src 'self' 'unsafe-inline'"
    assert with_style_nonce(inline, "n3") == inline
    assert with_style_nonce("img-src 'self'", "n4") == "img-src 'self'"
