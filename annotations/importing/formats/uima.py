"""UIMA CAS XMI with its type system, read and written through dkpro-cassis (pure Python, no
Django), in the layout of an INCEpTION project export::

    TypeSystem.xml
    annotation/<document name>/<user>.xmi         one CAS per document and annotator
    curation/<document name>/CURATION_USER.xmi    the gold (curated) CAS of a document

A user file may also be INCEpTION's ``<user>.zip`` holding ``<user>.xmi`` and
``TypeSystem.xml``; a loose ``TypeSystem.xml`` is looked for beside the XMI, then in the
folders above it up to the export's root. INCEpTION's ``annotation/<document>/INITIAL_CAS``
file (the document as imported, before anyone annotated it) is read for its text and
sentences only: its annotator is no one. Other folders of a project export
(``annotation_ser/``, ``curation_ser/``, ``source/``, ...) are not read.

The type system (``type_system``):

- ``webanno.custom.Fallacy`` (INCEpTION's naming of a custom span layer): ``labels``, a
  ``uima.cas.StringArray`` of the span's alternative labels (read also: a plain string
  ``labels``, or INCEpTION's usual single-valued string feature ``label``, one value per
  annotation, several values as annotations stacked over the same offsets); ``slots``, the
  justification template's slots as one JSON string ``{label: {slot: value}}`` (slot names
  such as ``P'`` are not valid UIMA feature names, and each alternative has slots of its
  own);
  ``explanations``, JSON ``{label: text}``.
- ``webanno.custom.FallacyComment`` (a document-level layer, on ``uima.cas.AnnotationBase``):
  ``text``, one document-level comment.
- DKPro Core's ``Sentence`` (the sentence units) and ``DocumentMetaData`` (the name).

``read_cas`` raises ``UimaFormatError`` naming the file and, for a bad annotation, its
character offsets.
"""

from __future__ import annotations

import io
import json
import zipfile
from dataclasses import dataclass, field
from pathlib import Path, PurePath
from typing import Any

from cassis import Cas, TypeSystem, load_cas_from_xmi, load_typesystem
from fallacy_platform.bounded import LimitExceeded, check_archive, run_bounded

from annotations.importing.formats.errors import DatasetFormatError
from annotations.importing.formats.storable import text_problem

FALLACY = "webanno.custom.Fallacy"
COMMENT = "webanno.custom.FallacyComment"
SENTENCE = "de.tudarmstadt.ukp.dkpro.core.api.segmentation.type.Sentence"
METADATA = "de.tudarmstadt.ukp.dkpro.core.api.metadata.type.DocumentMetaData"
TYPE_SYSTEM = "TypeSystem.xml"
ANNOTATION_DIR = "annotation"
CURATION_DIR = "curation"
CURATION_USER = "CURATION_USER"
INITIAL_CAS = "INITIAL_CAS"
# Files INCEpTION keeps beside the users' in annotation/ that hold no one's annotations:
# INITIAL_CAS is read for its text only, the others are skipped.
NOT_ANNOTATORS = frozenset({CURATION_USER, "CORRECTION_USER"})
# The layer's features that hold labels: a string array (``labels``) or one string.
LABEL_FEATURES = ("labels", "label")


class UimaFormatError(DatasetFormatError):
    """``annotation/doc1.txt/ann.xmi: webanno.custom.Fallacy at 12–40: labels[1]: ...``."""

    def __init__(self, path: str | PurePath, field: str | None, message: str) -> None:
        super().__init__(path, 0, field, message)

    def __reduce__(self) -> tuple[object, ...]:
        return (type(self), (self.path, self.field, self.message))

    def __str__(self) -> str:
        return (
            f"{self.path}: {self.field}: {self.message}"
            if self.field
            else f"{self.path}: {self.message}"
        )


