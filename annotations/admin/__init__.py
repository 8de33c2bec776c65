"""Django admin for the annotation data: each module registers the pages of one concern.

Spans and sentences are read-only here: spans change through the API (which validates them
against the taxonomy and sentences and bumps revisions), sentences are derived from the text.
Documents are added and changed through ``services.documents`` (sentences split, readable
name set; a text with annotations or gold spans on it cannot change: a form error says so).
Published gold standards are immutable: their page, documents and spans are view-only, and a
document a published version covers cannot be deleted. Annotations, spans and gold rows show
their history (django-simple-history's "History" page).
"""

from annotations.admin import annotating, documents, gold, projects, taxonomies

__all__ = ["annotating", "documents", "gold", "projects", "taxonomies"]
