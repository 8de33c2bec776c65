"""REST routes for setting a project up: projects, taxonomies, imports, members, users."""

from django.urls import path

from annotations.api import admin_views, import_views, invitation_views, label_studio_views

urlpatterns = [
    path("projects/", admin_views.ProjectListView.as_view(), name="project-list"),
    path("projects/<int:pk>/", admin_views.ProjectDetailView.as_view(), name="project-detail"),
    path("taxonomies/", admin_views.TaxonomyListView.as_view(), name="taxonomy-list"),
    path(
        "projects/<int:pk>/imports/inspect/",
        import_views.ImportInspectView.as_view(),
        name="project-import-inspect",
    ),
    path(
        "projects/<int:pk>/imports/label-studio/annotators/",
        label_studio_views.LabelStudioAnnotatorsView.as_view(),
        name="project-import-label-studio-annotators",
    ),
    path(
        "projects/<int:pk>/imports/",
        import_views.ProjectImportsView.as_view(),
        name="project-imports",
    ),
    path("imports/<int:pk>/", import_views.ImportJobView.as_view(), name="import-job"),
    path(
        "projects/<int:pk>/members/", admin_views.MemberListView.as_view(), name="project-members"
    ),
    path(
        "projects/<int:pk>/members/suggestions/",
        admin_views.MemberSuggestionsView.as_view(),
        name="project-member-suggestions",
    ),
    path(
        "projects/<int:pk>/members/<int:membership_id>/",
        admin_views.MemberDetailView.as_view(),
        name="project-member",
    ),
    path(
        "projects/<int:pk>/invitations/",
        invitation_views.ProjectInvitationsView.as_view(),
        name="project-invitations",
    ),
    path(
        "projects/<int:pk>/invitations/<int:invitation_id>/",
        invitation_views.ProjectInvitationView.as_view(),
        name="project-invitation",
    ),
    path("users/", admin_views.UserCreateView.as_view(), name="user-create"),
]
