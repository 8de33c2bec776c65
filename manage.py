#!/usr/bin/env python
"""Django's command-line utility."""

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent
# The Django project package lives in platform/ (not importable as "platform").
sys.path.insert(0, str(ROOT / "platform"))


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "fallacy_platform.settings")
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()
