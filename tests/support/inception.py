"""CAS XMI files as INCEpTION writes them, made with dkpro-cassis (no Django).

A project export of INCEpTION (``write_project_export``) holds, per source document:

    source/<document>                               the uploaded file
    annotation/<document>/INITIAL_CAS.zip           the document as imported, no annotations
    annotation/<document>/<user>.zip                each annotator's CAS
    curation/<document>/CURATION_USER.zip           the curated CAS (curation finished)
    annotation_ser/..., curation_ser/...            the same CASes in UIMA's binary form
    exportedproject<N>.json                         the project's settings

where each ``.zip`` holds ``<user>.xmi`` and ``TypeSystem.xml`` (the "UIMA CAS XMI"
format of the export dialog). The type system carries INCEpTION's own types beside the
custom span layer ``webanno.custom.Fallacy``: DKPro Core's ``DocumentMetaData``,
``Sentence``, ``Token``, ``Lemma``, ``POS`` and ``NamedEntity``, and WebAnno's
``CASMetadata``. The layer has, by ``shape``:

- ``"label"``: one single-valued string feature ``label`` (INCEpTION's usual custom layer):
  several values of one range are annotations stacked over the same offsets, one a value;
- ``"labels"``: a multi-valued string feature ``labels`` (``uima.cas.StringArray``, written
  inline as UIMA's serializer does), with the platform's ``slots`` and ``explanations``;
- ``"both"``: the two features.

An ``Ann`` whose ``value`` is a string fills ``label``; a list fills ``labels``.
"""

from __future__ import annotations

import io
import json
import re
import zipfile
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from cassis import Cas, TypeSystem

FALLACY = "webanno.custom.Fallacy"
DKPRO = "de.tudarmstadt.ukp.dkpro.core.api"
SENTENCE = f"{DKPRO}.segmentation.type.Sentence"
TOKEN = f"{DKPRO}.segmentation.type.Token"
LEMMA = f"{DKPRO}.segmentation.type.Lemma"
POS = f"{DKPRO}.lexmorph.type.pos.POS"
NAMED_ENTITY = f"{DKPRO}.ner.type.NamedEntity"
METADATA = f"{DKPRO}.metadata.type.DocumentMetaData"
CAS_METADATA = "de.tudarmstadt.ukp.clarin.webanno.api.type.CASMetadata"
INITIAL_CAS = "INITIAL_CAS"
CURATION_USER = "CURATION_USER"
STRING = "uima.cas.String"


@dataclass(frozen=True)
class Ann:
    """One annotation of the layer: ``value`` a string (``label``) or a list (``labels``)."""

    begin: int
    end: int
    value: str | list[str]
    slots: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    explanations: Mapping[str, str] = field(default_factory=dict)


def _features(ts: TypeSystem, type_name: str, supertype: str, features: dict[str, str]) -> None:
    created = ts.create_type(type_name, supertypeName=supertype)
    for name, range_type in features.items():
        ts.create_feature(created, name, range_type)


def inception_type_system(*, shape: str = "label") -> TypeSystem:
    """INCEpTION's type system of a project with the custom span layer (see the module)."""
    if shape not in ("label", "labels", "both"):
        raise ValueError(f"shape: expected label, labels or both, got {shape!r}")
    ts = TypeSystem()
    _features(
        ts,
        METADATA,
        "uima.tcas.DocumentAnnotation",
        {
            "documentTitle": STRING,
            "documentId": STRING,
            "documentUri": STRING,
            "collectionId": STRING,
            "documentBaseUri": STRING,
            "isLastSegment": "uima.cas.Boolean",
        },
    )
    _features(
        ts,
        CAS_METADATA,
        "uima.cas.TOP",
        {
            "projectId": "uima.cas.Long",
            "projectName": STRING,
            "projectSlug": STRING,
            "sourceDocumentId": "uima.cas.Long",
            "sourceDocumentName": STRING,
            "username": STRING,
            "lastChangedOnDisk": "uima.cas.Long",
        },
    )
    _features(ts, SENTENCE, "uima.tcas.Annotation", {"id": STRING})
    _features(ts, LEMMA, "uima.tcas.Annotation", {"value": STRING})
    _features(ts, POS, "uima.tcas.Annotation", {"PosValue": STRING, "coarseValue": STRING})
    _features(ts, TOKEN, "uima.tcas.Annotation", {"id": STRING, "order": "uima.cas.Integer"})
    token = ts.get_type(TOKEN)
    ts.create_feature(token, "lemma", LEMMA)
    ts.create_feature(token, "pos", POS)
    _features(ts, NAMED_ENTITY, "uima.tcas.Annotation", {"value": STRING, "identifier": STRING})
    layer = ts.create_type(FALLACY, supertypeName="uima.tcas.Annotation")
    if shape in ("label", "both"):
        ts.create_feature(layer, "label", STRING)
    if shape in ("labels", "both"):
        ts.create_feature(
            layer,
            "labels",
            "uima.cas.StringArray",
            elementType=STRING,
            multipleReferencesAllowed=False,
        )
        ts.create_feature(layer, "slots", STRING)
        ts.create_feature(layer, "explanations", STRING)
    return ts


