"""REST routes for scoring and evaluation (mounted at /api/evaluation/)."""

from django.urls import path

from evaluation import api

urlpatterns = [
    path("score/", api.ScoreView.as_view(), name="evaluation-score"),
    path("agreement/", api.AgreementView.as_view(), name="evaluation-agreement"),
    path("runs/", api.RunListView.as_view(), name="evaluation-runs"),
    path("runs/<int:pk>/", api.RunDetailView.as_view(), name="evaluation-run-detail"),
]
