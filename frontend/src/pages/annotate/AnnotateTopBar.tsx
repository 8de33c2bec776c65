import { Crumbs } from "../../components/Crumbs";
import { SaveStatusBadge } from "../../components/SaveStatus";
import { TopBar } from "../../components/TopBar";
import type { SaveStatus } from "../../lib/saveStatus";
import { paths } from "../../router";
import type { Me, Project } from "../../types";
import { DocumentNav } from "./DocumentNav";

export function AnnotateTopBar({
  me,
  project,
  docId,
  title,
  status,
  showSave,
  canSubmit,
  showGuide,
  onRetry,
  onSubmit,
  onToggleGuide,
}: {
  me: Me;
  project: Project;
  docId: number;
  title: string;
  status: SaveStatus;
  /** Only my own annotation saves; someone else's is only looked at. */
  showSave: boolean;
  canSubmit: boolean;
  showGuide: boolean;
  onRetry(): void;
  onSubmit(): void;
  onToggleGuide(): void;
}) {
  return (
    <TopBar
      me={me}
      right={
        <>
          {showSave && <SaveStatusBadge status={status} onRetry={onRetry} />}
          {canSubmit && (
            <button type="button" class="btn primary" onClick={onSubmit}>
              Submit document
            </button>
          )}
        </>
      }
    >
      <Crumbs items={[{ label: project.name, href: paths.project(project.id) }, { label: title }]} />
      <DocumentNav docId={docId} />
      <button type="button" class={`btn ghost small${showGuide ? " on" : ""}`} aria-pressed={showGuide} onClick={onToggleGuide}>
        Guidelines <kbd>G</kbd>
      </button>
    </TopBar>
  );
}
