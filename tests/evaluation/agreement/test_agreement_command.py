"""``manage.py agreement``: the user-study table from files and from stored annotations."""

import json
from importlib import metadata
from io import StringIO
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.core.management.base import CommandError

from annotations.importing.datasets import import_doccano_annotations, import_mafalda_gold
from annotations.services.projects import create_project
from annotations.services.taxonomy import install_preset
from evaluation.scoring import mafalda_mapping, pairwise_agreement, read_annotator, read_gold

USERS = ("user1", "user2", "user4", "user5")


def run(*args: str) -> str:
    out = StringIO()
    call_command("agreement", *args, stdout=out)
    return out.getvalue()


@pytest.fixture
def study(mafalda_dir: Path) -> dict[str, Path]:
    data = mafalda_dir / "datasets"
    files = {name: data / "users_results" / f"{name}.jsonl" for name in USERS}
    return {"gold": data / "user_study_examples_with_labels.jsonl", **files}


def test_table_from_files_matches_the_package(study) -> None:
    sources = [f"{name}={study[name]}" for name in USERS]
    payload = json.loads(run("--gold", str(study["gold"]), *sources, "--format", "json"))
    corpora = {"gold": read_gold(study["gold"])}
    corpora.update({name: read_annotator(study[name]) for name in USERS})
    expected = pairwise_agreement(corpora, bootstrap_resamples=0).table(2, "f1")
    for reference, row in expected.items():
        assert payload["2"]["f1"][reference] == pytest.approx(row)
    assert set(payload["2"]["f1"]["user1"]) == {"gold", "user2", "user4", "user5"}

    table = run("--gold", str(study["gold"]), *sources, "--level", "2")
    header, *rows = table.splitlines()[3:]
    assert header.split() == list(USERS)
    gold_row = rows[0].split()
    assert gold_row[0] == "gold"
    assert [float(v) for v in gold_row[1:]] == pytest.approx(
        [round(expected["gold"][name], 3) for name in USERS], abs=1e-9
    )


@pytest.mark.django_db
def test_stored_annotators_give_the_same_table(study) -> None:
    project = create_project(name="study", taxonomy=install_preset(name="mafalda"))
    import_mafalda_gold(path=study["gold"], project=project)
    for name in USERS:
        user = get_user_model().objects.create(username=name)
        import_doccano_annotations(path=study[name], project=project, annotator=user)
    from_files = json.loads(
        run("--gold", str(study["gold"]), *[f"{n}={study[n]}" for n in USERS], "--format", "json")
    )
    stored = json.loads(
        run(
            "--gold", "gold:study", *[f"{n}=annotator:study/{n}" for n in USERS], "--format", "json"
        )
    )
    for level in ("0", "1", "2"):
        for reference, row in from_files[level]["f1"].items():
            assert stored[level]["f1"][reference] == pytest.approx(row)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["user1"], "expected NAME=SOURCE"),
        (["a=x.jsonl"], "at least two sources"),
        (["a=/no/such/file.jsonl", "b=/no/such/file.jsonl"], "No such file"),
    ],
)
def test_bad_arguments_are_clear_errors(args: list[str], message: str) -> None:
    with pytest.raises(CommandError, match=message):
        run(*args)


def _alpha_and_label_alphas(data: list[tuple[str, str, frozenset]], level: int) -> dict:
    """nltk's α (MASI, Jaccard) and krippendorff's per-label α on ``(coder, unit, value)``."""
    import krippendorff
    import numpy as np
    from nltk.metrics.agreement import AnnotationTask
    from nltk.metrics.distance import jaccard_distance, masi_distance

    coders = sorted({c for c, _, _ in data})
    units = sorted({u for _, u, _ in data})
    value = {(c, u): v for c, u, v in data}
    labels = {}
    for label in sorted(mafalda_mapping().labels_at(level)):
        matrix = np.array([[float(label in value[c, u]) for u in units] for c in coders])
        labels[label] = (
            krippendorff.alpha(reliability_data=matrix, level_of_measurement="nominal")
            if matrix.min() != matrix.max()
            else None
        )
    return {
        "masi": AnnotationTask(data=data, distance=masi_distance).alpha(),
        "jaccard": AnnotationTask(data=data, distance=jaccard_distance).alpha(),
        "units": len(units),
        "labels": labels,
    }


