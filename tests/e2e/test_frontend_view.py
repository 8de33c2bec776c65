"""The Django view serving the app shell (no browser needed)."""

from __future__ import annotations

import pytest


@pytest.mark.parametrize("path", ["/", "/login/", "/projects/3/", "/documents/12/"])
def test_app_shell_served_with_csrf_cookie(client, settings, tmp_path, path):
    (tmp_path / "index.html").write_text('<!doctype html><div id="app"></div>')
    settings.FRONTEND_DIST = tmp_path
    response = client.get(path)
    assert response.status_code == 200
    assert b'<div id="app">' in response.content
    assert "csrftoken" in response.cookies
    assert "no-cache" in response["Cache-Control"]


def test_missing_build_explains_how_to_build(client, settings, tmp_path):
    settings.FRONTEND_DIST = tmp_path / "nothing-here"
    response = client.get("/")
    assert response.status_code == 503
    assert b"make install" in response.content
    assert b"npm run build" in response.content


def test_api_and_admin_are_not_shadowed(client):
    assert client.get("/api/auth/me/").status_code in (401, 403)
    assert client.get("/admin/login/").status_code == 200
