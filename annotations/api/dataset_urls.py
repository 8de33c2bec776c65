"""REST routes for dataset import and export."""

urlpatterns: list = []
