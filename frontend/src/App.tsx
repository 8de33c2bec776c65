import type { ComponentChildren } from "preact";
import { useEffect, useState } from "preact/hooks";
import { get, isAuthError } from "./api";
import { linkHandler, match, navigate, usePath } from "./router";
import type { Me } from "./types";
import { LoginPage } from "./pages/Login";
import { InvitePage } from "./pages/InvitePage";
import { HomePage } from "./pages/Home";
import { ProjectPage } from "./pages/project/ProjectPage";
import { AnnotatePage } from "./pages/annotate/AnnotatePage";
import { TopBar } from "./components/TopBar";
import { ForbiddenMessage, NotFoundMessage } from "./components/PageMessage";
import { clearPrefetch } from "./prefetch";
import { canCreateProjects, isProjectAdmin, isProjectStaff } from "./lib/roles";
import { lazyComponent } from "./components/Lazy";
import { signedInHint } from "./session";

// The evaluation pages (and Chart.js, on the leaderboard) load on demand.
const evaluation = () => import("./pages/evaluation");
const RunsPage = lazyComponent(() => evaluation().then((m) => m.RunsPage));
const LaunchPage = lazyComponent(() => evaluation().then((m) => m.LaunchPage));
const RunPage = lazyComponent(() => evaluation().then((m) => m.RunPage));
const LeaderboardPage = lazyComponent(() => evaluation().then((m) => m.LeaderboardPage));
// The project-admin pages (create, settings, import, members, assignment) likewise.
const projectAdmin = () => import("./pages/admin");
const NewProjectPage = lazyComponent(() => projectAdmin().then((m) => m.NewProjectPage));
const ProjectSettingsPage = lazyComponent(() => projectAdmin().then((m) => m.ProjectSettingsPage));
const ImportPage = lazyComponent(() => projectAdmin().then((m) => m.ImportPage));
const MembersPage = lazyComponent(() => projectAdmin().then((m) => m.MembersPage));
const AssignPage = lazyComponent(() => projectAdmin().then((m) => m.AssignPage));
const SuggestionsAdminPage = lazyComponent(() => projectAdmin().then((m) => m.SuggestionsAdminPage));
// The review pages (agreement dashboard, adjudication, gold versions, history): staff only.
const review = () => import("./pages/review");
const ReviewPage = lazyComponent(() => review().then((m) => m.ReviewPage));
const AdjudicationQueuePage = lazyComponent(() => review().then((m) => m.AdjudicationQueuePage));
const AdjudicatePage = lazyComponent(() => review().then((m) => m.AdjudicatePage));
const GoldVersionsPage = lazyComponent(() => review().then((m) => m.GoldVersionsPage));
const GoldVersionPage = lazyComponent(() => review().then((m) => m.GoldVersionPage));
const DocumentHistoryPage = lazyComponent(() => review().then((m) => m.DocumentHistoryPage));
// The results of item projects (leaderboard, comparisons, label bias): staff only.
const ResultsPage = lazyComponent(() => import("./pages/results").then((m) => m.ResultsPage));
// Prolog-checked generation (report, launch, job review, rule files): staff of any project.
const generation = () => import("./pages/generation");
const GenerationPage = lazyComponent(() => generation().then((m) => m.GenerationPage));
const LaunchGenerationPage = lazyComponent(() => generation().then((m) => m.LaunchGenerationPage));
const GenerationJobPage = lazyComponent(() => generation().then((m) => m.GenerationJobPage));
const RulesPage = lazyComponent(() => generation().then((m) => m.RulesPage));

