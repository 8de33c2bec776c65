// Minimal client-side routing over the History API.

import { useEffect, useState } from "preact/hooks";

const listeners = new Set<() => void>();

/** Asked before every in-app navigation (`navigate`, so every in-app link): false keeps the
 * page (it may then ask the user, and go on with `navigate(to, false, true)`). */
type NavigationGuard = (to: string) => boolean;
let guard: NavigationGuard | null = null;

/** Sets the guard of the page that holds unsaved work; returns the function that lifts it. */
export function setNavigationGuard(check: NavigationGuard): () => void {
  guard = check;
  return () => {
    if (guard === check) guard = null;
  };
}

export function navigate(to: string, replace = false, force = false) {
  if (to === location.pathname + location.search) return;
  if (!force && guard && !guard(to)) return;
  if (replace) history.replaceState(null, "", to);
  else history.pushState(null, "", to);
  window.scrollTo(0, 0);
  listeners.forEach((f) => f());
}

export function usePath(): string {
  const [path, setPath] = useState(location.pathname);
  useEffect(() => {
    const update = () => setPath(location.pathname);
    listeners.add(update);
    window.addEventListener("popstate", update);
    return () => {
      listeners.delete(update);
      window.removeEventListener("popstate", update);
    };
  }, []);
  return path;
}

/**
 * Calls `onChange` after every in-app navigation and every back/forward move, also when only
 * the query string changed (usePath re-renders on path changes only).
 */
export function useLocationChange(onChange: () => void) {
  useEffect(() => {
    listeners.add(onChange);
    window.addEventListener("popstate", onChange);
    return () => {
      listeners.delete(onChange);
      window.removeEventListener("popstate", onChange);
    };
  }, [onChange]);
}

/** Left clicks on in-app links navigate without a page load. */
export function linkHandler(to: string) {
  return (e: MouseEvent) => {
    if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    navigate(to);
  };
}

export type Route =
  | { name: "login" }
  | { name: "invite"; token: string }
  | { name: "home" }
  | { name: "project"; id: number }
  | { name: "projectNew" }
  | { name: "projectSettings"; projectId: number }
  | { name: "projectImport"; projectId: number }
  | { name: "projectMembers"; projectId: number }
  | { name: "projectAssign"; projectId: number }
  | { name: "projectSuggestions"; projectId: number }
  | { name: "document"; id: number }
  | { name: "runs"; projectId: number }
  | { name: "launch"; projectId: number }
  | { name: "run"; id: number }
  | { name: "leaderboard"; projectId: number; goldId: number }
  | { name: "review"; projectId: number }
  | { name: "adjudicationQueue"; projectId: number }
  | { name: "adjudicate"; projectId: number; documentId: number }
  | { name: "goldVersions"; projectId: number }
  | { name: "goldVersion"; projectId: number; version: number }
  | { name: "documentHistory"; id: number }
  | { name: "results"; projectId: number }
  | { name: "generation" }
  | { name: "generationNew" }
  | { name: "generationJob"; id: number }
  | { name: "generationRules" }
  | { name: "notfound" };