@dataclass(frozen=True)
class CasSpan:
    """One ``webanno.custom.Fallacy`` annotation. ``single``: its label is one string (the
    ``label`` feature, or a plain string ``labels``), so that annotations stacked over the
    same offsets are one span's alternatives; ``feature`` names where the labels were."""

    start: int
    end: int
    labels: list[str]
    slots: dict[str, dict[str, str]] = field(default_factory=dict)
    explanations: dict[str, str] = field(default_factory=dict)
    single: bool = False
    feature: str = "labels"

    @property
    def place(self) -> str:
        return f"{FALLACY} at {self.start}–{self.end}"


@dataclass(frozen=True)
class CasDocument:
    """What a CAS holds for the platform: text, sentence ranges, fallacy spans, comments."""

    text: str
    sentences: list[tuple[int, int]]
    spans: list[CasSpan]
    comments: list[str] = field(default_factory=list)
    title: str = ""


def type_system() -> TypeSystem:
    """The platform's layers (see the module docstring) over cassis' built-in types."""
    ts = TypeSystem()
    fallacy = ts.create_type(FALLACY, supertypeName="uima.tcas.Annotation")
    ts.create_feature(fallacy, "labels", "uima.cas.StringArray", elementType="uima.cas.String")
    ts.create_feature(fallacy, "slots", "uima.cas.String")
    ts.create_feature(fallacy, "explanations", "uima.cas.String")
    comment = ts.create_type(COMMENT, supertypeName="uima.cas.AnnotationBase")
    ts.create_feature(comment, "text", "uima.cas.String")
    ts.create_type(SENTENCE, supertypeName="uima.tcas.Annotation")
    metadata = ts.create_type(METADATA, supertypeName="uima.tcas.DocumentAnnotation")
    for name in ("documentTitle", "documentId", "documentUri", "collectionId"):
        ts.create_feature(metadata, name, "uima.cas.String")
    return ts


def cas_xmi(document: CasDocument, ts: TypeSystem) -> str:
    """``document`` as CAS XMI over ``ts`` (``type_system()``)."""
    cas = Cas(typesystem=ts)
    cas.sofa_string = document.text
    cas.add(ts.get_type(METADATA)(begin=0, end=len(document.text), documentTitle=document.title))
    sentence = ts.get_type(SENTENCE)
    for start, end in document.sentences:
        cas.add(sentence(begin=start, end=end))
    fallacy, strings = ts.get_type(FALLACY), ts.get_type("uima.cas.StringArray")
    for span in document.spans:
        values: dict[str, Any] = {"labels": strings(elements=list(span.labels))}
        if span.slots:
            values["slots"] = json.dumps(span.slots, ensure_ascii=False, sort_keys=True)
        if span.explanations:
            values["explanations"] = json.dumps(span.explanations, ensure_ascii=False)
        cas.add(fallacy(begin=span.start, end=span.end, **values))
    comment = ts.get_type(COMMENT)
    for text in document.comments:
        cas.add(comment(text=text))
    return cas.to_xmi(pretty_print=True)


# --- reading ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class CasFile:
    """One CAS to read: ``document`` its document's name, ``user`` the annotator's (or
    ``CURATION_USER``), ``name`` how errors call the file."""

    path: Path
    name: str
    document: str
    user: str


def _type_system_near(path: Path, root: Path) -> Path | None:
    for folder in (path.parent, *path.parent.parents):
        if (folder / TYPE_SYSTEM).is_file():
            return folder / TYPE_SYSTEM
        if folder == root or folder == folder.parent:
            break
    return None


def _member(archive: zipfile.ZipFile, suffix: str, name: str) -> bytes:
    found = [m for m in archive.namelist() if m.lower().endswith(suffix.lower())]
    if len(found) != 1:
        raise UimaFormatError(
            name, None, f"expected one {suffix} in the archive, found {len(found)}"
        )
    return archive.read(found[0])


