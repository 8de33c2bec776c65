"""What the browser tests' seed scripts share: Django set-up for a script, users with the demo
password, the MAFALDA taxonomy."""

from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DEMO_PASSWORD = "fallacy-demo"


def setup_django() -> None:
    sys.path[:0] = [str(ROOT), str(ROOT / "platform")]
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "fallacy_platform.settings")
    import django

    django.setup()


def user(username: str, *, staff: bool = False):
    from django.contrib.auth import get_user_model

    User = get_user_model()
    u, created = User.objects.get_or_create(username=username, defaults={"is_staff": staff})
    if created:
        u.set_password(DEMO_PASSWORD)
        u.save()
    return u


def mafalda():
    from annotations.models import Taxonomy
    from annotations.services.taxonomy import install_preset

    return Taxonomy.objects.filter(name="mafalda").order_by("-id").first() or install_preset(
        name="mafalda"
    )
