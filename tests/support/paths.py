"""Where the tests find the repository and the shared data sets."""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SHARED_DATASETS = ROOT.parent / "shared" / "datasets"
