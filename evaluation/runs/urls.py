"""Routes of model runs: scoring, prompt variants, launch options, runs, the leaderboard,
imported outputs (mounted at /api/evaluation/)."""

from django.urls import path

from evaluation.runs import (
    api,
    imports_api,
    launch_options_api,
    preview_api,
    scores_api,
    variants_api,
)

urlpatterns = [
    path("score/", scores_api.ScoreView.as_view(), name="evaluation-score"),
    path("agreement/", scores_api.AgreementView.as_view(), name="evaluation-agreement"),
    path("variants/", variants_api.VariantListView.as_view(), name="evaluation-variants"),
    path(
        "variants/<int:pk>/",
        variants_api.VariantDetailView.as_view(),
        name="evaluation-variant-detail",
    ),
    path(
        "launch-options/",
        launch_options_api.LaunchOptionsView.as_view(),
        name="evaluation-launch-options",
    ),
    path(
        "launch-preview/",
        preview_api.LaunchPreviewView.as_view(),
        name="evaluation-launch-preview",
    ),
    path("runs/", api.RunListView.as_view(), name="evaluation-runs"),
    path("runs/<int:pk>/", api.RunDetailView.as_view(), name="evaluation-run-detail"),
    path("runs/<int:pk>/cancel/", api.RunCancelView.as_view(), name="evaluation-run-cancel"),
    path("runs/<int:pk>/resume/", api.RunResumeView.as_view(), name="evaluation-run-resume"),
    path(
        "runs/<int:pk>/rescore/",
        api.RunRescoreView.as_view(),
        name="evaluation-run-rescore",
    ),
    path(
        "runs/<int:pk>/requests/",
        api.RunRequestsView.as_view(),
        name="evaluation-run-requests",
    ),
    path("leaderboard/", api.LeaderboardView.as_view(), name="evaluation-leaderboard"),
    path(
        "projects/<int:pk>/run-imports/",
        imports_api.RunImportView.as_view(),
        name="evaluation-run-imports",
    ),
]
