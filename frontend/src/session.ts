// Whether the server saw a signed-in session when it served this page (its
// <meta name="fallacy-session">): the app asks who is signed in only when someone may be.

/** "1" signed in, "0" anonymous; null without the hint (Vite's dev server). */
export function signedInHint(doc: Pick<Document, "querySelector"> = document): boolean | null {
  const content = doc.querySelector('meta[name="fallacy-session"]')?.getAttribute("content");
  return content === "1" ? true : content === "0" ? false : null;
}
