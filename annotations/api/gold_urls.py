"""REST routes for adjudication, gold versions and document history (mounted at /api/)."""

from django.urls import path  # noqa: F401

urlpatterns: list = []
