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
