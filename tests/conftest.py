"""Shared fixtures. Tests run against PostgreSQL when DATABASE_URL points there (CI does)."""

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED_DATASETS = ROOT.parent / "shared" / "datasets"
MAFALDA_DIR = SHARED_DATASETS / "mafalda"
MAFALDA_GOLD = MAFALDA_DIR / "datasets" / "gold_standard_dataset.jsonl"


@pytest.fixture(scope="session")
def mafalda_dir() -> Path:
    if not MAFALDA_GOLD.exists():
        pytest.skip(f"shared MAFALDA data not found at {MAFALDA_DIR} (../shared/datasets)")
    return MAFALDA_DIR


@pytest.fixture(scope="session")
def mafalda_gold_path(mafalda_dir: Path) -> Path:
    return MAFALDA_GOLD
