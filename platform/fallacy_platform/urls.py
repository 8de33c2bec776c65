from django.conf import settings
from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

urlpatterns = [
    path(settings.ADMIN_URL, admin.site.urls),  # ADMIN_URL, default admin/
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    # The split view serves its init script as a file (?script), so no inline script: CSP.
    path("api/docs/", SpectacularSwaggerSplitView.as_view(url_name="schema"), name="api-docs"),
    path("api/", include("annotations.api.urls")),
    path("api/datasets/", include("annotations.api.dataset_urls")),
    path("api/evaluation/", include("evaluation.urls")),
    path("", include("fallacy_platform.frontend_urls")),
]

handler400 = "fallacy_platform.errors.bad_request"
handler403 = "fallacy_platform.errors.permission_denied"
handler404 = "fallacy_platform.errors.page_not_found"
handler500 = "fallacy_platform.errors.server_error"
