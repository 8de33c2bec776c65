"""Project backups: one archive with everything of a project, restorable into any instance.

- ``format``: the archive's layout (``manifest.json`` and one JSON-lines member per table),
  the tables and their fields;
- ``values``: encoding and decoding of the rows' values;
- ``archive``: the zip, written and read back with its manifest checked.
- ``export``: ``export_project(project=..., out=...)`` writes the archive (reads only).
- ``restore``: ``import_project(path=..., rename=...)`` creates the project (one transaction).

The project's own tables (taxonomy, members, documents, annotations, gold, import jobs) are
declared here; another app adds its tables as a ``format.Part`` registered in its
``AppConfig.ready()`` (the evaluation app's runs: ``evaluation.runs.backups``), so this app
imports no other.
"""

from annotations.backups.export import ExportError, ExportReport, export_project
from annotations.backups.format import ARCHIVE_FORMAT, ARCHIVE_VERSION, ArchiveError
from annotations.backups.restore import ImportReport, ProjectExists, import_project

__all__ = [
    "ARCHIVE_FORMAT",
    "ARCHIVE_VERSION",
    "ArchiveError",
    "ExportError",
    "ExportReport",
    "ImportReport",
    "ProjectExists",
    "export_project",
    "import_project",
]