def sentence_ranges(text: str) -> list[tuple[int, int]]:
    """Sentences ending in ``.``, ``!`` or ``?`` (the last one at the text's end), without
    surrounding whitespace."""
    ranges = []
    for match in re.finditer(r"[^.!?]+(?:[.!?]+|$)", text):
        part = match.group()
        if part.strip():
            start = match.start() + len(part) - len(part.lstrip())
            ranges.append((start, match.start() + len(part.rstrip())))
    return ranges


def inception_xmi(
    ts: TypeSystem,
    *,
    text: str,
    document: str,
    user: str,
    annotations: Iterable[Ann] = (),
    sentences: Sequence[tuple[int, int]] | None = None,
) -> str:
    """One user's CAS of ``document``: metadata, sentences, tokens (with a POS and a lemma
    each), a named entity, and the layer's ``annotations`` in order."""
    cas = Cas(typesystem=ts)
    cas.sofa_string = text
    cas.add(
        ts.get_type(METADATA)(
            begin=0,
            end=len(text),
            documentTitle=document,
            documentId=user,
            documentUri=f"file:/srv/inception/{document}",
            collectionId="fallacies",
            isLastSegment=False,
        )
    )
    cas.add(
        ts.get_type(CAS_METADATA)(
            projectId=7,
            projectName="fallacies",
            projectSlug="fallacies",
            sourceDocumentId=11,
            sourceDocumentName=document,
            username=user,
            lastChangedOnDisk=1767225600000,
        )
    )
    for index, (start, end) in enumerate(sentences or sentence_ranges(text)):
        cas.add(ts.get_type(SENTENCE)(begin=start, end=end, id=f"s{index}"))
    for order, match in enumerate(re.finditer(r"\w+|[^\w\s]", text)):
        start, end = match.span()
        lemma = ts.get_type(LEMMA)(begin=start, end=end, value=match.group().lower())
        pos = ts.get_type(POS)(begin=start, end=end, PosValue="X", coarseValue="X")
        cas.add_all([lemma, pos])
        cas.add(ts.get_type(TOKEN)(begin=start, end=end, order=order, lemma=lemma, pos=pos))
        if order == 0:
            cas.add(ts.get_type(NAMED_ENTITY)(begin=start, end=end, value="OTH"))
    layer = ts.get_type(FALLACY)
    strings = ts.get_type("uima.cas.StringArray")
    for ann in annotations:
        if isinstance(ann.value, str):
            cas.add(layer(begin=ann.begin, end=ann.end, label=ann.value))
            continue
        values: dict[str, object] = {"labels": strings(elements=list(ann.value))}
        if ann.slots:
            values["slots"] = json.dumps(ann.slots)
        if ann.explanations:
            values["explanations"] = json.dumps(ann.explanations)
        cas.add(layer(begin=ann.begin, end=ann.end, **values))
    return cas.to_xmi()


def user_zip(ts: TypeSystem, xmi: str, user: str) -> bytes:
    """``<user>.xmi`` and ``TypeSystem.xml`` zipped, as the export writes one user's CAS."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(f"{user}.xmi", xmi)
        archive.writestr("TypeSystem.xml", ts.to_xml())
    return buffer.getvalue()


def write_project_export(
    root: Path,
    *,
    texts: Mapping[str, str],
    annotations: Mapping[tuple[str, str], list[Ann]],
    curation: Mapping[str, list[Ann]] | None = None,
    shape: str = "label",
    initial_cas: bool = True,
) -> Path:
    """An unpacked INCEpTION project export at ``root``: ``texts`` by document name,
    ``annotations`` by (document, user), ``curation`` by document (see the module)."""
    ts = inception_type_system(shape=shape)
    curation = curation or {}
    files: dict[str, bytes] = {}
    for document, text in texts.items():
        files[f"source/{document}"] = text.encode()
        cases = [(INITIAL_CAS, [])] if initial_cas else []
        cases += [(user, anns) for (doc, user), anns in annotations.items() if doc == document]
        for user, anns in cases:
            xmi = inception_xmi(ts, text=text, document=document, user=user, annotations=anns)
            files[f"annotation/{document}/{user}.zip"] = user_zip(ts, xmi, user)
            files[f"annotation_ser/{document}/{user}.ser"] = b"\xac\xed\x00\x05binary CAS"
        if document in curation:
            xmi = inception_xmi(
                ts, text=text, document=document, user=CURATION_USER,
                annotations=curation[document],
            )  # fmt: skip
            files[f"curation/{document}/{CURATION_USER}.zip"] = user_zip(ts, xmi, CURATION_USER)
            files[f"curation_ser/{document}/{CURATION_USER}.ser"] = b"\xac\xed\x00\x05binary"
    project = {
        "name": "fallacies",
        "source_documents": [{"name": d, "format": "text"} for d in texts],
        "annotation_documents": [
            {"name": d, "user": u, "state": "FINISHED"} for d, u in annotations
        ],
    }
    files["exportedproject7.json"] = json.dumps(project).encode()
    for relative, data in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    return root
