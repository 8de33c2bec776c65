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


def test_unknown_paths_get_the_apps_404_page_and_api_paths_json(client, settings, tmp_path):
    (tmp_path / "index.html").write_text('<!doctype html><head></head><div id="app"></div>')
    settings.FRONTEND_DIST = tmp_path
    settings.DEBUG = False
    page = client.get("/no/such/page/")
    assert page.status_code == 404
    assert b'<div id="app">' in page.content  # the app shows its own "page not found"
    assert "csrftoken" in page.cookies
    api = client.get("/api/no/such/thing/")
    assert api.status_code == 404 and api.json() == {"detail": "Not found."}
    asset = client.get("/static/assets/missing.js")
    assert asset.status_code == 404 and b'<div id="app">' not in asset.content


@pytest.mark.django_db
def test_the_shell_says_whether_someone_is_signed_in(client, settings, tmp_path):
    from django.contrib.auth.models import User

    (tmp_path / "index.html").write_text('<!doctype html><head></head><div id="app"></div>')
    settings.FRONTEND_DIST = tmp_path
    hint = '<meta name="fallacy-session" content="{}" />'
    assert hint.format(0) in client.get("/").content.decode()
    client.force_login(User.objects.create_user("someone"))
    assert hint.format(1) in client.get("/").content.decode()


def test_favicon_ico_is_the_builds_icon(client):
    response = client.get("/favicon.ico")
    assert response.status_code == 302 and response["Location"] == "/static/favicon.ico"
