"""REST routes for running a project: assignment, document list, progress, annotations."""

from django.urls import path

from annotations.api import work_views

urlpatterns = [
    path(
        "projects/<int:pk>/assignments/",
        work_views.AssignView.as_view(),
        name="project-assignments",
    ),
    path(
        "projects/<int:pk>/assignments/unassign/",
        work_views.UnassignView.as_view(),
        name="project-assignments-unassign",
    ),
    path(
        "projects/<int:pk>/assignments/reassign/",
        work_views.ReassignView.as_view(),
        name="project-assignments-reassign",
    ),
    path(
        "projects/<int:pk>/progress/",
        work_views.ProjectProgressView.as_view(),
        name="project-progress",
    ),
    path("documents/<int:pk>/open/", work_views.DocumentOpenView.as_view(), name="document-open"),
    path(
        "documents/<int:pk>/annotations/",
        work_views.DocumentAnnotationsView.as_view(),
        name="document-annotations",
    ),
]
