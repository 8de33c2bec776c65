"""``manage.py run_generation RUN --shard I``: the runner process of one shard (see
``evaluation.runs.runner``). Started by the shard's Celery task; also usable by hand. A
failure writes its class (``runner.failure_path``, what the run's users read) and exits with
the traceback (its log, the operator's)."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandParser

from evaluation.runs.runner import record_failure, run_shard


class Command(BaseCommand):
    help = "Generate the outputs of one shard of a model run (the runner process)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("run", type=int, help="run id")
        parser.add_argument("--shard", type=int, default=0)
        parser.add_argument(
            "--worker",
            default="",
            help="the supervisor's worker (host:pid): go on with its shards and the run's queued"
            " ones",
        )

    def handle(self, *args, run: int, shard: int, worker: str, **options) -> None:
        try:
            summary = run_shard(run, shard, worker=worker, log=lambda line: self.stdout.write(line))
        except Exception as error:  # the run's users read its class; the log its traceback
            record_failure(run, shard, error)
            raise
        self.stdout.write(
            f"done: {summary.requests} requests, {summary.already_done} already done, "
            f"{summary.from_cache} from cache, {summary.generated} generated "
            f"in {summary.seconds:.1f} s"
        )
