"""REST routes for projects, documents, annotations and spans."""

urlpatterns: list = []
