"""Routes of the browser app (the Vite build of frontend/).

Every client-side route gets the same HTML shell; the app's router picks the page.
"""

from django.urls import path

from fallacy_platform.frontend_views import app, favicon

urlpatterns = [
    path("", app, name="app-home"),
    path("favicon.ico", favicon, name="favicon"),
    path("login/", app, name="app-login"),
    path("invite/<str:token>/", app, name="app-invite"),
    path("projects/new/", app, name="app-project-new"),
    path("projects/<int:project_id>/", app, name="app-project"),
    path("projects/<int:project_id>/settings/", app, name="app-project-settings"),
    path("projects/<int:project_id>/import/", app, name="app-project-import"),
    path("projects/<int:project_id>/members/", app, name="app-project-members"),
    path("projects/<int:project_id>/assign/", app, name="app-project-assign"),
    path("projects/<int:project_id>/suggestions/", app, name="app-project-suggestions"),
    path("documents/<int:document_id>/", app, name="app-document"),
    path("projects/<int:project_id>/runs/", app, name="app-runs"),
    path("projects/<int:project_id>/runs/new/", app, name="app-launch"),
    path("projects/<int:project_id>/leaderboard/<int:gold_id>/", app, name="app-leaderboard"),
    path("runs/<int:run_id>/", app, name="app-run"),
    path("projects/<int:project_id>/review/", app, name="app-review"),
    path("projects/<int:project_id>/adjudication/", app, name="app-adjudication-queue"),
    path(
        "projects/<int:project_id>/adjudication/<int:document_id>/",
        app,
        name="app-adjudicate",
    ),
    path("projects/<int:project_id>/gold/", app, name="app-gold-versions"),
    path("projects/<int:project_id>/gold/<int:version>/", app, name="app-gold-version"),
    path("documents/<int:document_id>/history/", app, name="app-document-history"),
    path("projects/<int:project_id>/results/", app, name="app-results"),
    path("generation/", app, name="app-generation"),
    path("generation/new/", app, name="app-generation-new"),
    path("generation/rules/", app, name="app-generation-rules"),
    path("generation/jobs/<int:job_id>/", app, name="app-generation-job"),
]
