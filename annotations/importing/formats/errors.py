"""The error every reader raises: file, line, field and what is wrong."""

from __future__ import annotations

from pathlib import PurePath


class DatasetFormatError(ValueError):
    """``gold.jsonl:17: labels[2][1]: end 900 is beyond the text (length 412)``."""

    def __init__(self, path: str | PurePath, line: int, field: str | None, message: str) -> None:
        self.path = str(path)
        self.line = line
        self.field = field
        self.message = message
        super().__init__(str(self))

    def __reduce__(self) -> tuple[object, ...]:
        """Pickled by its fields (it crosses from a bounded child process to its parent)."""
        return (type(self), (self.path, self.line, self.field, self.message))

    @property
    def file_name(self) -> str:
        return PurePath(self.path).name or self.path

    def __str__(self) -> str:
        where = f"{self.file_name}:{self.line}"
        return (
            f"{where}: {self.field}: {self.message}" if self.field else f"{where}: {self.message}"
        )


class FileLimitError(DatasetFormatError):
    """A whole file refused at a limit of its parsing process (no line):
    ``big.jsonl: reading the file needs too much memory (limit IMPORT_MEMORY_BYTES = 2 GiB)``."""

    def __init__(self, path: str | PurePath, message: str) -> None:
        super().__init__(path, 0, None, message)

    def __reduce__(self) -> tuple[object, ...]:
        return (type(self), (self.path, self.message))

    def __str__(self) -> str:
        return f"{self.file_name}: {self.message}"