def _sources(cas_file: CasFile, root: Path) -> tuple[bytes, bytes]:
    """The XMI's and the type system's bytes."""
    if cas_file.path.suffix.lower() == ".zip":
        try:
            with zipfile.ZipFile(cas_file.path) as archive:
                check_archive(archive)
                return (
                    _member(archive, ".xmi", cas_file.name),
                    _member(archive, TYPE_SYSTEM, cas_file.name),
                )
        except (zipfile.BadZipFile, OSError) as error:
            raise UimaFormatError(cas_file.name, None, f"not a readable zip: {error}") from None
    ts_path = _type_system_near(cas_file.path, root)
    if ts_path is None:
        raise UimaFormatError(
            cas_file.name, None, f"no {TYPE_SYSTEM} beside the file or in the folders above it"
        )
    return cas_file.path.read_bytes(), ts_path.read_bytes()


def _load(cas_file: CasFile, root: Path) -> Cas:
    xmi, ts_xml = _sources(cas_file, root)
    try:
        ts = load_typesystem(io.BytesIO(ts_xml))
    except Exception as error:  # cassis raises lxml's, ValueError, KeyError, ...
        raise UimaFormatError(
            cas_file.name, TYPE_SYSTEM, f"not a readable UIMA type system: {error}"
        ) from None
    try:
        return load_cas_from_xmi(io.BytesIO(xmi), typesystem=ts, lenient=True)
    except Exception as error:
        raise UimaFormatError(cas_file.name, None, f"not readable UIMA CAS XMI: {error}") from None


def _json_object(span: CasSpan, raw: Any, feature: str, name: str) -> dict[str, Any]:
    if raw in (None, ""):
        return {}
    try:
        value = json.loads(raw)
    except (TypeError, json.JSONDecodeError):
        value = None
    if not isinstance(value, dict):
        raise UimaFormatError(name, f"{span.place}: {feature}", "expected a JSON object")
    return value


def _labels(annotation: Any, features: tuple[str, ...]) -> tuple[list[Any], bool]:
    """The annotation's labels from its label features, and whether they were one string
    (not an array)."""
    labels: list[Any] = []
    single = False
    for feature in features:
        value = annotation.get(feature)
        if isinstance(value, str):
            labels.append(value)
            single = True
        elif value is not None:
            labels.extend(getattr(value, "elements", None) or [])
    return labels, single


def _span(annotation: Any, text: str, name: str, features: tuple[str, ...]) -> CasSpan:
    start, end = annotation.begin, annotation.end
    span = CasSpan(start, end, [])
    if not (isinstance(start, int) and isinstance(end, int) and 0 <= start < end <= len(text)):
        raise UimaFormatError(
            name, span.place, f"not a range of the text (0 ≤ begin < end ≤ {len(text)})"
        )
    labels, single = _labels(annotation, features)
    feature = "/".join(features)
    if not labels or not all(isinstance(label, str) and label.strip() for label in labels):
        raise UimaFormatError(name, f"{span.place}: {feature}", "expected one label or more")
    slots = _json_object(span, annotation.get("slots"), "slots", name)
    for label, values in slots.items():
        if not isinstance(values, dict) or not all(isinstance(v, str) for v in values.values()):
            raise UimaFormatError(
                name, f"{span.place}: slots.{label}", "expected an object of slot strings"
            )
    explanations = _json_object(span, annotation.get("explanations"), "explanations", name)
    if not all(isinstance(v, str) for v in explanations.values()):
        raise UimaFormatError(name, f"{span.place}: explanations", "expected label: text")
    return CasSpan(start, end, labels, slots, explanations, single and len(labels) == 1, feature)


def read_cas_files(cas_files: list[CasFile], root: Path) -> list[CasDocument]:
    """Every file's ``CasDocument``, read in a bounded child process
    (``fallacy_platform.bounded``): past a limit, a ``UimaFormatError`` naming it."""
    if not cas_files:
        return []
    try:
        return run_bounded(f"{__name__}:read_cas_here", cas_files, root)
    except LimitExceeded as error:
        raise UimaFormatError(str(root), None, str(error)) from None


