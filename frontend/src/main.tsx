import { render } from "preact";
import { App } from "./App";
import { prefetchDocument } from "./prefetch";
import { signedInHint } from "./session";
import "./styles.css";

const m = /^\/documents\/(\d+)\/?$/.exec(location.pathname);
if (m && signedInHint() !== false) prefetchDocument(Number(m[1]));

const root = document.getElementById("app")!;
root.textContent = ""; // drop the static "Loading…" placeholder
render(<App />, root);
