"""Dataset file formats: streaming readers that validate, and writers (pure Python).

Readers yield one validated record per line with its 1-based line number and raise
``DatasetFormatError`` naming the file, the line and the field at the first problem.
"""

from annotations.importing.formats.errors import DatasetFormatError

__all__ = ["DatasetFormatError"]
