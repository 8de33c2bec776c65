"""Project backups: one archive with everything of a project, restorable into any instance.

- ``format``: the archive (a zip of ``manifest.json`` and one JSON-lines member per table),
  the tables and their fields, encoding and decoding of values.
- ``export``: ``export_project(project=..., out=...)`` writes the archive (reads only).
- ``restore``: ``import_project(path=..., rename=...)`` creates the project (one transaction).

The package lives in ``fallacy_platform`` because an archive spans both apps (annotations and
evaluation), and only project-wide wiring may import both ways.
"""

from fallacy_platform.backups.export import ExportError, ExportReport, export_project
from fallacy_platform.backups.format import ARCHIVE_FORMAT, ARCHIVE_VERSION, ArchiveError
from fallacy_platform.backups.restore import ImportReport, ProjectExists, import_project

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
