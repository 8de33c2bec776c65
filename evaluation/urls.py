"""REST routes for scoring and evaluation."""

urlpatterns: list = []
