"""Routes of suggestions (mounted at /api/evaluation/)."""

from django.urls import path

from evaluation.suggestions import api

urlpatterns = [
    path(
        "projects/<int:pk>/suggestions/",
        api.CreateSuggestionsView.as_view(),
        name="evaluation-suggestions-create",
    ),
    path(
        "projects/<int:pk>/suggestions/settings/",
        api.AssistedView.as_view(),
        name="evaluation-suggestions-settings",
    ),
    path(
        "projects/<int:pk>/suggestions/report/",
        api.SuggestionReportView.as_view(),
        name="evaluation-suggestions-report",
    ),
    path(
        "documents/<int:pk>/suggestions/",
        api.DocumentSuggestionsView.as_view(),
        name="evaluation-document-suggestions",
    ),
    path(
        "documents/<int:pk>/suggestions/accept-sentence/",
        api.AcceptSentenceView.as_view(),
        name="evaluation-suggestions-accept-sentence",
    ),
    path(
        "suggestions/<int:pk>/decision/",
        api.DecisionView.as_view(),
        name="evaluation-suggestion-decision",
    ),
]
