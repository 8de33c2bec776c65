import type { ComponentChildren } from "preact";
import { http } from "../api";
import { linkHandler, navigate } from "../router";
import type { Me } from "../types";

export async function logout() {
  await http("POST", "/api/auth/logout/").catch(() => undefined);
  navigate("/login/", true, true); // the reload below asks about unsaved work itself
  location.reload();
}

export function TopBar({ me, children, right }: { me: Me; children?: ComponentChildren; right?: ComponentChildren }) {
  return (
    <header class="topbar">
      <a class="brand" href="/" onClick={linkHandler("/")}>
        <span class="brand-mark" aria-hidden="true">
          ⟂
        </span>
        <span class="brand-text">Fallacy&nbsp;Annotator</span>
      </a>
      <div class="topbar-main">{children}</div>
      <div class="topbar-right">
        {right}
        <span class="user" title={`Signed in as ${me.username}`}>
          {me.username}
        </span>
        <button class="btn ghost small" type="button" onClick={() => void logout()}>
          Sign out
        </button>
      </div>
    </header>
  );
}
