import { useMemo, useState } from "preact/hooks";
import { http } from "../../../api";
import { Crumbs } from "../../../components/Crumbs";
import { MetricLegend } from "../../../components/MetricLegend";
import { LoadErrorMessage } from "../../../components/PageMessage";
import { ProjectNav } from "../../../components/ProjectNav";
import { TopBar } from "../../../components/TopBar";
import { usePoll, useResource } from "../../../hooks/useResource";
import { helpTitle } from "../../../lib/metricHelp";
import { useProject } from "../../../hooks/useProject";
import { paths } from "../../../router";
import type { AgreementAnswer, GoldList, Me } from "../../../types";
import { ChartPanel } from "./ChartPanel";
import { barConfig, heatmapConfig } from "./configs";
import { fmt, names, pairMatrix, usedCooccurrence } from "./data";
import "./review.css";

const LEVELS = ["2", "1", "0"];
const LEVEL_NAMES: Record<string, string> = { "0": "fallacy or not", "1": "categories", "2": "types" };
const DISTANCE_NAMES = { masi: "MASI", jaccard: "Jaccard" } as const;
/** The figures of the page, explained in its legend (lib/metricHelp). */
export const REVIEW_METRICS = ["alpha", "masi", "jaccard", "fleiss kappa", "cohen kappa", "disjunctive f1", "per-label alpha"];

