"""REST routes for adjudication, gold versions and document history (mounted at /api/)."""

from django.urls import path

from annotations.api import gold_views

urlpatterns = [
    path("projects/<int:pk>/gold/", gold_views.GoldVersionsView.as_view(), name="project-gold"),
    path(
        "projects/<int:pk>/gold/publish/",
        gold_views.PublishView.as_view(),
        name="project-gold-publish",
    ),
    path(
        "projects/<int:pk>/gold/<int:version>/",
        gold_views.GoldVersionView.as_view(),
        name="project-gold-version",
    ),
    path(
        "projects/<int:pk>/gold/<int:version>/export/",
        gold_views.GoldExportView.as_view(),
        name="project-gold-export",
    ),
    path(
        "projects/<int:pk>/adjudication/",
        gold_views.AdjudicationQueueView.as_view(),
        name="project-adjudication",
    ),
    path(
        "documents/<int:pk>/adjudication/",
        gold_views.DocumentAdjudicationView.as_view(),
        name="document-adjudication",
    ),
    path(
        "documents/<int:pk>/adjudication/neighbours/",
        gold_views.AdjudicationNeighboursView.as_view(),
        name="document-adjudication-neighbours",
    ),
    path(
        "documents/<int:pk>/history/",
        gold_views.DocumentHistoryView.as_view(),
        name="document-history",
    ),
]
