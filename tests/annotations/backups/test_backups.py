"""Project backups: ``export_project`` / ``import_project``.

A span project and an item project are built through the services (taxonomy preset,
guidelines, documents with metadata and sentences, members, assignments, annotations with
spans, templates, edits and a deletion recorded in the history, a submitted annotation, item
responses, gold versions published and drafted through adjudication, a stored run scored
against the gold, an item run and a judge run of it run in-process with the ``random``
backend). Their archives are imported into an EMPTY instance (a fresh embedded SQLite in a
subprocess) and exported there again: the bytes must be equal. In this database: a damaged
archive imports nothing and names the member, line and field; importing again is refused by
name and changes nothing; ``--rename`` imports a copy whose archive differs only by its name.
"""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import pytest
from django.apps import apps
from django.contrib.auth.models import User
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import RequestFactory
from simple_history.models import HistoricalRecords

from annotations.backups import ArchiveError, ProjectExists, export_project, import_project
from annotations.backups.format import MANIFEST, not_archived, tables
from annotations.models import Assignment, Document, GoldStandard, Project, TaxonomyNode
from annotations.services.annotations import (
    create_span,
    delete_span,
    start_annotation,
    submit_annotation,
    update_span,
)
from annotations.services.assignments import assign_to_annotators
from annotations.services.documents import NewDocument, add_documents
from annotations.services.gold import publish_draft, save_document_gold
from annotations.services.projects import add_member, create_project
from annotations.services.responses import start_and_save_response, submit_response
from annotations.services.taxonomy import install_preset
from evaluation.backends import ModelSpec
from evaluation.judging.launch import launch_judge_run
from evaluation.models import ModelRun, PromptVariant, RunOutput
from evaluation.runs.imports import import_run
from evaluation.runs.runner import run_shard
from evaluation.runs.services import complete_scoring, finish_shard, score_and_store, start_shard
from tests.support.builtin_rows import builtin_judge_variant
from tests.support.processes import embedded_env, manage

TEXTS = [
    "We must ban cars. Otherwise the city will burn. Everyone agrees anyway.",
    "My opponent is a liar, so his plan fails. Vote for me.",
    "It rained after I washed the car. Washing causes rain.",
]
FORM = {
    "fields": [
        {"name": "type", "kind": "classification", "labels": ["a", "b"]},
        {"name": "explanation", "kind": "free-text"},
    ]
}


def as_user(user: User | None) -> None:
    """Who django-simple-history records as the author of the next writes."""
    if user is None:
        HistoricalRecords.context.request = None
        del HistoricalRecords.context.request
        return
    request = RequestFactory().get("/")
    request.user = user
    HistoricalRecords.context.request = request


def judge_variant() -> PromptVariant:
    return builtin_judge_variant("judge-reference")


def build_span_project(tmp_path: Path) -> Project:
    admin = User.objects.create_user("bk-admin", email="admin@example.org", first_name="Ada")
    reviewer = User.objects.create_user("bk-reviewer")
    ann1, ann2 = User.objects.create_user("bk-ann1"), User.objects.create_user("bk-ann2")
    project = create_project(
        name="Backup spans",
        taxonomy=install_preset(name="mafalda"),
        guidelines="# Guidelines\n\nLabel *every* fallacy.",
        description="backup test",
        annotators_per_document=2,
        created_by=admin,
    )
    add_member(project=project, user=reviewer, role="reviewer")
    for user in (ann1, ann2):
        add_member(project=project, user=user, role="annotator")
    documents = add_documents(
        project=project,
        texts=[
            NewDocument(text=text, external_id=f"t{i}", source="test", metadata={"i": i, "x": [1]})
            for i, text in enumerate(TEXTS)
        ],
    )
    assign_to_annotators(project=project, annotators=[ann1, ann2], per_document=2)
    first, second = documents[0], documents[1]
    end = annotate_with_history(first, second, ann1, ann2)
    gold = review_gold(first, second, end, reviewer=reviewer, proposers=[ann1, ann2])
    import_scored_run(project, first, second, gold, admin, tmp_path)
    return project