def _value(spans, start: int, end: int, level: int) -> frozenset:
    mapping = mafalda_mapping()
    labels = {
        mapping.map_label(label, level)
        for s_start, s_end, span_labels in spans
        if s_start < end and start < s_end
        for label in span_labels
        if label != "no fallacy"
    }
    return frozenset(labels or {"no fallacy"})


def _assert_figures(payload: dict, expected: dict, level: int) -> None:
    alpha = payload["alpha"][str(level)]
    assert alpha["masi"] == pytest.approx(expected["masi"], abs=1e-9)
    assert alpha["jaccard"] == pytest.approx(expected["jaccard"], abs=1e-9)
    assert alpha["units"] == expected["units"]
    labels = payload["labels"][str(level)]
    assert set(labels) == set(expected["labels"])
    for label, value in expected["labels"].items():
        if value is None:
            assert labels[label]["alpha"] is None
        else:
            assert labels[label]["alpha"] == pytest.approx(value, abs=1e-9)
        assert labels[label]["units"] == expected["units"]


def _assert_kappas(payload: dict, data: list[tuple[str, str, frozenset]], level: int) -> None:
    """Cohen's and Fleiss' κ by statsmodels on ``(coder, unit, value)``, each set a category."""
    import numpy as np
    from statsmodels.stats.inter_rater import aggregate_raters, cohens_kappa, fleiss_kappa

    value = {(c, u): " | ".join(sorted(v)) for c, u, v in data}
    coders, units = sorted({c for c, _ in value}), sorted({u for _, u in value})
    code = {category: i for i, category in enumerate(sorted(set(value.values())))}
    for entry in payload["kappa"][str(level)]["cohen"]:
        table = np.zeros((len(code), len(code)))
        for unit in units:
            table[code[value[entry["a"], unit]], code[value[entry["b"], unit]]] += 1
        expected = cohens_kappa(table, return_results=False)
        assert entry["kappa"] == pytest.approx(expected, abs=1e-9)
        assert entry["units"] == len(units)
    counts, _ = aggregate_raters(
        np.array([[code[value[c, u]] for c in coders] for u in units]), n_cat=len(code)
    )
    fleiss = payload["kappa"][str(level)]["fleiss"]
    assert fleiss["value"] == pytest.approx(fleiss_kappa(counts), abs=1e-9)


def _assert_provenance(payload: dict, level: int) -> None:
    """Each figure of the level records its metric, library (installed version) and level,
    the F1 matrix its profile; the output its inputs hash."""
    key = str(level)

    def check(entry: dict, metric: str, package: str) -> None:
        assert (entry["metric"], entry["level"]) == (metric, level), entry
        assert entry["library"].startswith(
            f"{package} {metadata.version(package)}" if package != "evaluation.scoring" else package
        )

    assert len(payload["hash"]) == 64
    check(payload[key], "disjunctive_f1", "evaluation.scoring")
    assert payload[key]["profile"] == "paper"
    check(payload["alpha"][key], "krippendorff_alpha", "nltk")
    assert payload["alpha"][key]["distances"] == ["masi", "jaccard"]
    assert payload["labels"][key]
    for entry in payload["labels"][key].values():
        check(entry, "krippendorff_alpha", "krippendorff")
    assert payload["kappa"][key]["cohen"]
    for entry in payload["kappa"][key]["cohen"]:
        check(entry, "cohen_kappa", "statsmodels")
    check(payload["kappa"][key]["fleiss"], "fleiss_kappa", "statsmodels")


