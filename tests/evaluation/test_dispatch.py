"""``evaluation.dispatch`` sends tasks by name: every name it sends is a registered task,
routed to the queue its work needs (a refused publish is ``test_job_recovery``'s: a launch
while Redis is down answers 503 and leaves no run)."""

from fallacy_platform.celery import app

from evaluation import dispatch


def test_every_task_dispatch_sends_is_registered_and_routed_by_its_name() -> None:
    app.loader.import_default_modules()  # what a worker imports
    queues = {
        dispatch.GPU_GENERATE: "gpu",
        dispatch.SCORE_RUN: "default",
        dispatch.GPU_GENERATE_FALLACIES: "gpu",
        dispatch.COMPUTE_AGREEMENT: "default",
    }
    for name, queue in queues.items():
        assert name in app.tasks, name
        assert app.amqp.router.route({}, name)["queue"].name == queue, name
