"""A model folder whose ``config.json`` ``auto_map`` names a Python file: loading it with
remote code trusted imports that file, which writes every environment variable of the
process (``SECRET_KEY``, ``DATABASE_URL``…) to a marker file. Nothing else happens, so a test
tells "the code ran" by the marker alone."""

from __future__ import annotations

import json
from pathlib import Path

CODE = '''"""Runs on import: the attacker's code."""
import json
import os
from pathlib import Path

Path({marker!r}).write_text(json.dumps(dict(os.environ)))

from transformers import PretrainedConfig


class EvilConfig(PretrainedConfig):
    model_type = "evil-model"
'''


def hostile_model(folder: Path, marker: Path) -> Path:
    """``folder`` holding the trap (config, tokenizer config and ``evil.py``); ``marker`` is
    written when the code runs."""
    folder.mkdir(parents=True, exist_ok=True)
    auto_map = {
        "AutoConfig": "evil.EvilConfig",
        "AutoModel": "evil.EvilModel",
        "AutoModelForCausalLM": "evil.EvilModel",
        "AutoTokenizer": ["evil.EvilTokenizer", None],
    }
    config = {"model_type": "evil-model", "architectures": ["EvilModel"], "auto_map": auto_map}
    (folder / "config.json").write_text(json.dumps(config))
    tokenizer = {"tokenizer_class": "EvilTokenizer", "auto_map": auto_map}
    (folder / "tokenizer_config.json").write_text(json.dumps(tokenizer))
    (folder / "evil.py").write_text(CODE.format(marker=str(marker)))
    return folder
