import { get } from "../../api";
import { navigate, paths } from "../../router";

/** Open my next document of the project; `onNone` when my queue is done. */
export async function continueProject(projectId: number, onNone: () => void) {
  const { document: doc } = await get<{ document: number | null }>(`/api/projects/${projectId}/next-document/`);
  if (doc) navigate(paths.document(doc));
  else onNone();
}
