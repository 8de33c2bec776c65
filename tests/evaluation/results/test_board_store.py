"""The stored board's row: one per board and query, replaced in place, rows of other inputs
dropped; concurrent requests computing one board all answer (PostgreSQL)."""

from __future__ import annotations

import json
import threading

import pytest
from django.db import connection, connections

from annotations.models import Project
from annotations.services.projects import create_project
from annotations.services.taxonomy import install_preset
from evaluation.models import StoredBoard
from evaluation.results.store import Board, board_json, store


def board(project: Project, **query: object) -> Board:
    return Board("items", project.pk, project.pk, None, {"profile": None, **query})


@pytest.mark.django_db
def test_a_store_replaces_the_row_and_drops_other_inputs_rows() -> None:
    project = create_project(name="boards", taxonomy=install_preset(name="mafalda"))
    store(board(project), "a" * 64, '{"n": 1}', 0.1)
    store(board(project, subset="gold=sound"), "a" * 64, '{"n": 2}', 0.1)
    assert StoredBoard.objects.filter(scope=project.pk).count() == 2
    store(board(project), "a" * 64, '{"n": 3}', 0.1)
    assert StoredBoard.objects.get(scope=project.pk, query=board(project).query_key).body == (
        '{"n": 3}'
    )
    store(board(project), "b" * 64, '{"n": 4}', 0.1)  # the inputs changed: one row left
    [row] = StoredBoard.objects.filter(scope=project.pk)
    assert (row.fingerprint, json.loads(row.body)) == ("b" * 64, {"n": 4})


def test_an_error_of_the_computation_stores_nothing(db: None) -> None:
    project = create_project(name="boards", taxonomy=install_preset(name="mafalda"))

    def failing() -> dict:
        raise ValueError("no such profile")

    with pytest.raises(ValueError):
        board_json(board(project), lambda: "a" * 64, failing)
    assert not StoredBoard.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_concurrent_first_requests_all_answer() -> None:
    if connection.vendor != "postgresql":
        pytest.skip("concurrent writers: PostgreSQL (SQLite serialises its writers)")
    project = create_project(name="boards", taxonomy=install_preset(name="mafalda"))
    start = threading.Barrier(6)
    answers: list[str] = []
    errors: list[BaseException] = []

    def request(number: int) -> None:
        try:
            start.wait()
            answers.append(board_json(board(project), lambda: "a" * 64, lambda: {"n": number}))
        except BaseException as error:  # noqa: BLE001 - reported by the assertion below
            errors.append(error)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=request, args=(n,)) for n in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == [] and len(answers) == 6
    [row] = StoredBoard.objects.filter(scope=project.pk)
    assert json.loads(row.body) in [{"n": n} for n in range(6)]