def annotate_with_history(first: Document, second: Document, ann1: User, ann2: User) -> int:
    """ann1 submits the first text (a span changed once and one deleted: an orphan in the
    history); ann2 starts the second. Returns where the first text's second sentence ends."""
    as_user(ann1)
    annotation = start_annotation(document=first, annotator=ann1)
    end = first.sentences.order_by("index")[1].end
    span = create_span(
        annotation=annotation,
        start=0,
        end=end,
        labels=["appeal to fear", "nothing"],
        details={"appeal to fear": {"slots": {"P1": "cars", "P2": "fire"}, "explanation": "fear"}},
        by=ann1,
    )
    span = update_span(
        span=span,
        expected_revision=span.revision,
        by=ann1,
        labels=["appeal to fear", "appeal to anger"],
        details={"appeal to anger": {"slots": {"E": "x", "P": "y"}, "explanation": "anger"}},
    )
    doomed = create_span(annotation=annotation, start=0, end=end, labels=["ad populum"], by=ann1)
    delete_span(span=doomed, expected_revision=doomed.revision, by=ann1)  # an orphan in history
    annotation.refresh_from_db()
    submit_annotation(annotation=annotation, by=ann1)
    as_user(ann2)
    other = start_annotation(document=second, annotator=ann2)
    create_span(annotation=other, start=0, end=len(second.text), labels=["ad hominem"], by=ann2)
    return end


def review_gold(
    first: Document, second: Document, end: int, *, reviewer: User, proposers: list[User]
) -> GoldStandard:
    """The reviewer publishes gold version 1 and starts a new draft based on it."""
    as_user(reviewer)
    save_document_gold(
        document=first,
        revision=0,
        spans=[
            {
                "start": 0,
                "end": end,
                "labels": ["appeal to fear", "nothing"],
                "proposed_by": {"appeal to fear": [user.pk for user in proposers]},
            }
        ],
        comments=["checked"],
        by=reviewer,
    )
    save_document_gold(document=second, revision=0, spans=[], by=reviewer)
    gold = publish_draft(project=first.project, note="first version", by=reviewer)
    save_document_gold(  # a new draft based on version 1
        document=second,
        revision=1,
        spans=[{"start": 0, "end": len(second.text), "labels": ["ad hominem"]}],
        by=reviewer,
    )
    as_user(None)
    return gold


def import_scored_run(
    project: Project,
    first: Document,
    second: Document,
    gold: GoldStandard,
    admin: User,
    tmp_path: Path,
) -> None:
    """A run imported against the gold version and scored."""
    raw = tmp_path / "raw.jsonl"
    sentences = [first.text[s.start : s.end] for s in first.sentences.order_by("index")]
    records = [
        {"text": first.text, "prediction": {s: "appeal to fear" for s in sentences}},
        {"text": second.text, "prediction": {second.text: "nothing"}},
    ]
    raw.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    run = import_run(project=project, path=raw, name="stored", gold_standard=gold, created_by=admin)
    score_and_store(run=run)


def _judged_answers(*, project: Project, documents: list[Document], admin: User) -> None:
    """A free-text run of answers to every item, and a finished judge run of it."""
    answers = ModelRun.objects.create(
        project=project, name="answers", backend="random", task="free-text",
        field="explanation", status="done", created_by=admin,
    )  # fmt: skip
    RunOutput.objects.bulk_create(
        RunOutput(
            run=answers,
            document=d,
            unit_index=0,
            unit_text=d.text,
            raw_output=f"x {i}",
            answer=f"x {i}",
            parsed_labels=f"x {i}",
        )  # fmt: skip
        for i, d in enumerate(documents)
    )
    judge = launch_judge_run(
        project=project,
        judge_model=ModelSpec("random", ""),
        variant=judge_variant(),
        judged_run=answers,
        repeats=2,
        created_by=admin,
        enqueue=False,
    )
    start_shard(run_id=judge.pk, index=0, worker="test")
    run_shard(judge.pk, 0, log=lambda line: None)
    finish_shard(run_id=judge.pk, index=0, status="done")
    complete_scoring(run_id=judge.pk)
    judge.refresh_from_db()
    assert judge.status == "done", judge.error


