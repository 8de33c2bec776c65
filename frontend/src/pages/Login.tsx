import { useEffect, useRef, useState } from "preact/hooks";
import { ensureCsrf, http } from "../api";

export function LoginPage({ onLogin }: { onLogin: () => Promise<void> }) {
  const [username, setUsername] = useState("");
  const [password, setPassword] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const userRef = useRef<HTMLInputElement>(null);

  useEffect(() => {
    userRef.current?.focus();
    void ensureCsrf();
  }, []);

  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await ensureCsrf();
      const res = await http("POST", "/api/auth/login/", { username, password });
      if (res.status === 200) {
        await onLogin();
        return;
      }
      if (res.status === 429) {
        // Too many failed sign-ins for this user or from this address (Retry-After seconds).
        setError(`Too many failed sign-ins. ${res.data?.detail ?? "Try again later."}`);
        return;
      }
      setError(res.status === 400 ? "Wrong username or password." : `Sign-in failed (${res.status}).`);
    } catch {
      setError("Cannot reach the server. Check your connection and try again.");
    } finally {
      setBusy(false);
    }
  };

  return (
    <main class="login">
      <form class="login-card" onSubmit={submit} aria-labelledby="login-title">
        <div class="brand big">
          <span class="brand-mark" aria-hidden="true">
            ⟂
          </span>
          Fallacy&nbsp;Annotator
        </div>
        <h1 id="login-title">Sign in</h1>
        <label class="field">
          <span>Username</span>
          <input
            ref={userRef}
            name="username"
            autocomplete="username"
            value={username}
            onInput={(e) => setUsername(e.currentTarget.value)}
            required
          />
        </label>
        <label class="field">
          <span>Password</span>
          <input
            name="password"
            type="password"
            autocomplete="current-password"
            value={password}
            onInput={(e) => setPassword(e.currentTarget.value)}
            required
          />
        </label>
        {error && (
          <p class="form-error" role="alert">
            {error}
          </p>
        )}
        <button class="btn primary block" type="submit" disabled={busy}>
          {busy ? "Signing in…" : "Sign in"}
        </button>
      </form>
    </main>
  );
}