@pytest.mark.shared_data
def test_json_adds_alpha_labels_and_kappa_over_the_gold_sentences(study) -> None:
    sources = [f"{name}={study[name]}" for name in USERS]
    payload = json.loads(run("--gold", str(study["gold"]), *sources, "--format", "json"))
    assert payload["units_from"] == "gold file"
    assert (
        set(payload["alpha"]) == set(payload["labels"]) == set(payload["kappa"]) == {"0", "1", "2"}
    )
    assert payload["2"]["f1"]  # today's matrix is still there
    assert set(payload["libraries"]) >= {"nltk", "krippendorff", "statsmodels"}
    # independently: the gold file's sentences, each annotator's labels overlapping them
    gold = {t.text: t for t in read_gold(study["gold"]).texts}
    annotators = {name: {t.text: t for t in read_annotator(study[name]).texts} for name in USERS}
    for level in (0, 1, 2):
        data = []
        for number, (text, item) in enumerate(gold.items()):
            cursor = 0
            for index, (sentence, _) in enumerate(item.sentence_labels):
                start = text.find(sentence, cursor)
                end = cursor = start + len(sentence)
                for name in USERS:
                    spans = [(s.start, s.end, s.labels) for s in annotators[name][text].spans]
                    data.append((name, f"{number}:{index}", _value(spans, start, end, level)))
        _assert_figures(payload, _alpha_and_label_alphas(data, level), level)
        _assert_kappas(payload, data, level)
        _assert_provenance(payload, level)
    assert payload["alpha"]["2"]["annotators"] == 4 and payload["alpha"]["2"]["documents"] == 20
    # the hash names the inputs: the same again, another for other sources
    again = json.loads(run("--gold", str(study["gold"]), *sources, "--format", "json"))
    assert again["hash"] == payload["hash"]
    fewer = json.loads(run("--gold", str(study["gold"]), *sources[:3], "--format", "json"))
    assert fewer["hash"] != payload["hash"]
    # over the annotators only: 6 pairs of 4 annotators, never the gold
    assert len(payload["kappa"]["2"]["cohen"]) == 6
    assert {e["a"] for e in payload["kappa"]["2"]["cohen"]} | {
        e["b"] for e in payload["kappa"]["2"]["cohen"]
    } == set(USERS)
    assert payload["kappa"]["2"]["fleiss"]["value"] is not None

    table = run("--gold", str(study["gold"]), *sources)
    lines = [line for line in table.splitlines() if "Krippendorff's alpha" in line]
    assert len(lines) == 3
    assert f"MASI {payload['alpha']['2']['masi']:.3f}" in lines[2]


@pytest.mark.shared_data
@pytest.mark.django_db
def test_json_alpha_of_stored_annotators_over_the_stored_sentences(study) -> None:
    from annotations.models import Document, Sentence, Span

    project = create_project(name="study alpha", taxonomy=install_preset(name="mafalda"))
    import_mafalda_gold(path=study["gold"], project=project)
    for name in USERS:
        user = get_user_model().objects.create(username=name)
        import_doccano_annotations(path=study[name], project=project, annotator=user)
    sources = [f"{n}=annotator:study alpha/{n}" for n in USERS]
    payload = json.loads(run("--gold", "gold:study alpha", *sources, "--format", "json"))
    assert payload["units_from"] == "stored sentences"
    # independently: the stored sentences, each annotator's submitted spans
    sentences = list(
        Sentence.objects.filter(document__project=project).values_list(
            "document_id", "index", "start", "end"
        )
    )
    spans: dict = {}
    for document_id, username, start, end, labels in Span.objects.filter(
        annotation__document__project=project, annotation__status="submitted"
    ).values_list(
        "annotation__document_id", "annotation__annotator__username", "start", "end", "labels"
    ):
        spans.setdefault((document_id, username), []).append((start, end, labels))
    assert len({d for d, *_ in sentences}) == Document.objects.filter(project=project).count()
    for level in (0, 1, 2):
        data = [
            (
                name,
                f"{document_id}:{index}",
                _value(spans.get((document_id, name), []), start, end, level),
            )
            for document_id, index, start, end in sentences
            for name in USERS
        ]
        _assert_figures(payload, _alpha_and_label_alphas(data, level), level)
        _assert_provenance(payload, level)


def test_json_alpha_from_files_without_units_uses_the_sentence_splitter(tmp_path) -> None:
    text = "People say so. So it must be true. Nobody disagrees here."
    rows = {
        "a": [[0, 14, "ad populum"], [15, 34, "hasty generalization"]],
        "b": [[0, 14, "ad populum"]],
    }
    sources = []
    for name, labels in rows.items():
        path = tmp_path / f"{name}.jsonl"
        path.write_text(json.dumps({"id": 1, "text": text, "label": labels}) + "\n")
        sources.append(f"{name}={path}")
    payload = json.loads(run(*sources, "--format", "json"))
    assert payload["units_from"] == "sentence splitter"
    assert payload["alpha"]["2"]["units"] == 3
    assert payload["alpha"]["0"]["masi"] == pytest.approx(
        _alpha_and_label_alphas(
            [
                ("a", "0", frozenset({"fallacy"})),
                ("a", "1", frozenset({"fallacy"})),
                ("a", "2", frozenset({"no fallacy"})),
                ("b", "0", frozenset({"fallacy"})),
                ("b", "1", frozenset({"no fallacy"})),
                ("b", "2", frozenset({"no fallacy"})),
            ],
            0,
        )["masi"]
    )
    assert payload["kappa"]["2"]["cohen"][0]["units"] == 3
