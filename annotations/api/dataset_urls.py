"""REST routes for dataset import and export (mounted at /api/datasets/)."""

from django.urls import path

from annotations.api.dataset_views import DatasetExportView, DatasetImportView

urlpatterns = [
    path("import/", DatasetImportView.as_view(), name="dataset-import"),
    path("export/", DatasetExportView.as_view(), name="dataset-export"),
]
