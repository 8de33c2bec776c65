"""The platform's tasks in the evaluation harnesses researchers run, and their logs back in.

- ``export``: a published gold version as an lm-evaluation-harness task folder (task YAML,
  ``utils.py``) or an Inspect task file, both running the MAFALDA per-sentence protocol with a
  stored prompt variant and scoring with the disjunctive metric through the scoring library
  installed alone (``fallacy_scoring.harness``), never through Django;
- ``logs``: lm-evaluation-harness ``--log_samples`` files and Inspect ``.eval`` logs read as
  per-sentence outputs, each mapped to its document and sentence;
- ``imports``: such a log stored as a finished imported run of the gold version, the harness
  and its version recorded, scored like the platform's runs.

``templates`` holds the files copied into an export as they are (they import only the
scoring library and the harness).
"""
