"""The project's packages in layers: a package imports only packages of its own layer or lower
ones, and within a layer only the pairs listed as beside each other, one way. The graph is the
module graph of ``test_architecture`` (imports inside functions count, ``TYPE_CHECKING`` ones do
not; importing ``a.b.c`` is an edge to ``a`` and ``a.b`` too), folded onto units:

- a module's unit is the longest entry of ``LAYERS`` that is its name or a dotted prefix of it
  (entries are packages, or a module of a package's root that sits apart from its package,
  such as ``annotations.spans``, which reads models that the root's other modules sit under);
- entry points form the top layer wherever they are: HTTP-layer modules (``api``, ``views``,
  ``urls``, ``*_api``: ``test_architecture.is_view_module``) and the wiring Django and Celery
  load by name (``apps``, ``admin``, ``tasks``, ``settings``, ...). Nothing below imports
  them.

Every package of the apps must be placed in ``LAYERS``; ``KNOWN_EXCEPTIONS`` are the edges
that break the layers today, each with its reason, so that any new one fails."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from tests.platform.test_architecture import (
    PROJECT_ROOTS,
    SourceRoot,
    import_graph,
    is_view_module,
    project_modules,
    write_tree,
)

LAYERED = ("annotations", "evaluation", "fallacy_platform")
ENTRY = "entry points"
# Module names Django or Celery load by name (settings, app registry, autodiscovery), and the
# error handlers the URL configuration names.
WIRING_NAMES = frozenset({"apps", "admin", "tasks"})
WIRING_MODULES = frozenset(
    f"fallacy_platform.{name}"
    for name in ("settings", "wsgi", "frontend_views", "errors", "supervise")
)
WIRING_PACKAGES = ("management", "migrations", "admin")

# Lowest first.
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("platform floor", ("fallacy_platform", "fallacy_platform.postgresql")),
    ("file formats", ("annotations.importing.formats", "annotations.importing.sentences")),
    ("app cores", ("annotations", "evaluation")),
    (
        "pure cores",
        ("evaluation.backends", "evaluation.prolog", "evaluation.scoring", "evaluation.benchmarks"),
    ),
    ("models", ("annotations.models", "evaluation.models")),
    (
        "selectors",
        ("annotations.selectors", "annotations.spans", "evaluation.access", "evaluation.ownership"),
    ),
    ("services", ("annotations.services", "annotations.importing", "annotations.backups")),
    ("evaluation domains", ("evaluation.runs", "evaluation.items", "evaluation.judging")),
    (
        "evaluation features",
        (
            "evaluation.agreement",
            "evaluation.harness",
            "evaluation.suggestions",
            "evaluation.synthesis",
        ),
    ),
    ("evaluation reports", ("evaluation.results", "evaluation.items.leaderboard")),
    ("API kit", ("fallacy_platform.api", "fallacy_platform.inputs")),
    (ENTRY, ("annotations.api",)),
)
# Pairs of one layer where the first may import the second (never both ways).
BESIDE = frozenset(
    {
        ("evaluation.benchmarks", "evaluation.scoring"),
        ("evaluation.models", "annotations.models"),
        ("evaluation.access", "annotations.selectors"),
        ("evaluation.ownership", "annotations.selectors"),
        ("annotations.importing", "annotations.services"),
        ("annotations.backups", "annotations.importing"),
        ("evaluation.items", "evaluation.runs"),
        ("evaluation.judging", "evaluation.runs"),
        ("evaluation.results", "evaluation.items.leaderboard"),
    }
)
# Edges that break the layers today: (importing unit, imported unit) -> why it stays.
KNOWN_EXCEPTIONS: dict[tuple[str, str], str] = {
    ("evaluation.items", "evaluation.results"): "an item run's import warms the results "
    "cache (items.imports, a lazy import of results.warm_after_commit)",
}


@dataclass(frozen=True)
class Violation:
    source: str
    target: str
    path: Path
    line: int
    module: str
    imported: str

    def __str__(self) -> str:
        return (
            f"{self.path}:{self.line} {self.module} imports {self.imported}: "
            f"{self.source} -> {self.target}"
        )


def is_entry_point(name: str, top: Iterable[str] = LAYERED) -> bool:
    """An HTTP-layer module or one Django or Celery loads by name, in one of the ``top``
    packages."""
    parts = name.split(".")
    if parts[0] not in tuple(top) or len(parts) == 1:
        return False
    return (
        is_view_module(name)
        or parts[-1] in WIRING_NAMES
        or name in WIRING_MODULES
        or any(part in WIRING_PACKAGES for part in parts[1:])
    )


def ranks(layers: Iterable[tuple[str, Iterable[str]]]) -> dict[str, int]:
    """unit -> its layer's rank (0 lowest)."""
    return {unit: rank for rank, (_, units) in enumerate(layers) for unit in units}


