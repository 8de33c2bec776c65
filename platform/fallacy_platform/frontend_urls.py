"""Routes of the browser app (the Vite build of frontend/).

Every client-side route gets the same HTML shell; the app's router picks the page.
"""

from django.urls import path

from fallacy_platform.frontend_views import app

urlpatterns = [
    path("", app, name="app-home"),
    path("login/", app, name="app-login"),
    path("projects/<int:project_id>/", app, name="app-project"),
    path("documents/<int:document_id>/", app, name="app-document"),
]
