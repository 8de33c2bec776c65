"""REST routes for scoring and evaluation (mounted at /api/evaluation/)."""

from django.urls import include, path

from evaluation.runs import api as api_runs
from evaluation.runs import scores_api as api

urlpatterns = [
    path("score/", api.ScoreView.as_view(), name="evaluation-score"),
    path("agreement/", api.AgreementView.as_view(), name="evaluation-agreement"),
    path("variants/", api_runs.VariantListView.as_view(), name="evaluation-variants"),
    path(
        "variants/<int:pk>/",
        api_runs.VariantDetailView.as_view(),
        name="evaluation-variant-detail",
    ),
    path(
        "launch-options/",
        api_runs.LaunchOptionsView.as_view(),
        name="evaluation-launch-options",
    ),
    path("runs/", api_runs.RunListView.as_view(), name="evaluation-runs"),
    path("runs/<int:pk>/", api_runs.RunDetailView.as_view(), name="evaluation-run-detail"),
    path("runs/<int:pk>/cancel/", api_runs.RunCancelView.as_view(), name="evaluation-run-cancel"),
    path("runs/<int:pk>/resume/", api_runs.RunResumeView.as_view(), name="evaluation-run-resume"),
    path(
        "runs/<int:pk>/rescore/",
        api_runs.RunRescoreView.as_view(),
        name="evaluation-run-rescore",
    ),
    path(
        "runs/<int:pk>/requests/",
        api_runs.RunRequestsView.as_view(),
        name="evaluation-run-requests",
    ),
    path("leaderboard/", api_runs.LeaderboardView.as_view(), name="evaluation-leaderboard"),
    # Agreement figures of a project, computed by Celery tasks and cached.
    path("", include("evaluation.agreement.urls")),
    path("", include("evaluation.judging.api")),  # judge launch; rating agreement
    path("", include("evaluation.items.api")),  # item projects' results
    path("", include("evaluation.suggestions.api")),  # model suggestions to annotators
    path("", include("evaluation.synthesis.rules_api")),  # Prolog rule files (generation)
    path("", include("evaluation.synthesis.api")),  # generation jobs, review, report
]
