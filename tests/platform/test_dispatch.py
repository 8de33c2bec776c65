"""``fallacy_platform.dispatch``: every declared task is registered, has its work bound in a
worker and is routed to the queue its work needs; a refused publish runs ``undo`` and raises
``QueueUnavailable`` (the API's 503: ``test_launch_queue_down``, ``test_job_recovery``); a
message with the wrong arguments fails before it reaches the broker."""

from __future__ import annotations

import pytest
from fallacy_platform import dispatch
from fallacy_platform.celery import app
from kombu.exceptions import OperationalError as KombuOperationalError

from annotations import queued as annotation_tasks
from evaluation import queued as evaluation_tasks

QUEUES = {
    evaluation_tasks.gpu_generate: "gpu",
    evaluation_tasks.score_run: "default",
    evaluation_tasks.gpu_generate_fallacies: "gpu",
    evaluation_tasks.compute_agreement: "default",
    evaluation_tasks.warm_results: "default",
    annotation_tasks.run_import_job: "default",
}


def test_every_declared_task_is_registered_bound_and_routed() -> None:
    app.loader.import_default_modules()  # what a worker imports
    for task, queue in QUEUES.items():
        assert task.name in app.tasks, task.name
        assert dispatch.bound(task), task.name
        assert app.amqp.router.route({}, task.name)["queue"].name == queue, task.name


def test_a_refused_publish_undoes_and_raises(monkeypatch: pytest.MonkeyPatch) -> None:
    published: list[str] = []

    def publish(message: dispatch.Message) -> None:
        if message.args == (2,):
            raise KombuOperationalError("Error 111 connecting to 10.1.2.3:6379.")
        published.append(message.task)

    monkeypatch.setattr(dispatch, "_publish", publish)
    undone: list[str] = []
    with pytest.raises(dispatch.QueueUnavailable) as refused:
        dispatch.send(
            evaluation_tasks.score_run.s(1),
            evaluation_tasks.score_run.s(2),
            evaluation_tasks.score_run.s(3),
            undo=undone.append,
        )
    assert published == ["evaluation.score_run"]  # in order, up to the refused one
    assert undone == [str(refused.value)] == ["the job queue is unavailable"]  # no address


def test_send_patiently_waits_out_a_refusing_broker(monkeypatch: pytest.MonkeyPatch) -> None:
    attempts: list[dispatch.Message] = []

    def publish(message: dispatch.Message) -> None:
        attempts.append(message)
        if len(attempts) < 3:
            raise KombuOperationalError("Error 111")

    monkeypatch.setattr(dispatch, "_publish", publish)
    monkeypatch.setattr(dispatch.time, "sleep", lambda seconds: None)
    undone: list[str] = []
    dispatch.send_patiently(evaluation_tasks.score_run.s(7), undo=undone.append)
    assert len(attempts) == 3 and undone == []
    attempts.clear()
    with pytest.raises(dispatch.QueueUnavailable):
        dispatch.send_patiently(evaluation_tasks.score_run.s(7), undo=undone.append, patience=0)
    assert len(attempts) == 1 and undone == ["the job queue is unavailable"]


def test_a_message_with_wrong_arguments_fails_before_the_broker() -> None:
    with pytest.raises(TypeError):
        dispatch.send(evaluation_tasks.gpu_generate.s(1))  # the shard is missing


def test_a_task_without_bound_work_says_so() -> None:
    @dispatch.declare("tests.unbound")
    def unbound(value: int) -> int:
        """Nothing performs it."""

    with pytest.raises(LookupError, match="tests.unbound"):
        unbound(1)