def build_item_project() -> Project:
    admin = User.objects.get(username="bk-admin")
    annotator = User.objects.create_user("bk-item-annotator")
    project = create_project(
        name="Backup items",
        taxonomy=install_preset(name="mafalda"),
        kind="items",
        form=FORM,
        created_by=admin,
    )
    add_member(project=project, user=annotator, role="annotator")
    documents = add_documents(
        project=project,
        texts=[
            NewDocument(text=text, metadata={"gold": {"type": "a", "explanation": f"why {i}"}})
            for i, text in enumerate(TEXTS)
        ],
    )
    assign_to_annotators(project=project, annotators=[annotator], per_document=1)
    annotation = start_and_save_response(
        document=documents[0],
        annotator=annotator,
        response={"type": "b", "explanation": "because"},
        expected_revision=None,
    )
    submit_response(annotation=annotation, expected_revision=annotation.revision, by=annotator)
    start_and_save_response(
        document=documents[1], annotator=annotator, response={"type": "a"}, expected_revision=None
    )
    _judged_answers(project=project, documents=documents, admin=admin)
    return project


def members(path: Path) -> dict[str, bytes]:
    with zipfile.ZipFile(path) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


def rows(path: Path, member: str) -> list[dict]:
    return [json.loads(line) for line in members(path)[member].splitlines()]


def database_rows() -> dict[str, int]:
    return {
        model._meta.label: model.objects.count()
        for model in apps.get_models()
        if model._meta.app_label in ("annotations", "evaluation", "auth")
    }


@pytest.fixture
def archives(db, tmp_path: Path) -> dict[str, Path]:
    spans = build_span_project(tmp_path)
    items = build_item_project()
    out = {}
    for key, project in (("spans", spans), ("items", items)):
        out[key] = tmp_path / f"{key}.zip"
        export_project(project=project, out=out[key])
    return out


def test_archive_holds_everything_of_the_project(archives) -> None:
    spans = archives["spans"]
    manifest = json.loads(members(spans)[MANIFEST])
    counts = manifest["counts"]
    assert manifest["format"] == "fallacy-project-archive" and manifest["version"] == 1
    assert counts["documents.jsonl"] == 3 and counts["sentences.jsonl"] >= 7
    assert counts["memberships.jsonl"] == 4 and counts["assignments.jsonl"] == 6
    assert counts["annotations.jsonl"] == 2 and counts["spans.jsonl"] == 2
    assert counts["gold_standards.jsonl"] == 2  # version 1 and the draft based on it
    assert counts["runs.jsonl"] == 1 and counts["run_scores.jsonl"] == 2
    assert [u["username"] for u in rows(spans, "users.jsonl")] == [
        "bk-admin", "bk-ann1", "bk-ann2", "bk-reviewer",
    ]  # fmt: skip
    history = rows(spans, "history_spans.jsonl")
    assert [h["history_type"] for h in history] == ["+", "~", "+", "-", "+"]
    assert {h["history_user"] for h in history} == {"bk-ann1", "bk-ann2"}
    assert history[2]["id"] == history[3]["id"] == 3  # the deleted span: after the 2 live ones
    gold = rows(spans, "gold_standards.jsonl")
    assert [(g["version"], g["status"], g["based_on"]) for g in gold] == [
        (1, "published", None),
        (2, "draft", 1),
    ]
    [proposed] = [s["proposed_by"] for s in rows(spans, "gold_spans.jsonl")][:1]
    assert proposed == {"appeal to fear": ["bk-ann1", "bk-ann2"]}
    [document] = rows(spans, "documents.jsonl")[:1]
    assert document["metadata"] == {"i": 0, "x": [1]} and document["external_id"] == "t0"
    assert "Label *every* fallacy" in rows(spans, "project.jsonl")[0]["guidelines"]
    items = archives["items"]
    responses = [a["response"] for a in rows(items, "annotations.jsonl")]
    assert responses == [{"type": "b", "explanation": "because"}, {"type": "a"}]
    runs = rows(items, "runs.jsonl")
    assert [(r["name"], r["judged_run"]) for r in runs] == [("answers", None), (runs[1]["name"], 1)]
    [score] = rows(items, "run_scores.jsonl")
    assert set(score["report"]["per_item"]) == {"1", "2", "3"}  # archive ids of documents
    [variant] = rows(items, "prompt_variants.jsonl")
    assert variant["builtin"] and variant["created_at"] is None  # the migration's, not data