def unit_of(name: str, placed: Mapping[str, int], top: Iterable[str] = LAYERED) -> str | None:
    """The unit a module is layered as: ``ENTRY`` for entry points, else the longest placed
    name that is the module or a dotted prefix of it (None: a module outside the layers)."""
    if is_entry_point(name, top):
        return ENTRY
    parts = name.split(".")
    for end in range(len(parts), 0, -1):
        candidate = ".".join(parts[:end])
        if candidate in placed:
            return candidate
    return None


def unplaced_packages(roots: Iterable[SourceRoot], placed: Mapping[str, int]) -> list[str]:
    """Packages of the layered apps that ``LAYERS`` does not name (entry-point packages aside)."""
    return sorted(
        module.name
        for module in project_modules(roots).values()
        if module.is_package
        and module.name.split(".")[0] in LAYERED
        and not is_entry_point(module.name)
        and module.name not in placed
    )


def layer_violations(
    roots: Iterable[SourceRoot],
    layers: Iterable[tuple[str, Iterable[str]]] = LAYERS,
    beside: Iterable[tuple[str, str]] = BESIDE,
    top: Iterable[str] = LAYERED,
) -> list[Violation]:
    """Each import that goes up a layer, or sideways between units of one layer that are not
    an allowed pair, with the importing module and line (first import of each module pair)."""
    placed = ranks(layers)
    placed.setdefault(ENTRY, len(placed) and max(placed.values()) + 1)
    allowed = set(beside)
    modules = project_modules(roots)
    graph = import_graph(modules)
    found = []
    for source_module, targets in sorted(graph.items()):
        source = unit_of(source_module, placed, top)
        for target_module, line in sorted(targets.items()):
            target = unit_of(target_module, placed, top)
            if source is None or target is None or source == target:
                continue
            if modules[target_module].is_package and not graph[target_module]:
                continue  # an __init__ that imports nothing of the project cannot close a loop
            upward = placed[target] > placed[source]
            sideways = placed[target] == placed[source] and (source, target) not in allowed
            if upward or (sideways and source != ENTRY):
                found.append(
                    Violation(
                        source,
                        target,
                        modules[source_module].path,
                        line,
                        source_module,
                        target_module,
                    )
                )
    return found


def test_every_package_is_placed_in_a_layer() -> None:
    missing = unplaced_packages(PROJECT_ROOTS, ranks(LAYERS))
    assert not missing, "packages in no layer (add them to LAYERS):\n" + "\n".join(missing)


def test_beside_pairs_go_one_way() -> None:
    placed = ranks(LAYERS)
    for first, second in BESIDE:
        assert (second, first) not in BESIDE
        assert placed[first] == placed[second], (first, second)


def test_packages_import_only_their_own_layer_or_lower() -> None:
    violations = layer_violations(PROJECT_ROOTS)
    new = [found for found in violations if (found.source, found.target) not in KNOWN_EXCEPTIONS]
    assert not new, "imports against the package layers (LAYERS in this file):\n" + "\n".join(
        map(str, new)
    )
    seen = {(found.source, found.target) for found in violations}
    stale = sorted(set(KNOWN_EXCEPTIONS) - seen)
    assert not stale, f"known exceptions that no longer occur (remove them): {stale}"


def test_the_layer_check_reports_upward_sideways_and_parent_package_edges(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            "app/__init__.py": "",  # imports nothing: a leaf, never an offending edge
            "app/core/__init__.py": "",
            "app/core/rules.py": "import json\n",
            # importing app.low.thing runs app/low/__init__.py, which re-exports a service
            "app/low/__init__.py": "from app.services.work import run\n",
            "app/low/thing.py": "x = 1\n",
            "app/selectors/__init__.py": "",
            "app/selectors/reads.py": "from app.core import rules\nfrom app.low import thing\n",
            "app/services/__init__.py": "",
            "app/services/work.py": "from app.selectors import reads\n\ndef run():\n"
            "    from app.other import side\n",
            "app/other/__init__.py": "",
            "app/other/side.py": "from app.services.work import run\n",
            "app/api.py": "from app.services.work import run\n",  # an entry point: top
            "app/core/reach.py": "from app import api\n",  # nothing imports entry points
        },
    )
    layers = (
        ("core", ("app", "app.core", "app.low")),
        ("selectors", ("app.selectors",)),
        ("services", ("app.services", "app.other")),
    )
    found = layer_violations(
        [SourceRoot(tmp_path, ("app",))], layers, {("app.other", "app.services")}, ("app",)
    )
    assert [str(item).split(" ", 1)[1] for item in found] == [
        f"app.core.reach imports app.api: app.core -> {ENTRY}",
        "app.low imports app.services.work: app.low -> app.services",
        "app.services.work imports app.other.side: app.services -> app.other",
    ]
    assert str(found[1]).startswith(f"{tmp_path / 'app/low/__init__.py'}:1 ")
