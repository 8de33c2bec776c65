"""REST routes of the evaluation app (mounted at /api/evaluation/): each domain's ``urls``."""

from django.urls import include, path

urlpatterns = [
    path("", include("evaluation.runs.urls")),  # scoring, variants, runs, leaderboard
    path("", include("evaluation.agreement.urls")),  # a project's agreement figures
    path("", include("evaluation.judging.urls")),  # judge launch; rating agreement
    path("", include("evaluation.items.urls")),  # item projects' results
    path("", include("evaluation.suggestions.urls")),  # model suggestions to annotators
    path("", include("evaluation.synthesis.urls")),  # Prolog rule files, generation jobs
]