def read_cas_here(cas_files: list[CasFile], root: Path) -> list[CasDocument]:
    return [read_cas(cas_file, root) for cas_file in cas_files]


def read_cas(cas_file: CasFile, root: Path) -> CasDocument:
    """The file's CAS as a ``CasDocument``; ``UimaFormatError`` when it is not CAS XMI, its
    type system lacks ``webanno.custom.Fallacy`` or an annotation does not fit."""
    cas = _load(cas_file, root)
    name = cas_file.name
    initial = cas_file.user == INITIAL_CAS
    features: tuple[str, ...] = ()
    if not initial:
        if not cas.typesystem.contains_type(FALLACY):
            raise UimaFormatError(name, None, f"the type system has no layer {FALLACY}")
        known = {f.name for f in cas.typesystem.get_type(FALLACY).all_features}
        features = tuple(f for f in LABEL_FEATURES if f in known)
        if not features:
            raise UimaFormatError(
                name, FALLACY, "the layer has no feature 'labels' (string array) or 'label'"
            )
    text = cas.sofa_string or ""
    if not text.strip():
        raise UimaFormatError(name, "sofa", "the CAS holds no text")
    problem = text_problem(text)
    if problem:
        raise UimaFormatError(name, "sofa", problem)
    sentences = []
    if cas.typesystem.contains_type(SENTENCE):
        sentences = [(s.begin, s.end) for s in cas.select(SENTENCE)]
    comments = []
    if cas.typesystem.contains_type(COMMENT):
        comments = [c.get("text") or "" for c in cas.select(COMMENT) if c.get("text")]
    title = ""
    if cas.typesystem.contains_type(METADATA):
        found = list(cas.select(METADATA))
        title = (found[0].get("documentTitle") or "") if found else ""
    if initial:  # the text as imported into INCEpTION: no one's annotations
        return CasDocument(text, sentences, [], [], title)
    spans = [_span(annotation, text, name, features) for annotation in cas.select(FALLACY)]
    return CasDocument(text, sentences, spans, comments, title)


def find_cas_files(path: Path, *, user: str | None = None) -> tuple[Path, list[CasFile]]:
    """The export's root and its CAS files, sorted: ``path`` is an export folder (with
    ``annotation/`` and/or ``curation/``), an ``annotation/`` or ``curation/`` folder, or one
    ``.xmi`` file (its annotator ``user``, else the file's stem; its document the folder's
    name)."""
    if path.is_file():
        if path.suffix.lower() not in (".xmi", ".zip"):
            raise UimaFormatError(path.name, None, "expected a .xmi file (or an export folder)")
        who = user or path.stem
        return path.parent, [CasFile(path, path.name, "", who)]
    if not path.is_dir():
        raise UimaFormatError(str(path), None, "no such file or folder")
    if path.name in (ANNOTATION_DIR, CURATION_DIR):
        folders, root = [path], path.parent
    else:
        folders, root = [path / ANNOTATION_DIR, path / CURATION_DIR], path
    files = []
    for folder in folders:
        if not folder.is_dir():
            continue
        for document in sorted(p for p in folder.iterdir() if p.is_dir()):
            for item in sorted(document.iterdir()):
                if item.suffix.lower() not in (".xmi", ".zip") or not item.is_file():
                    continue
                curated = folder.name == CURATION_DIR
                if item.stem in NOT_ANNOTATORS and not curated:
                    continue
                who = CURATION_USER if curated else item.stem  # INITIAL_CAS: texts only
                files.append(CasFile(item, str(item.relative_to(root)), document.name, who))
    if not files:
        raise UimaFormatError(
            path.name or str(path),
            None,
            f"no CAS files: expected {ANNOTATION_DIR}/<document>/<user>.xmi "
            f"or {CURATION_DIR}/<document>/{CURATION_USER}.xmi",
        )
    return root, files
