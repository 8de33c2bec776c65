import { useEffect, useState } from "preact/hooks";
import { projectDetail } from "../prefetch";
import type { Project } from "../types";

/** The project (for breadcrumbs and roles), or null while loading or when it cannot be read. */
export function useProject(id: number | null | undefined): Project | null {
  const [project, setProject] = useState<Project | null>(null);
  useEffect(() => {
    setProject(null);
    if (id == null) return;
    let live = true;
    projectDetail(id)
      .then((p) => live && setProject(p))
      .catch(() => undefined);
    return () => {
      live = false;
    };
  }, [id]);
  return project;
}
