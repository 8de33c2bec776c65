"""REST routes for setting a project up: projects, taxonomies, imports, members, users."""

from django.urls import path  # noqa: F401

urlpatterns: list = []
