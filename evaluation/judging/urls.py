"""Routes of judge runs and rating agreement (mounted at /api/evaluation/)."""

from django.urls import path

from evaluation.judging import api, ratings_api

urlpatterns = [
    path("judges/", api.JudgeLaunchView.as_view(), name="evaluation-judge-launch"),
    path(
        "projects/<int:pk>/ratings/",
        ratings_api.ProjectRatingsView.as_view(),
        name="evaluation-project-ratings",
    ),
]
