"""Route x role -> allowed: the declared table ``test_route_roles`` checks every API route
against, as every role, on its seeded world (project P1; ``other_admin`` administers another
project; ``superuser`` holds no membership)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

ROLES = ("anonymous", "annotator", "reviewer", "admin", "other_admin", "superuser")

NOBODY: frozenset[str] = frozenset()
EVERYONE = frozenset(ROLES)
USERS = EVERYONE - {"anonymous"}
MEMBERS = frozenset({"annotator", "reviewer", "admin", "superuser"})  # of P1 (or all-seeing)
STAFF = frozenset({"reviewer", "admin", "superuser"})  # P1's reviewers and admins
ADMINS = frozenset({"admin", "superuser"})  # P1's admins
SUPERUSER = frozenset({"superuser"})
STAFF_ANYWHERE = frozenset({"reviewer", "admin", "other_admin", "superuser"})
ADMINS_ANYWHERE = frozenset({"admin", "other_admin", "superuser"})


@dataclass(frozen=True)
class Case:
    """One call: who may make it, its query string and body (``{project}`` etc. name the
    world's objects, ``{me}`` the caller); ``params``: path parameters naming other objects
    than the default ones (``{"project": "item_project"}``)."""

    allowed: frozenset[str]
    query: str = ""
    body: dict[str, Any] = field(default_factory=dict)
    params: dict[str, str] = field(default_factory=dict)


ANNOTATOR = frozenset({"annotator"})  # the annotator the document is assigned to, or whose it is
ITEMS = {"project": "item_project", "document": "item_document"}

TABLE: dict[str, Case | tuple[Case, ...]] = {
    # --- signing in: anyone ---------------------------------------------------------------
    "GET api/auth/csrf/": Case(EVERYONE),
    "POST api/auth/login/": Case(EVERYONE),  # bad credentials: 400
    "POST api/auth/logout/": Case(EVERYONE),
    "POST api/auth/token/": Case(EVERYONE),
    "GET api/auth/me/": Case(USERS),
    "GET api/schema/": Case(EVERYONE),
    "GET api/docs/": Case(EVERYONE),
    # an invitation's holder: anyone with its link
    "GET api/invitations/<str:token>/": Case(EVERYONE),
    "POST api/invitations/<str:token>/accept/": Case(
        EVERYONE, body={"username": "newcomer", "password": "a-long-new-password-1"}
    ),
    # --- projects, members, imports, taxonomies, accounts -------------------------------------
    "GET api/projects/": Case(USERS),  # each user's own
    "POST api/projects/": Case(SUPERUSER),  # superusers and Django staff users
    "GET api/projects/<int:pk>/": Case(MEMBERS),
    "PATCH api/projects/<int:pk>/": Case(ADMINS),
    "GET api/projects/<int:pk>/members/": Case(STAFF),
    "POST api/projects/<int:pk>/members/": Case(ADMINS),
    "GET api/projects/<int:pk>/members/suggestions/": Case(ADMINS, query="?q=an"),
    "PATCH api/projects/<int:pk>/members/<int:membership_id>/": Case(
        ADMINS, body={"role": "reviewer"}
    ),
    "DELETE api/projects/<int:pk>/members/<int:membership_id>/": Case(ADMINS),
    "GET api/projects/<int:pk>/invitations/": Case(ADMINS),
    "POST api/projects/<int:pk>/invitations/": Case(ADMINS),
    "DELETE api/projects/<int:pk>/invitations/<int:invitation_id>/": Case(ADMINS),
    "GET api/projects/<int:pk>/imports/": Case(ADMINS),
    "POST api/projects/<int:pk>/imports/": Case(ADMINS),
    "POST api/projects/<int:pk>/imports/inspect/": Case(ADMINS),
    "POST api/projects/<int:pk>/imports/label-studio/annotators/": Case(ADMINS),
    "GET api/imports/<int:pk>/": Case(ADMINS),
    "GET api/taxonomies/": Case(ADMINS_ANYWHERE),
    "POST api/taxonomies/": Case(ADMINS_ANYWHERE),
    "POST api/users/": Case(SUPERUSER),
    # --- the work: assignment, documents, annotations, spans, item responses ------------------
    "POST api/projects/<int:pk>/assignments/": Case(ADMINS),
    "POST api/projects/<int:pk>/assignments/unassign/": Case(ADMINS),
    "POST api/projects/<int:pk>/assignments/reassign/": Case(ADMINS),
    "GET api/projects/<int:pk>/documents/": Case(MEMBERS),
    "GET api/projects/<int:pk>/progress/": Case(MEMBERS),
    "GET api/projects/<int:pk>/next-document/": Case(MEMBERS),
    "GET api/documents/<int:pk>/": Case(MEMBERS),
    "GET api/documents/<int:pk>/open/": Case(MEMBERS),
    "GET api/documents/<int:pk>/neighbours/": Case(MEMBERS),
    "GET api/documents/<int:pk>/annotations/": Case(MEMBERS),
    # one's own annotation of a document assigned to one
    "GET api/documents/<int:pk>/my-annotation/": Case(ANNOTATOR),
    "POST api/documents/<int:pk>/my-annotation/": Case(ANNOTATOR),
    "GET api/annotations/<int:pk>/": Case(MEMBERS),  # the annotator's: staff read it too
    "GET api/annotations/<int:pk>/spans/": Case(MEMBERS),
    "POST api/annotations/<int:pk>/spans/": Case(
        ANNOTATOR, body={"start": 0, "end": 11, "labels": ["ad hominem"]}
    ),
    "POST api/annotations/<int:pk>/submit/": Case(ANNOTATOR, body={"revision": 1}),
    "POST api/annotations/<int:pk>/reopen/": Case(STAFF, body={"revision": 1}),
    "GET api/spans/<int:pk>/": Case(MEMBERS),
    "PATCH api/spans/<int:pk>/": Case(ANNOTATOR, body={"revision": 1, "end": 12}),
    "DELETE api/spans/<int:pk>/": Case(ANNOTATOR, query="?revision=1"),
    "GET api/documents/<int:pk>/response/": Case(MEMBERS, params=ITEMS),
    "PATCH api/documents/<int:pk>/response/": Case(
        ANNOTATOR, body={"revision": 1, "response": {"fallacious": True}}, params=ITEMS
    ),
    "PUT api/documents/<int:pk>/response/": Case(
        ANNOTATOR, body={"revision": 1, "response": {"fallacious": True}}, params=ITEMS
    ),
    # one's own response: a member who has none is told "nothing answered yet" (400)
    "POST api/documents/<int:pk>/response/submit/": Case(
        MEMBERS, body={"revision": 1}, params=ITEMS
    ),
    "POST api/documents/<int:pk>/response/reopen/": Case(
        STAFF, body={"annotator": "{annotator}"}, params=ITEMS
    ),
    # --- review: adjudication, gold versions, history -----------------------------------------
    "GET api/projects/<int:pk>/adjudication/": Case(STAFF),
    "GET api/documents/<int:pk>/adjudication/": Case(STAFF),
    "PUT api/documents/<int:pk>/adjudication/": Case(STAFF),
    "GET api/documents/<int:pk>/adjudication/neighbours/": Case(STAFF),
    "GET api/documents/<int:pk>/history/": Case(STAFF),
    "GET api/projects/<int:pk>/gold/": Case(STAFF),
    "POST api/projects/<int:pk>/gold/publish/": Case(STAFF),
    "GET api/projects/<int:pk>/gold/<int:version>/": Case(STAFF),
    "GET api/projects/<int:pk>/gold/<int:version>/export/": Case(STAFF),
    # --- datasets ----------------------------------------------------------------------------
    "POST api/datasets/import/": Case(ADMINS, body={"project": "{project}", "format": "text"}),
    "GET api/datasets/export/": (
        # reviewers read every annotation of the project, so they export any annotator's
        Case(STAFF, query="?project={project}&format=doccano&annotator={annotator2}"),
        Case(MEMBERS, query="?project={project}&format=doccano&annotator={me}"),
        Case(STAFF, query="?project={project}&format=mafalda"),
        Case(STAFF, query="?project={project}&format=items", params=ITEMS),
    ),
    # --- evaluation: scores, variants, runs, the leaderboard ----------------------------------
    "POST api/evaluation/score/": Case(STAFF, body={"gold_standard": "{gold}", "run": "{run}"}),
    "GET api/evaluation/agreement/": Case(STAFF, query="?gold_standard={gold}"),
    "GET api/evaluation/leaderboard/": Case(STAFF, query="?gold_standard={gold}"),
    "GET api/evaluation/variants/": Case(STAFF_ANYWHERE),
    "POST api/evaluation/variants/": Case(ADMINS, body={"project": "{project}"}),
    "GET api/evaluation/variants/<int:pk>/": Case(STAFF),
    "GET api/evaluation/launch-options/": Case(STAFF, query="?project={project}"),
    "GET api/evaluation/launch-preview/": Case(STAFF, query="?gold_standard={gold}"),
    "GET api/evaluation/runs/": Case(USERS),  # each user's visible runs
    "POST api/evaluation/runs/": Case(ADMINS, body={"project": "{project}"}),
    "GET api/evaluation/runs/<int:pk>/": Case(STAFF),
    "GET api/evaluation/runs/<int:pk>/requests/": Case(STAFF),
    "POST api/evaluation/runs/<int:pk>/cancel/": Case(ADMINS),
    "POST api/evaluation/runs/<int:pk>/resume/": Case(ADMINS),
    "POST api/evaluation/runs/<int:pk>/rescore/": Case(ADMINS),
    "POST api/evaluation/projects/<int:pk>/run-imports/": Case(ADMINS),
    "POST api/evaluation/judges/": Case(ADMINS, body={"project": "{project}"}),
    "GET api/evaluation/projects/<int:pk>/agreement/": Case(STAFF),
    "GET api/evaluation/projects/<int:pk>/ratings/": Case(STAFF, params=ITEMS),
    "GET api/evaluation/projects/<int:pk>/item-leaderboard/": Case(STAFF, params=ITEMS),
    # --- suggestions -------------------------------------------------------------------------
    "GET api/evaluation/projects/<int:pk>/suggestions/settings/": Case(MEMBERS),
    "PUT api/evaluation/projects/<int:pk>/suggestions/settings/": Case(ADMINS),
    "POST api/evaluation/projects/<int:pk>/suggestions/": Case(ADMINS),
    "GET api/evaluation/projects/<int:pk>/suggestions/report/": Case(STAFF),
    "GET api/evaluation/documents/<int:pk>/suggestions/": Case(MEMBERS),  # P1 is assisted
    "POST api/evaluation/documents/<int:pk>/suggestions/accept-sentence/": Case(
        ANNOTATOR, body={"unit_index": 0}
    ),
    "POST api/evaluation/suggestions/<int:pk>/decision/": Case(
        ANNOTATOR, body={"decision": "reject"}
    ),
    # --- rule files, generation -------------------------------------------------------------
    "GET api/evaluation/prolog-rules/": Case(STAFF_ANYWHERE),
    "POST api/evaluation/prolog-rules/": Case(ADMINS, body={"project": "{project}"}),
    "GET api/evaluation/prolog-rules/<int:pk>/": Case(STAFF),
    "GET api/evaluation/generation-jobs/": Case(USERS),  # each user's visible jobs
    "POST api/evaluation/generation-jobs/": Case(ADMINS, body={"project": "P1"}),
    "GET api/evaluation/generation-jobs/<int:pk>/": Case(STAFF),
    "GET api/evaluation/generation-jobs/<int:pk>/items/": Case(STAFF),
    "POST api/evaluation/generation-items/<int:pk>/review/": Case(STAFF),
    "GET api/evaluation/projects/<int:pk>/generation-releases/": Case(STAFF),
    "POST api/evaluation/projects/<int:pk>/generation-releases/": Case(ADMINS),
    "GET api/evaluation/generation-report/": Case(USERS),  # each user's visible jobs
    "GET api/evaluation/generation-credentials/": Case(ADMINS_ANYWHERE),
    "GET api/evaluation/generation-options/": Case(ADMINS_ANYWHERE),
}
