"""Routes of the browser app (the Vite build of frontend/)."""

urlpatterns: list = []
