"""The annotation app imports no other app of the project: the evaluation app builds on it and
hooks its rules in through ``AppConfig.ready()`` (queue orders, job sweeps, archive parts)."""

from __future__ import annotations

import ast
from pathlib import Path

from django.apps import apps

from tests.support.paths import ROOT


def imported_modules(path: Path) -> set[str]:
    """Every module an ``import`` or ``from … import`` of the file names (function-level
    imports included)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module)
    return names


def test_the_annotation_app_imports_no_evaluation_module() -> None:
    found = {
        f"{path.relative_to(ROOT)}: {name}"
        for path in (ROOT / "annotations").rglob("*.py")
        for name in imported_modules(path)
        if name == "evaluation" or name.startswith("evaluation.")
    }
    assert not found, sorted(found)


def test_the_finder_sees_imports_inside_functions(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text("def f():\n    from evaluation.models import ModelRun\n")
    assert imported_modules(module) == {"evaluation.models"}


def test_evaluation_registers_its_part_of_a_project_archive() -> None:
    from annotations.backups.format import parts, tables

    assert apps.is_installed("evaluation")
    assert [part.name for part in parts()] == ["evaluation"]
    assert {"runs", "run_scores", "prompt_variants"} <= {table.name for table in tables()}


def evaluation_reverse_names() -> set[str]:
    """The names by which annotation models reach evaluation's (the reverse relations of
    evaluation's keys to annotation models: ``project.suggestion_settings``)."""
    names = set()
    for model in apps.get_app_config("evaluation").get_models():
        for field in model._meta.get_fields():
            remote = getattr(field, "related_model", None)
            if field.is_relation and field.concrete and remote is not None:
                if remote._meta.app_label == "annotations" and not field.remote_field.hidden:
                    names.add(field.remote_field.get_accessor_name())
                    names.add(field.related_query_name())
    return names


# Attributes of the annotation app's own objects that share a reverse relation's name (the
# Label Studio reports' ``runs`` lists).
OWN_ATTRIBUTES = frozenset({"runs"})
# Reverse-relation reads the annotation app still makes: "path:line name" -> why.
KNOWN_REVERSE_READS = {
    "annotations/selectors/documents.py:152 'suggestion_disagreement__score'": "the document "
    "list's disagreement order reads evaluation's DocumentDisagreement by its reverse name",
}


def reverse_accesses(path: Path, names: set[str], root: Path = ROOT) -> set[str]:
    """Attribute accesses and string constants (``get_field("…")``, lookups) in the file that
    name one of ``names``."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Attribute) and node.attr in names - OWN_ATTRIBUTES:
            found.add(f"{path.relative_to(root)}:{node.lineno} .{node.attr}")
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            head = node.value.split("__")[0]
            if head in names:
                found.add(f"{path.relative_to(root)}:{node.lineno} {node.value!r}")
    return found


def test_the_annotation_app_reads_no_evaluation_model_through_a_reverse_relation() -> None:
    names = evaluation_reverse_names()
    assert "suggestion_settings" in names
    found = {
        hit
        for path in (ROOT / "annotations").rglob("*.py")
        if "migrations" not in path.parts
        for hit in reverse_accesses(path, names)
    }
    assert found == set(KNOWN_REVERSE_READS), sorted(found ^ set(KNOWN_REVERSE_READS))


def test_the_reverse_read_finder_sees_attributes_and_lookups(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text(
        "def f(p, q):\n    p.suggestion_settings\n    q.filter(**{'suggestions__run': 1})\n"
        "    p.runs\n    p.other\n    return 'suggestions_total'\n"
    )
    names = {"suggestion_settings", "suggestions", "runs"}
    assert {hit.split(" ", 1)[1] for hit in reverse_accesses(module, names, tmp_path)} == {
        ".suggestion_settings",
        "'suggestions__run'",
    }
