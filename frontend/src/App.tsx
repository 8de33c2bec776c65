import { useEffect, useState } from "preact/hooks";
import { get, isAuthError } from "./api";
import { match, navigate, usePath } from "./router";
import type { Me } from "./types";
import { LoginPage } from "./pages/Login";
import { HomePage } from "./pages/Home";
import { ProjectPage } from "./pages/Project";
import { AnnotatePage } from "./pages/Annotate";
import { TopBar } from "./components/TopBar";
import { clearPrefetch } from "./prefetch";

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
    void loadMe();
  }, []);

  useEffect(() => {
    if (checked && !me && !error && route.name !== "login") {
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
  if (!me) return <p class="boot">Redirecting to sign in…</p>;

  switch (route.name) {
    case "home":
      return <HomePage me={me} />;
    case "project":
      return <ProjectPage me={me} id={route.id} />;
    case "document":
      return <AnnotatePage me={me} id={route.id} key={route.id} />;
    default:
      return (
        <>
          <TopBar me={me} />
          <main class="page narrow">
            <h1>Page not found</h1>
            <p>
              <a href="/">Back to your projects</a>
            </p>
          </main>
        </>
      );
  }
}