def test_an_empty_instance_restores_both_projects_byte_for_byte(archives, tmp_path) -> None:
    env = embedded_env(tmp_path / "empty")
    again = {key: tmp_path / f"again-{key}.zip" for key in archives}
    script = "\n".join(
        [
            "from django.core.management import call_command",
            "call_command('migrate', interactive=False, verbosity=0)",
            *(
                f"call_command('import_project', {str(archives[key])!r}); "
                f"call_command('export_project', {name!r}, out={str(again[key])!r})"
                for key, name in (("spans", "Backup spans"), ("items", "Backup items"))
            ),
        ]
    )
    done = manage("shell", "-c", script, env=env, timeout=300)
    assert done.returncode == 0, done.stderr + done.stdout
    assert "created 4 inactive users without a password" in done.stdout
    assert "created 1 inactive users without a password" in done.stdout
    assert "bk-ann1" in done.stdout and "bk-item-annotator" in done.stdout
    for key in archives:
        before, after = members(archives[key]), members(again[key])
        assert list(before) == list(after)
        for name in before:
            assert before[name] == after[name], name
        assert archives[key].read_bytes() == again[key].read_bytes()


def damaged(source: Path, target: Path, member: str, change) -> Path:
    with zipfile.ZipFile(source) as archive, zipfile.ZipFile(target, "w") as out:
        for info in archive.infolist():
            data = archive.read(info.filename)
            if info.filename == member:
                lines = data.decode().splitlines()
                lines = change(lines)
                data = ("\n".join(lines) + "\n").encode()
            out.writestr(info, data)
    return target


def edit_line(number: int, **values):
    def change(lines: list[str]) -> list[str]:
        row = json.loads(lines[number - 1])
        row.update(values)
        lines[number - 1] = json.dumps(row)
        return lines

    return change


@pytest.mark.parametrize(
    ("member", "change", "message"),
    [
        ("spans.jsonl", edit_line(2, start="x"), "spans.jsonl:2: start: expected an integer"),
        ("spans.jsonl", edit_line(1, annotation=9), "spans.jsonl:1: annotation: no row 9"),
        ("documents.jsonl", edit_line(3, colour="red"), "documents.jsonl:3: colour: unknown"),
        ("runs.jsonl", lambda lines: [*lines[:-1], "{oops"], "runs.jsonl:1: not JSON"),
        ("history_spans.jsonl", edit_line(5, history_user="nobody"), "history_spans.jsonl:5: "
         "history_user: user 'nobody' is not in users.jsonl"),
        ("spans.jsonl", edit_line(1, end=0), "spans.jsonl: lines 1-2:"),  # a database check
        ("sentences.jsonl", lambda lines: lines[:-1], "counts: sentences.jsonl has 6 rows"),
    ],
)  # fmt: skip
def test_a_bad_archive_imports_nothing_and_names_the_place(
    archives, tmp_path, member, change, message
) -> None:
    Project.objects.filter(name="Backup spans").update(name="Renamed before the import")
    bad = damaged(archives["spans"], tmp_path / "bad.zip", member, change)
    before = database_rows()
    with pytest.raises(ArchiveError) as error:
        import_project(path=bad)
    assert message in str(error.value)
    assert database_rows() == before
    with pytest.raises(CommandError, match="nothing imported"):
        call_command("import_project", str(bad), stdout=io.StringIO())


def test_a_file_that_is_no_archive_is_refused(tmp_path, db) -> None:
    truncated = tmp_path / "cut.zip"
    truncated.write_bytes(b"PK\x03\x04 not really")
    with pytest.raises(ArchiveError, match="cut.zip: not a project archive"):
        import_project(path=truncated)