export function match(path: string): Route {
  if (path === "/" || path === "") return { name: "home" };
  if (/^\/login\/?$/.test(path)) return { name: "login" };
  const invite = /^\/invite\/([A-Za-z0-9_-]+)\/?$/.exec(path);
  if (invite) return { name: "invite", token: invite[1] };
  if (/^\/projects\/new\/?$/.test(path)) return { name: "projectNew" };
  let m = /^\/projects\/(\d+)\/?$/.exec(path);
  if (m) return { name: "project", id: Number(m[1]) };
  m = /^\/projects\/(\d+)\/(settings|import|members|assign|suggestions)\/?$/.exec(path);
  if (m) {
    const projectId = Number(m[1]);
    const page = { settings: "projectSettings", import: "projectImport", members: "projectMembers", assign: "projectAssign", suggestions: "projectSuggestions" } as const;
    return { name: page[m[2] as keyof typeof page], projectId };
  }
  m = /^\/projects\/(\d+)\/(review|adjudication|gold)\/?$/.exec(path);
  if (m) {
    const page = { review: "review", adjudication: "adjudicationQueue", gold: "goldVersions" } as const;
    return { name: page[m[2] as keyof typeof page], projectId: Number(m[1]) };
  }
  m = /^\/projects\/(\d+)\/adjudication\/(\d+)\/?$/.exec(path);
  if (m) return { name: "adjudicate", projectId: Number(m[1]), documentId: Number(m[2]) };
  m = /^\/projects\/(\d+)\/gold\/(\d+)\/?$/.exec(path);
  if (m) return { name: "goldVersion", projectId: Number(m[1]), version: Number(m[2]) };
  m = /^\/documents\/(\d+)\/history\/?$/.exec(path);
  if (m) return { name: "documentHistory", id: Number(m[1]) };
  m = /^\/documents\/(\d+)\/?$/.exec(path);
  if (m) return { name: "document", id: Number(m[1]) };
  m = /^\/projects\/(\d+)\/runs\/?$/.exec(path);
  if (m) return { name: "runs", projectId: Number(m[1]) };
  m = /^\/projects\/(\d+)\/runs\/new\/?$/.exec(path);
  if (m) return { name: "launch", projectId: Number(m[1]) };
  m = /^\/runs\/(\d+)\/?$/.exec(path);
  if (m) return { name: "run", id: Number(m[1]) };
  m = /^\/projects\/(\d+)\/leaderboard\/(\d+)\/?$/.exec(path);
  if (m) return { name: "leaderboard", projectId: Number(m[1]), goldId: Number(m[2]) };
  m = /^\/projects\/(\d+)\/results\/?$/.exec(path);
  if (m) return { name: "results", projectId: Number(m[1]) };
  if (/^\/generation\/?$/.test(path)) return { name: "generation" };
  if (/^\/generation\/new\/?$/.test(path)) return { name: "generationNew" };
  if (/^\/generation\/rules\/?$/.test(path)) return { name: "generationRules" };
  m = /^\/generation\/jobs\/(\d+)\/?$/.exec(path);
  if (m) return { name: "generationJob", id: Number(m[1]) };
  return { name: "notfound" };
}

/** Paths of the app's pages (with the trailing slash Django's routes use). */
export const paths = {
  project: (id: number) => `/projects/${id}/`,
  projectNew: () => "/projects/new/",
  projectSettings: (projectId: number) => `/projects/${projectId}/settings/`,
  projectImport: (projectId: number) => `/projects/${projectId}/import/`,
  projectMembers: (projectId: number) => `/projects/${projectId}/members/`,
  projectAssign: (projectId: number) => `/projects/${projectId}/assign/`,
  projectSuggestions: (projectId: number) => `/projects/${projectId}/suggestions/`,
  document: (id: number, annotator?: number) => `/documents/${id}/${annotator ? `?annotator=${annotator}` : ""}`,
  runs: (projectId: number) => `/projects/${projectId}/runs/`,
  launch: (projectId: number) => `/projects/${projectId}/runs/new/`,
  run: (id: number) => `/runs/${id}/`,
  leaderboard: (projectId: number, goldId: number) => `/projects/${projectId}/leaderboard/${goldId}/`,
  review: (projectId: number) => `/projects/${projectId}/review/`,
  adjudicationQueue: (projectId: number) => `/projects/${projectId}/adjudication/`,
  adjudicate: (projectId: number, documentId: number) => `/projects/${projectId}/adjudication/${documentId}/`,
  goldVersions: (projectId: number) => `/projects/${projectId}/gold/`,
  goldVersion: (projectId: number, version: number) => `/projects/${projectId}/gold/${version}/`,
  documentHistory: (id: number) => `/documents/${id}/history/`,
  results: (projectId: number) => `/projects/${projectId}/results/`,
  generation: () => "/generation/",
  generationNew: () => "/generation/new/",
  generationJob: (id: number) => `/generation/jobs/${id}/`,
  generationRules: () => "/generation/rules/",
};
