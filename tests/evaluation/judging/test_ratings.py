"""Agreement of human rating forms: Krippendorff's α between raters and Spearman's ρ
against a judge run, checked against ``krippendorff`` and ``scipy`` called directly on
the same numbers (written out here, independently of how the platform reads them)."""

from __future__ import annotations

import krippendorff
import numpy as np
import pytest
from rest_framework.test import APIClient
from scipy.stats import spearmanr

from annotations.models import Project
from annotations.services.taxonomy import install_preset
from evaluation.judging.rating_stats import RatingStatsError, rating_stats
from evaluation.models import ModelRun
from evaluation.scoring.ratings import rating_alpha, spearman
from tests.support.ratings import FAITHFUL, QUALITY, build_rated, judge_run


@pytest.fixture
def rated(db) -> dict:
    return build_rated()


def test_alpha_and_means_match_krippendorff_on_the_same_numbers(rated) -> None:
    stats = rating_stats(project=rated["project"])
    assert stats["raters"] == 3 and stats["items"] == 6
    fields = {field["name"]: field for field in stats["fields"]}
    assert list(fields) == ["quality", "faithful"]  # only the rating fields
    for name, table in (("quality", QUALITY), ("faithful", FAITHFUL)):
        data = np.array(
            [[np.nan if v is None else v for v in table[rater]] for rater in ("ann", "bob", "cyd")],
            dtype=float,
        )
        for level in ("interval", "ordinal"):
            expected = krippendorff.alpha(reliability_data=data, level_of_measurement=level)
            assert fields[name]["alpha"][level] == pytest.approx(expected, abs=1e-12)
        means = fields[name]["human_means"]
        for i, document in enumerate(rated["documents"]):
            assert means[str(document.pk)] == pytest.approx(np.nanmean(data[:, i]))
    # the in-progress rating of "dee" (1 on item 0) is not in the mean
    assert fields["quality"]["human_means"][str(rated["documents"][0].pk)] == pytest.approx(14 / 3)
    assert fields["quality"]["ratings"] == 16 and fields["quality"]["raters"] == 3
    assert fields["quality"]["alpha"]["interval"] > 0.7  # the raters broadly agree


def test_spearman_against_a_judge_run_matches_scipy(rated) -> None:
    project, documents = rated["project"], rated["documents"]
    run = judge_run(project, documents)
    report = run.scores.get(profile="items").report
    # item means over the parseable repeats; out-of-range "7" and "x" counted
    expected_judge = [3.0, 2.5, 2 / 3, 0.0, None, 8 / 3]
    for document, value in zip(documents, expected_judge, strict=True):
        assert report["per_item"][str(document.pk)] == pytest.approx(value)
    assert report["unparseable"]["count"] == 5
    assert report["primary"]["name"] == "judge_mean"

    stats = rating_stats(project=project, judge_run_id=run.pk)
    for field, table in (("quality", QUALITY), ("faithful", FAITHFUL)):
        humans = [
            np.mean([table[r][i] for r in table if table[r][i] is not None]) for i in range(6)
        ]
        both = [i for i in range(6) if expected_judge[i] is not None]  # item 4: no judgement
        rho, p = spearmanr([humans[i] for i in both], [expected_judge[i] for i in both])
        got = next(f for f in stats["fields"] if f["name"] == field)["judge"]
        assert got["n"] == 5
        assert got["rho"] == pytest.approx(rho) and got["p"] == pytest.approx(p)
    assert stats["judge_run"]["id"] == run.pk


def test_the_api_serves_reviewers_and_names_bad_requests(rated) -> None:
    project, documents = rated["project"], rated["documents"]
    run = judge_run(project, documents)
    client = APIClient()
    url = f"/api/evaluation/projects/{project.pk}/ratings/"
    client.force_authenticate(rated["reviewer"])
    answer = client.get(url, {"judge_run": run.pk})
    assert answer.status_code == 200, answer.content
    assert answer.json() == _json(rating_stats(project=project, judge_run_id=run.pk))
    assert client.get(url, {"judge_run": "abc"}).json() == {"judge_run": ["'abc' is not an id"]}
    other = ModelRun.objects.create(project=project, name="not a judge", task="free-text")
    refused = client.get(url, {"judge_run": other.pk})
    assert refused.status_code == 400 and "not a judge run" in refused.json()["judge_run"][0]
    client.force_authenticate(rated["users"]["ann"])  # an annotator: the project is hidden
    assert client.get(url).status_code == 404


def _json(value):
    import json

    return json.loads(json.dumps(value))


def test_a_spans_project_has_no_rating_figures(db) -> None:
    project = Project.objects.create(name="Spans", taxonomy=install_preset(name="mafalda"))
    with pytest.raises(RatingStatsError, match="not an item project"):
        rating_stats(project=project)


def test_undefined_figures_are_none() -> None:
    assert rating_alpha([[1, 2, 3]], "interval") is None  # one rater
    assert rating_alpha([[2, 2, None], [2, 2, 4]], "ordinal") is None  # no variation
    assert rating_alpha([[1, None], [None, 2]], "interval") is None  # nothing pairable
    with pytest.raises(ValueError, match="level"):
        rating_alpha([[1, 2], [1, 2]], "nominal")
    assert spearman({1: 1.0, 2: 2.0}, {1: 1.0, 2: 2.0}).to_dict() == {
        "rho": None,
        "p": None,
        "n": 2,
    }
    assert spearman({1: 1, 2: 2, 3: 3}, {1: 3, 2: 2, 3: 1, 4: 9}).rho == pytest.approx(-1.0)
