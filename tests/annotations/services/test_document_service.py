"""Sentences are never missing: documents added or changed through the one document service,
from the API's service calls and from the real Django admin forms."""

from __future__ import annotations

from html.parser import HTMLParser

import pytest
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.test import Client
from django.urls import reverse

from annotations.models import Annotation, Document, GoldDocument, GoldSpan, GoldStandard
from annotations.services.documents import add_document, change_document_text
from tests.support.factories import BOUNDS, PASSWORD, TEXT, World, make_world

pytestmark = pytest.mark.django_db

NEW_TEXT = "Cats are great. Therefore all animals are great! Nobody disagrees."


class _FormFields(HTMLParser):
    """The fields a browser would submit from the admin's change form."""

    def __init__(self) -> None:
        super().__init__()
        self.fields: dict[str, str] = {}
        self._textarea: str | None = None
        self._select: str | None = None
        self._in_form = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {key: value or "" for key, value in attrs}
        if tag == "form" and a.get("id", "").endswith("_form"):
            self._in_form = True
        if not self._in_form:
            return
        name = a.get("name")
        if tag == "input" and name and a.get("type") not in ("submit", "checkbox"):
            self.fields[name] = a.get("value", "")
        elif tag == "input" and name and a.get("type") == "checkbox" and "checked" in a:
            self.fields[name] = a.get("value", "on")
        elif tag == "textarea" and name:
            self._textarea = name
            self.fields[name] = ""
        elif tag == "select" and name:
            self._select = name
        elif tag == "option" and self._select and "selected" in a:
            self.fields[self._select] = a.get("value", "")

    def handle_endtag(self, tag: str) -> None:
        if tag == "form":
            self._in_form = False
        elif tag == "textarea":
            self._textarea = None
        elif tag == "select":
            self._select = None

    def handle_data(self, data: str) -> None:
        if self._textarea:
            self.fields[self._textarea] += data


def form_fields(html: str) -> dict[str, str]:
    parser = _FormFields()
    parser.feed(html)
    fields = parser.fields
    for name, value in fields.items():  # the template starts a textarea with a newline
        if value.startswith("\n"):
            fields[name] = value[1:]
    return fields


@pytest.fixture
def world(settings) -> World:
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    return make_world()


@pytest.fixture
def root() -> Client:
    User.objects.create_superuser("root", password=PASSWORD)
    client = Client()
    client.login(username="root", password=PASSWORD)
    return client


def _sentences(document: Document) -> list[str]:
    return [document.text[s.start : s.end] for s in document.sentences.order_by("index")]


def test_a_document_added_in_the_django_admin_gets_sentences_and_a_name(world, root):
    url = reverse("admin:annotations_document_add")
    fields = form_fields(root.get(url).content.decode())
    fields.update(project=str(world.p1.pk), text=NEW_TEXT, external_id="", source="admin")
    before = Document.objects.filter(project=world.p1).count()

    response = root.post(url, fields)

    assert response.status_code == 302, response.content.decode()[:3000]
    document = Document.objects.filter(project=world.p1).latest("pk")
    assert Document.objects.filter(project=world.p1).count() == before + 1
    assert _sentences(document) == [
        "Cats are great.",
        "Therefore all animals are great!",
        "Nobody disagrees.",
    ]
    assert document.name == "Cats are great. Therefore all animals are great! …"
    assert document.position == 3  # after the project's last document


def test_changing_the_text_of_an_annotated_document_in_the_admin_is_refused(world, root):
    document = world.d1  # annotated by ann1 and ann2
    url = reverse("admin:annotations_document_change", args=[document.pk])
    fields = form_fields(root.get(url).content.decode())
    fields["text"] = NEW_TEXT

    response = root.post(url, fields)

    assert response.status_code == 200  # the form again, with the error
    message = (
        f"document {document.pk} has annotations (or gold spans); changing its text would "
        "make their offsets stale"
    )
    assert message in response.content.decode()
    document.refresh_from_db()
    assert document.text == TEXT
    assert [(s.start, s.end) for s in document.sentences.order_by("index")] == BOUNDS


