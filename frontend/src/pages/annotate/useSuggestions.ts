// The suggestions of the document page (assisted projects, my own annotation): loaded once,
// decided one at a time (or a sentence's at once); an accept's span joins the page's spans
// before the suggestion shows as accepted.

import { useEffect, useRef, useState } from "preact/hooks";
import { get, http } from "../../api";
import { errorMessage, isOk } from "../../lib/http";
import type { ServerSpan } from "../../types";
import {
  applyDecisions,
  type Decision,
  type DecisionKind,
  decisionMessage,
  type DocumentSuggestions,
  type Suggestion,
  visibleSuggestions,
} from "./suggestions";
import type { ShowToast } from "./Toasts";
import type { Editor } from "./useAnnotationEditor";

export interface SuggestionsInput {
  docId: number;
  /** My own annotation: only then are suggestions loaded. */
  own: boolean;
  readOnly: boolean;
  ed: Editor;
  toast: ShowToast;
  labelOrder: string[];
}

export function useSuggestions({ docId, own, readOnly, ed, toast, labelOrder }: SuggestionsInput) {
  // null while loading
  const [suggestions, setSuggestions] = useState<Suggestion[] | null>(own ? null : []);
  const suggestionsRef = useRef<Suggestion[]>([]);
  const [deciding, setDeciding] = useState(false);
  const decidingRef = useRef(false);

  const setSuggestionList = (next: Suggestion[]) => {
    suggestionsRef.current = next;
    setSuggestions(next);
  };

  useEffect(() => {
    if (!own) return;
    let cancelled = false;
    get<DocumentSuggestions>(`/api/evaluation/documents/${docId}/suggestions/`)
      .then((data) => !cancelled && setSuggestionList(visibleSuggestions(data)))
      .catch(() => !cancelled && setSuggestionList([])); // the page works without them
    return () => {
      cancelled = true;
    };
  }, [docId, own]);

  /** The spans the server made for accepted suggestions join the page's (no reload). */
  const adoptAccepted = async (decisions: Decision[]) => {
    const ids = [...new Set(decisions.map((d) => d.span).filter((id): id is number => id !== null))];
    if (!ids.length) return;
    try {
      ed.adoptSpans(await Promise.all(ids.map((id) => get<ServerSpan>(`/api/spans/${id}/`))));
    } catch {
      await ed.resync(); // reload my annotation instead (keeps what is still queued)
    }
  };

  const decideOn = async (s: Suggestion, decision: DecisionKind | "sentence") => {
    if (decidingRef.current || readOnly) return;
    decidingRef.current = true;
    setDeciding(true);
    try {
      const res =
        decision === "sentence"
          ? await http("POST", `/api/evaluation/documents/${docId}/suggestions/accept-sentence/`, { unit_index: s.unit_index })
          : await http("POST", `/api/evaluation/suggestions/${s.id}/decision/`, { decision });
      let made: Decision[] = [];
      if (isOk(res)) {
        made = decision === "sentence" ? (res.data as { decisions: Decision[] }).decisions : [res.data as Decision];
        toast(decisionMessage(s, decision, made, labelOrder));
      } else if (res.status === 409 && res.data?.current) {
        made = [res.data.current as Decision];
        toast(`Already ${made[0].decision}ed earlier; a decision is not changed.`, "warn");
      } else {
        toast(`Not decided: ${errorMessage(res.data, `the server answered ${res.status}`)}`, "error");
      }
      if (made.length) {
        await adoptAccepted(made); // the spans first, so the page never shows an accept without its span
        setSuggestionList(applyDecisions(suggestionsRef.current, made));
      }
    } catch {
      toast("Not decided: the server cannot be reached. Try again.", "error");
    } finally {
      decidingRef.current = false;
      setDeciding(false);
    }
  };

  return { suggestions, list: suggestions ?? [], deciding, decideOn };
}