export function App() {
  const path = usePath();
  const route = match(path);
  const [me, setMe] = useState<Me | null>(null);
  const [checked, setChecked] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const loadMe = () =>
    get<Me>("/api/auth/me/")
      .then((m) => {
        setMe(m);
        setError(null);
      })
      .catch((e) => {
        setMe(null);
        clearPrefetch();
        if (!isAuthError(e)) setError(String(e.message ?? e));
      })
      .finally(() => setChecked(true));

  useEffect(() => {
    // an anonymous visitor: no session to ask about (the API would answer 403)
    if (signedInHint() === false) setChecked(true);
    else void loadMe();
  }, []);

  useEffect(() => {
    if (checked && !me && !error && route.name !== "login" && route.name !== "invite" && route.name !== "notfound") {
      const next = location.pathname + location.search;
      navigate(`/login/?next=${encodeURIComponent(next)}`, true);
    }
  }, [checked, me, error, route.name]);

  if (route.name === "login") {
    return (
      <LoginPage
        onLogin={async () => {
          clearPrefetch();
          await loadMe();
          const next = new URLSearchParams(location.search).get("next");
          navigate(next && next.startsWith("/") && !next.startsWith("//") ? next : "/", true);
        }}
      />
    );
  }
  if (!checked) return <p class="boot">Loading…</p>;
  if (route.name === "invite" && !error) {
    // Signed in or not: the page asks the API what the link offers.
    return (
      <InvitePage
        token={route.token}
        key={route.token}
        onJoined={async (projectId) => {
          clearPrefetch();
          await loadMe();
          navigate(`/projects/${projectId}/`, true);
        }}
      />
    );
  }
  if (error) {
    return (
      <div class="page narrow">
        <h1>Cannot reach the server</h1>
        <p>{error}</p>
        <button class="btn primary" onClick={() => location.reload()}>
          Try again
        </button>
      </div>
    );
  }
  if (!me && route.name === "notfound")
    return (
      <main class="page narrow">
        <NotFoundMessage
          back={
            <a href="/login/" onClick={linkHandler("/login/")}>
              Sign in
            </a>
          }
        >
          <p>There is nothing at this address.</p>
        </NotFoundMessage>
      </main>
    );
  if (!me) return <p class="boot">Redirecting to sign in…</p>;

  switch (route.name) {
    case "home":
      return <HomePage me={me} />;
    case "project":
      return <ProjectPage me={me} id={route.id} />;
    case "document":
      return <AnnotatePage me={me} id={route.id} key={route.id} />;
    case "runs":
    case "launch":
    case "leaderboard": {
      // Evaluation pages are for the project's reviewers and admins; the API checks too.
      const member = me.projects.some((p) => p.id === route.projectId);
      if (!isProjectStaff(me, route.projectId))
        return <MessagePage me={me}>{member ? <ForbiddenMessage /> : <NotFoundMessage />}</MessagePage>;
      if (route.name === "runs") return <RunsPage me={me} projectId={route.projectId} key={route.projectId} />;
      if (route.name === "launch") return <LaunchPage me={me} projectId={route.projectId} key={route.projectId} />;
      return <LeaderboardPage me={me} projectId={route.projectId} goldId={route.goldId} key={`${route.projectId}/${route.goldId}`} />;
    }
    case "run":
      return <RunPage me={me} id={route.id} key={route.id} />;
    case "review":
    case "adjudicationQueue":
    case "adjudicate":
    case "goldVersions":
    case "goldVersion": {
      // Reviewers and admins only; annotators never see others' work or the gold before review.
      if (!isProjectStaff(me, route.projectId))
        return (
          <MessagePage me={me}>
            <NotFoundMessage />
          </MessagePage>
        );
      const props = { me, projectId: route.projectId };
      if (route.name === "review") return <ReviewPage {...props} key={`review/${route.projectId}`} />;
      if (route.name === "adjudicationQueue") return <AdjudicationQueuePage {...props} key={`queue/${route.projectId}`} />;
      if (route.name === "adjudicate") return <AdjudicatePage {...props} documentId={route.documentId} key={`adjudicate/${route.documentId}`} />;
      if (route.name === "goldVersions") return <GoldVersionsPage {...props} key={`gold/${route.projectId}`} />;
      return <GoldVersionPage {...props} version={route.version} key={`gold/${route.projectId}/${route.version}`} />;
    }
    case "results":
      // Reviewers and admins only (the API answers 404 to anyone else).
      if (!isProjectStaff(me, route.projectId))
        return (
          <MessagePage me={me}>
            <NotFoundMessage />
          </MessagePage>
        );
      return <ResultsPage me={me} projectId={route.projectId} key={`results/${route.projectId}`} />;
    case "generation":
    case "generationNew":
    case "generationJob":
    case "generationRules":
      // Reviewers and admins of some project (the API refuses everyone else too).
      if (!me.is_superuser && !me.projects.some((p) => isProjectStaff(me, p.id)))
        return (
          <MessagePage me={me}>
            <NotFoundMessage />
          </MessagePage>
        );
      if (route.name === "generation") return <GenerationPage me={me} />;
      if (route.name === "generationNew") return <LaunchGenerationPage me={me} />;
      if (route.name === "generationRules") return <RulesPage me={me} />;
      return <GenerationJobPage me={me} id={route.id} key={`generation/${route.id}`} />;
    case "documentHistory":
      // The API answers 404 to anyone but the document's reviewers and admins.
      return <DocumentHistoryPage me={me} id={route.id} key={`history/${route.id}`} />;
    case "projectNew":
      // Everyone else gets the app's 404 page (the API refuses too).
      if (!canCreateProjects(me))
        return (
          <MessagePage me={me}>
            <NotFoundMessage />
          </MessagePage>
        );
      return <NewProjectPage me={me} />;
    case "projectSettings":
    case "projectImport":
    case "projectMembers":
    case "projectAssign":
    case "projectSuggestions": {
      // Project admins and superusers only; for everyone else these pages do not exist.
      if (!isProjectAdmin(me, route.projectId))
        return (
          <MessagePage me={me}>
            <NotFoundMessage />
          </MessagePage>
        );
      const props = { me, projectId: route.projectId, key: `${route.name}/${route.projectId}` };
      if (route.name === "projectSettings") return <ProjectSettingsPage {...props} />;
      if (route.name === "projectImport") return <ImportPage {...props} />;
      if (route.name === "projectMembers") return <MembersPage {...props} />;
      if (route.name === "projectSuggestions") return <SuggestionsAdminPage {...props} />;
      return <AssignPage {...props} />;
    }
    default:
      return (
        <MessagePage me={me}>
          <NotFoundMessage />
        </MessagePage>
      );
  }
}

function MessagePage({ me, children }: { me: Me; children: ComponentChildren }) {
  return (
    <>
      <TopBar me={me} />
      <main class="page narrow">{children}</main>
    </>
  );
}
