"""REST routes for agreement figures (mounted at /api/evaluation/)."""

from django.urls import path  # noqa: F401

urlpatterns: list = []
