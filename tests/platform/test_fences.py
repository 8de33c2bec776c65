"""``bench/fenced.py``'s list of replacements measured elsewhere points at what exists: each
module, the script its figure comes from (named in the module's docstring too), and the test
that compares it with the stock idiom. Reads files only; no database."""

from __future__ import annotations

import ast
import sys

import pytest

from tests.support.paths import ROOT

sys.path.insert(0, str(ROOT / "bench"))
try:
    import fenced  # bench/fenced.py
finally:
    sys.path.pop(0)


def test_the_six_known_replacements_are_listed() -> None:
    listed = {fence.module for fence in fenced.MEASURED_ELSEWHERE}
    assert {
        "annotations/selectors/opening.py",
        "annotations/selectors/project_page.py",
        "annotations/services/bulk_rows.py",
        "platform/fallacy_platform/postgresql/base.py",
        "annotations/history.py",
        "platform/fallacy_platform/api/pagination.py",
    } <= listed


@pytest.mark.parametrize("fence", fenced.MEASURED_ELSEWHERE, ids=lambda fence: fence.module)
def test_each_fence_names_what_exists(fence: fenced.Fence) -> None:
    module = ROOT / fence.module
    assert module.is_file(), fence.module
    if fence.bench is not None:
        assert (ROOT / fence.bench).is_file(), fence.bench
        docstring = ast.get_docstring(ast.parse(module.read_text(encoding="utf-8"))) or ""
        assert fence.bench in docstring, f"{fence.module}'s docstring does not cite {fence.bench}"
    path, _, name = fence.equivalence.partition("::")
    test_file = ROOT / path
    assert test_file.is_file(), path
    if name:
        tree = ast.parse(test_file.read_text(encoding="utf-8"))
        defined = {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}
        assert name in defined, fence.equivalence


def test_a_missing_test_is_reported() -> None:
    wrong = fenced.Fence(
        "annotations/history.py", "x", "y", None, "tests/platform/test_fences.py::no_such_test"
    )
    with pytest.raises(AssertionError, match="no_such_test"):
        test_each_fence_names_what_exists(wrong)
