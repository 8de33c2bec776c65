"""The disjunctive annotation scheme.

A *span* is a character range with a set of alternative labels: any one of them is an
acceptable annotation of the range. The special label ``NO_FALLACY`` (⊥) among them makes
annotating the range optional. Two spans on the same range are two *required* labels,
which is different from one span with two alternatives.

Invariants the database can enforce are constraints here; the rest (labels drawn from the
project's taxonomy, ranges inside the text, sentence snapping) is checked by the services
(``annotations.spans`` states what a valid span is).

- ``taxonomy``: taxonomies and their label trees;
- ``projects``: projects, memberships, documents, sentences, assignments (and the counters
  the database keeps on them);
- ``imports``: import jobs;
- ``invitations``: single-use links that make their holder a project member;
- ``label_studio``: the platform user holding each Label Studio annotator's work;
- ``annotations``: annotators' annotations and spans;
- ``gold``: gold standard versions, their documents and spans.
"""

from annotations.models.annotations import Annotation, Span, SpanBase, span_constraints
from annotations.models.gold import (
    ADJUDICATION,
    GoldDocument,
    GoldSpan,
    GoldStandard,
    PublishedGoldIsImmutable,
    cascade_unless_published,
)
from annotations.models.imports import ImportJob, ImportUpload
from annotations.models.invitations import Invitation
from annotations.models.label_studio import LabelStudioAnnotator
from annotations.models.projects import (
    AnnotatorCounter,
    Assignment,
    CountersNotSaved,
    Document,
    Membership,
    Project,
    Sentence,
)
from annotations.models.taxonomy import Taxonomy, TaxonomyNode

__all__ = [
    "ADJUDICATION",
    "Annotation",
    "AnnotatorCounter",
    "Assignment",
    "CountersNotSaved",
    "Document",
    "GoldDocument",
    "GoldSpan",
    "GoldStandard",
    "ImportJob",
    "ImportUpload",
    "Invitation",
    "LabelStudioAnnotator",
    "Membership",
    "Project",
    "PublishedGoldIsImmutable",
    "Sentence",
    "Span",
    "SpanBase",
    "Taxonomy",
    "TaxonomyNode",
    "cascade_unless_published",
    "span_constraints",
]