def test_an_unchanged_text_from_the_browser_is_no_change(world, root):
    """Browsers send CRLF line breaks; saving other fields of an annotated document works."""
    document = world.d1
    Document.objects.filter(pk=document.pk).update(text=TEXT.replace(" So", "\nSo"))
    url = reverse("admin:annotations_document_change", args=[document.pk])
    fields = form_fields(root.get(url).content.decode())
    fields["text"] = fields["text"].replace("\n", "\r\n")
    fields["source"] = "edited in the admin"

    response = root.post(url, fields)

    assert response.status_code == 302, response.content.decode()[:3000]
    document.refresh_from_db()
    assert document.source == "edited in the admin"
    assert document.text == TEXT.replace(" So", "\nSo")


def test_changing_an_unannotated_document_in_the_admin_resplits_it_and_renames_it(world, root):
    document = world.d3  # assigned to nobody, no annotation
    url = reverse("admin:annotations_document_change", args=[document.pk])
    fields = form_fields(root.get(url).content.decode())
    fields.update(text=NEW_TEXT, external_id="")

    response = root.post(url, fields)

    assert response.status_code == 302, response.content.decode()[:3000]
    document.refresh_from_db()
    assert document.text == NEW_TEXT
    assert len(_sentences(document)) == 3
    assert document.name.startswith("Cats are great.")


def test_the_service_refuses_blank_texts_taken_ids_and_texts_with_gold_spans(world):
    with pytest.raises(ValidationError) as blank:
        add_document(project=world.p1, text="  \n ")
    assert blank.value.message_dict == {"text": ["the text is blank"]}

    with pytest.raises(ValidationError) as taken:
        add_document(project=world.p1, text="Another text.", external_id=world.d1.external_id)
    assert "external_id" in taken.value.message_dict

    document = add_document(project=world.p1, text="One. Two.", external_id="x-1")
    assert (document.name, len(_sentences(document))) == ("x-1", 2)
    gold = GoldStandard.objects.create(project=world.p1, version=9)
    GoldDocument.objects.create(gold_standard=gold, document=document)
    GoldSpan.objects.create(
        gold_standard=gold, document=document, start=0, end=4, labels=["ad hominem"]
    )
    assert not Annotation.objects.filter(document=document).exists()
    with pytest.raises(ValidationError) as refused:
        change_document_text(document=document, text="Three.")
    assert refused.value.message_dict["text"] == [
        f"document {document.pk} has annotations (or gold spans); changing its text would "
        "make their offsets stale"
    ]
    document.refresh_from_db()
    assert document.text == "One. Two."


def test_a_blank_text_that_got_past_the_checks_adds_no_document(world):
    """``create_documents`` refuses a document without sentences even where no reader or
    service checked the text first; ``add_documents`` rolls the whole batch back."""
    from annotations.importing.sentences import SentenceError
    from annotations.services.documents import NewDocument, add_documents

    before = Document.objects.filter(project=world.p1).count()
    with pytest.raises(SentenceError, match="text 2 of the batch is blank"):
        add_documents(
            project=world.p1, texts=[NewDocument(text="Fine. Two."), NewDocument(text=" \n\t")]
        )
    assert Document.objects.filter(project=world.p1).count() == before


def test_documents_added_in_bulk_get_their_sentences_in_order(world):
    from annotations.models import Sentence
    from annotations.services.documents import NewDocument, add_documents

    texts = [f"Text {n}. It has “three” sentences. TITLE: the last" for n in range(700)]
    documents = add_documents(project=world.p1, texts=[NewDocument(text=t) for t in texts])
    rows = Sentence.objects.filter(document__in=documents).values_list(
        "document_id", "index", "start", "end"
    )
    by_document: dict[int, list[tuple[int, int, int]]] = {}
    for document_id, index, start, end in rows:
        by_document.setdefault(document_id, []).append((index, start, end))
    for document in documents:
        found = sorted(by_document[document.pk])
        assert [index for index, _, _ in found] == [0, 1, 2]
        assert [document.text[s:e] for _, s, e in found] == [
            document.text.split(" It")[0],
            "It has “three” sentences.",
            "TITLE: the last",
        ]
