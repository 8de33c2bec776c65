from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="schema"), name="api-docs"),
    path("api/", include("annotations.api.urls")),
    path("api/datasets/", include("annotations.api.dataset_urls")),
    path("api/evaluation/", include("evaluation.urls")),
    path("", include("fallacy_platform.frontend_urls")),
]