/** Agreement between a project's annotators: headline figures, heatmaps, per-label α, co-occurrence. */
export function ReviewPage({ me, projectId }: { me: Me; projectId: number }) {
  const project = useProject(projectId);
  const golds = useResource<GoldList>(`/api/projects/${projectId}/gold/`);
  const [gold, setGold] = useState<string>("");
  const [level, setLevel] = useState("2");
  const [distance, setDistance] = useState<"masi" | "jaccard">("masi");
  const [heatmap, setHeatmap] = useState<"alpha" | "f1">("alpha");
  const url = `/api/evaluation/projects/${projectId}/agreement/${gold ? `?gold_standard=${gold}` : ""}`;
  const answer = useResource<AgreementAnswer>(url);
  // 202 answers resolve too (any 2xx): poll while the task computes.
  usePoll(answer.data?.status === "computing", answer.reload, 1500);
  const retry = async () => {
    await http("GET", url);
    await answer.reload();
  };

  const data = answer.data;
  const figures = data?.status === "done" ? data.levels?.[level] : undefined;
  const who = useMemo(() => (data ? names(data) : new Map<string, string>()), [data]);
  const matrix = useMemo(() => (data && figures ? pairMatrix(data, figures, heatmap === "f1" ? "f1" : distance) : null), [data, figures, heatmap, distance]);
  const cooc = useMemo(() => (figures ? usedCooccurrence(figures) : null), [figures]);
  const labels = useMemo(() => (figures ? figures.labels.filter((l) => l.present > 0) : []), [figures]);
  const distLabels = useMemo(() => {
    if (!figures) return [] as number[];
    const d = figures.distribution;
    return d.labels.map((_, i) => i).filter((i) => Object.values(d.annotators).some((counts) => counts[i] > 0));
  }, [figures]);
  const configs = useMemo(() => {
    if (!figures || !matrix || !cooc) return null;
    const d = figures.distribution;
    return {
      heat: heatmapConfig(matrix, { max: 1, min: heatmap === "f1" ? 0 : Math.min(0, ...matrix.values.flat().filter((v): v is number => v != null)), label: heatmap }),
      labels: barConfig(labels.map((l) => l.label), [{ label: "α", data: labels.map((l) => l.alpha) }], { horizontal: true, min: -1, max: 1, title: "Krippendorff's α (present / absent)" }),
      cooc: heatmapConfig(cooc, { max: Math.max(1, ...cooc.values.flat().map((v) => v ?? 0)), label: "co-occurrences", blankZeros: true }),
      dist: barConfig(
        distLabels.map((i) => d.labels[i]),
        Object.entries(d.annotators).map(([id, counts]) => ({ label: who.get(id) ?? id, data: distLabels.map((i) => counts[i]) })),
        { title: "spans" },
      ),
    };
  }, [figures, matrix, cooc, labels, distLabels, heatmap, who]);

  return (
    <>
      <TopBar me={me}>
        <Crumbs items={[{ label: project?.name ?? `Project ${projectId}`, href: paths.project(projectId) }, { label: "Agreement" }]} />
      </TopBar>
      <ProjectNav me={me} projectId={projectId} role={project?.role} active="review" />
      <main class="page wide" data-testid="review-page">
        <div class="page-head">
          <div>
            <h1>Agreement</h1>
            <p class="muted">Submitted annotations only, over the sentences of documents that at least two annotators submitted.</p>
          </div>
        </div>
        <div class="rv-controls">
          <label class="inline-field">
            <span>Level</span>
            <select value={level} onChange={(e) => setLevel((e.target as HTMLSelectElement).value)} data-testid="rv-level">
              {LEVELS.map((l) => (
                <option key={l} value={l}>
                  {l} — {LEVEL_NAMES[l]}
                </option>
              ))}
            </select>
          </label>
          <label class="inline-field">
            <span>Distance</span>
            <select value={distance} onChange={(e) => setDistance((e.target as HTMLSelectElement).value as "masi" | "jaccard")} data-testid="rv-distance">
              <option value="masi">MASI</option>
              <option value="jaccard">Jaccard</option>
            </select>
          </label>
          {!!golds.data?.versions.length && (
            <label class="inline-field">
              <span>Gold version</span>
              <select value={gold} onChange={(e) => setGold((e.target as HTMLSelectElement).value)} data-testid="rv-gold">
                <option value="">latest published</option>
                {golds.data.versions.map((g) => (
                  <option key={g.id} value={String(g.id)}>
                    v{g.version}
                  </option>
                ))}
              </select>
            </label>
          )}
        </div>
        {answer.error && <LoadErrorMessage error={answer.error} onRetry={() => void answer.reload()} />}
        {!data && !answer.error && <p class="muted">Loading…</p>}
        {data?.status === "computing" && (
          <p class="muted" role="status" data-testid="rv-computing">
            Computing agreement… (the figures appear here when the background task is done)
          </p>
        )}
        {data?.status === "failed" && (
          <div class="form-error" role="alert">
            <p>The computation failed: {data.error}</p>
            <button type="button" class="btn" onClick={() => void retry()}>
              Try again
            </button>
          </div>
        )}
        {data?.status === "done" && (!data.annotators || data.annotators.length < 2) && (
          <p class="empty" data-testid="rv-none">
            No figures yet: agreement needs at least two annotators who submitted the same document.
          </p>
        )}
        {figures && data && (data.annotators?.length ?? 0) >= 2 && configs && matrix && cooc && (
          <>
            <div class="rv-headline">
              {(["masi", "jaccard"] as const).map((d) => (
                <div key={d} class={`rv-figure${d === distance ? " rv-selected" : ""}`} data-testid={`rv-figure-${d}`} title={helpTitle(d)}>
                  Krippendorff's α ({DISTANCE_NAMES[d]})
                  <b data-testid={d === distance ? "rv-alpha" : undefined}>
                    <span data-testid={`rv-alpha-${d}`}>{fmt(figures.alpha[d].value)}</span>
                  </b>
                  <span class="muted">
                    {figures.alpha[d].units} sentences · {figures.alpha[d].annotators} annotators · {figures.alpha[d].documents} documents
                  </span>
                </div>
              ))}
              <div class="rv-figure" title={helpTitle("fleiss kappa")}>
                Fleiss' κ<b data-testid="rv-fleiss">{fmt(figures.fleiss_kappa.value)}</b>
                <span class="muted">{figures.fleiss_kappa.reason ?? `${figures.fleiss_kappa.units} sentences`}</span>
              </div>
            </div>
            <MetricLegend names={REVIEW_METRICS} />
            <p class="rv-provenance" data-testid="rv-provenance">
              Computed from annotations {(data.hash ?? data.key).slice(0, 12)} with {Object.entries(data.libraries ?? {}).map(([k, v]) => `${k} ${v}`).join(", ")}
              {data.gold_standard ? `; compared with gold v${data.gold_standard.version}` : ""}.
            </p>
            <ChartPanel
              id="heatmap"
              title={heatmap === "alpha" ? `Pairwise α (${DISTANCE_NAMES[distance]})` : "Disjunctive F1 (rows: reference, columns: scored)"}
              config={configs.heat}
              head={["", ...matrix.columns]}
              rows={matrix.rows.map((r, i) => [r, ...matrix.values[i]])}
              height={Math.max(220, 60 + matrix.rows.length * 50)}
              width={200 + matrix.columns.length * 110}
              stack
              matrix
              note={heatmap === "f1" ? `Each annotator scored (profile paper) against the row's annotator taken as the gold, on the documents both submitted${data.gold_standard ? `; the gold row is gold v${data.gold_standard.version}` : ""}.` : `Krippendorff's α over the sentences both annotators submitted, ${DISTANCE_NAMES[distance]} distance.`}
            >
              <label class="inline-field">
                <span>Show</span>
                <select value={heatmap} onChange={(e) => setHeatmap((e.target as HTMLSelectElement).value as "alpha" | "f1")} data-testid="rv-heatmap-metric">
                  <option value="alpha">pairwise α</option>
                  <option value="f1">disjunctive F1</option>
                </select>
              </label>
            </ChartPanel>
            <ChartPanel
              id="labels"
              title="Per-label α (each label present or absent per sentence)"
              config={labels.length ? configs.labels : null}
              head={["label", "α", "sentences", "times given"]}
              rows={labels.map((l) => [l.label, l.alpha, l.units, l.present])}
              height={Math.max(200, 40 + labels.length * 22)}
            />
            <ChartPanel
              id="cooccurrence"
              title="Label co-occurrence on overlapping spans of different annotators (candidates for alternatives)"
              config={cooc.rows.length ? configs.cooc : null}
              head={["", ...cooc.columns]}
              rows={cooc.rows.map((r, i) => [r, ...cooc.values[i]])}
              width={220 + cooc.columns.length * 34}
              height={Math.max(220, 140 + cooc.rows.length * 30)}
              stack
              matrix
            />
            <ChartPanel
              id="distribution"
              title="Labels given per annotator"
              config={distLabels.length ? configs.dist : null}
              head={["label", ...Object.keys(figures.distribution.annotators).map((id) => who.get(id) ?? id)]}
              rows={distLabels.map((i) => [figures.distribution.labels[i], ...Object.values(figures.distribution.annotators).map((c) => c[i])])}
              stack
            />
            <ChartPanel
              id="kappa"
              title="Cohen's κ per pair (a sentence's label set as one category)"
              config={null}
              tableOnly
              head={["annotator", "annotator", "κ", "sentences"]}
              rows={figures.cohen_kappa.map((k) => [who.get(String(k.a)), who.get(String(k.b)), k.kappa, k.units])}
            />
          </>
        )}
      </main>
    </>
  );
}
