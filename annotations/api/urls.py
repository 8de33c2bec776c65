"""REST routes for auth, projects, documents, annotations and spans (mounted at /api/)."""

from django.urls import include, path

from annotations.api import auth_views, invitation_views, views, work_views

urlpatterns = [
    path("auth/csrf/", auth_views.CsrfView.as_view(), name="auth-csrf"),
    path("auth/login/", auth_views.LoginView.as_view(), name="auth-login"),
    path("auth/logout/", auth_views.LogoutView.as_view(), name="auth-logout"),
    path("auth/me/", auth_views.MeView.as_view(), name="auth-me"),
    path("auth/token/", auth_views.TokenView.as_view(), name="auth-token"),
    path(
        "invitations/<str:token>/",
        invitation_views.InvitationView.as_view(),
        name="invitation",
    ),
    path(
        "invitations/<str:token>/accept/",
        invitation_views.AcceptInvitationView.as_view(),
        name="invitation-accept",
    ),
    # projects/ and projects/<pk>/ are in admin_urls (they create and change projects too).
    path(
        "projects/<int:pk>/next-document/",
        views.NextDocumentView.as_view(),
        name="project-next-document",
    ),
    path(
        "projects/<int:pk>/documents/",
        work_views.ProjectDocumentListView.as_view(),
        name="project-documents",
    ),
    path("documents/<int:pk>/", views.DocumentDetailView.as_view(), name="document-detail"),
    path(
        "documents/<int:pk>/neighbours/",
        views.DocumentNeighboursView.as_view(),
        name="document-neighbours",
    ),
    path(
        "documents/<int:pk>/my-annotation/",
        views.MyAnnotationView.as_view(),
        name="document-my-annotation",
    ),
    path("annotations/<int:pk>/", views.AnnotationDetailView.as_view(), name="annotation-detail"),
    path(
        "annotations/<int:pk>/spans/", views.SpanListCreateView.as_view(), name="annotation-spans"
    ),
    path("annotations/<int:pk>/submit/", views.SubmitView.as_view(), name="annotation-submit"),
    path("annotations/<int:pk>/reopen/", views.ReopenView.as_view(), name="annotation-reopen"),
    path("spans/<int:pk>/", views.SpanDetailView.as_view(), name="span-detail"),
    # Project set-up: projects, taxonomies, imports, members, users.
    path("", include("annotations.api.admin_urls")),
    # Running the work: assignment, the document list, progress, a document's annotations.
    path("", include("annotations.api.work_urls")),
    # Review: adjudication, gold versions, a document's history.
    path("", include("annotations.api.gold_urls")),
    path("", include("annotations.api.item_urls")),  # item projects: form responses
]