def test_importing_twice_is_refused_and_rename_makes_an_identical_copy(archives, tmp_path):
    before = database_rows()
    with pytest.raises(ProjectExists, match="'Backup spans' exists"):
        import_project(path=archives["spans"])
    assert database_rows() == before
    with pytest.raises(CommandError, match="--rename NEW"):
        call_command("import_project", str(archives["spans"]), stdout=io.StringIO())
    out = io.StringIO()
    call_command("import_project", str(archives["spans"]), rename="Copy", stdout=out)
    assert "inactive" not in out.getvalue()  # every user exists here
    copy = Project.objects.get(name="Copy")
    original = Project.objects.get(name="Backup spans")
    assert copy.taxonomy_id == original.taxonomy_id  # the identical taxonomy is reused
    assert Assignment.objects.filter(document__project=copy).count() == 6
    assert not set(Document.objects.filter(project=copy).values_list("pk", flat=True)) & set(
        Document.objects.filter(project=original).values_list("pk", flat=True)
    )
    again = tmp_path / "copy.zip"
    call_command("export_project", str(copy.pk), out=str(again), stdout=io.StringIO())
    before, after = members(archives["spans"]), members(again)
    differ = sorted(name for name in before if before[name] != after[name])
    assert differ == [MANIFEST, "project.jsonl"]
    assert rows(again, "project.jsonl")[0]["name"] == "Copy"
    for counter in getattr(Project, "COUNTERS", ()):  # kept by the database, not archived
        assert getattr(copy, counter) == getattr(original, counter), counter


def test_an_archive_written_before_the_templates_setting_restores_with_its_default(
    archives, tmp_path
) -> None:
    def without_setting(lines: list[str]) -> list[str]:
        row = json.loads(lines[0])
        del row["justification_templates"]
        return [json.dumps(row)]

    older = damaged(archives["spans"], tmp_path / "older.zip", "project.jsonl", without_setting)
    call_command("import_project", str(older), rename="From older", stdout=io.StringIO())
    assert Project.objects.get(name="From older").justification_templates == "optional"
    unknown = damaged(
        archives["spans"], tmp_path / "unknown.zip", "project.jsonl", edit_line(1, extra=1)
    )
    with pytest.raises(ArchiveError, match="project.jsonl:1: extra: unknown field"):
        import_project(path=unknown, rename="Not imported")


def test_a_different_taxonomy_or_variant_here_gets_a_new_version(archives) -> None:
    items = Project.objects.get(name="Backup items")
    TaxonomyNode.objects.filter(taxonomy=items.taxonomy, name="ad hominem").update(
        definition="changed here"
    )
    PromptVariant.objects.filter(
        pk=items.runs.exclude(prompt_variant=None)[0].prompt_variant_id
    ).update(template="changed {candidate} {reference}")
    out = io.StringIO()
    call_command("import_project", str(archives["items"]), rename="Items again", stdout=out)
    assert "taxonomy mafalda v" in out.getvalue() and "+restored" in out.getvalue()
    assert "prompt variant judge-reference/" in out.getvalue() and "created as v2" in out.getvalue()
    copy = Project.objects.get(name="Items again")
    assert copy.taxonomy_id != items.taxonomy_id
    assert copy.taxonomy.nodes.get(name="ad hominem").definition != "changed here"
    judge = copy.runs.exclude(prompt_variant=None).get()
    assert judge.prompt_variant.version == 2 and "changed" not in judge.prompt_variant.template


def test_every_field_of_every_model_is_archived_or_said_not_to_be() -> None:
    for table in tables():
        if table.history_of is not None:
            continue
        names = {f.name for f in table.model._meta.concrete_fields} - {"id"}
        listed = set(table.fields) | set(table.skipped) | set(table.implicit)
        assert names <= listed, f"{table.name}: not archived nor skipped: {names - listed}"
    archived = {table.model for table in tables()}
    for model in [*apps.get_app_config("annotations").get_models(),
                  *apps.get_app_config("evaluation").get_models()]:  # fmt: skip
        related = [f for f in model._meta.concrete_fields if f.is_relation]
        if model not in archived and any(f.related_model in archived for f in related):
            assert model.__name__ in not_archived(), model
