"""Routes of an item project's results (mounted at /api/evaluation/)."""

from django.urls import path

from evaluation.items import api

urlpatterns = [
    path(
        "projects/<int:pk>/item-leaderboard/",
        api.ItemLeaderboardView.as_view(),
        name="evaluation-item-leaderboard",
    ),
]
