"""REST routes for running a project: assignment, document list, progress, annotations."""

from django.urls import path  # noqa: F401

urlpatterns: list = []
