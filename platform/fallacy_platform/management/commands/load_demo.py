"""Load the demo: users for each role, a small project of our own texts, and — when
``../shared/datasets`` is present — the MAFALDA gold standard and user study. Idempotent.
With ``--prepare-model`` (``make demo``), the packaged SmolLM2 GGUF, the launch page's
preselected model, is also de-quantized once into its cached safetensors copy, so that the
first run loads the copy instead of de-quantizing while the user waits."""

from pathlib import Path

import yaml
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand
from django.db import transaction

from annotations.form_presets import form_preset, get_form_preset
from annotations.importing.datasets import import_doccano_annotations, import_mafalda_gold
from annotations.importing.items import import_items
from annotations.models import Membership, Project
from annotations.services.documents import NewDocument, add_documents, assign_documents
from annotations.services.projects import add_member, create_project
from annotations.services.taxonomy import install_preset
from evaluation.models import ModelRun
from evaluation.runs.imports import import_run
from evaluation.runs.services import score_and_store

DEMO_FILE = Path(__file__).resolve().parents[2] / "demo" / "demo_project.yaml"
DEMO_PASSWORD = "fallacy-demo"
DEMO_USERS = {
    "demo-admin": "admin",
    "demo-reviewer": "reviewer",
    "demo-annotator": "annotator",
    "demo-annotator2": "annotator",
}
MAFALDA_PROJECT = "MAFALDA gold standard"
FLUB_PROJECT = "FLUB"
USER_STUDY_PROJECT = "MAFALDA user study"
USER_STUDY_ANNOTATORS = ("user1", "user2", "user4", "user5")


def shared_datasets() -> Path:
    return Path(settings.SHARED_DATASETS_DIR)


class Command(BaseCommand):
    help = "Create the demo users and projects (safe to run again)."

    def add_arguments(self, parser) -> None:
        parser.add_argument(
            "--prepare-model",
            action="store_true",
            help="also de-quantize the packaged SmolLM2 once (its cached safetensors copy)",
        )

    def handle(self, *args, **options) -> None:
        if options.get("prepare_model"):
            self._prepare_model()
        taxonomy = install_preset(name="mafalda")
        users = self._users()
        demo = self._demo_project(taxonomy, users)
        loaded = [demo.name]
        datasets = shared_datasets() / "mafalda" / "datasets"
        if (datasets / "gold_standard_dataset.jsonl").exists():
            gold_project = self._mafalda_gold(taxonomy, users, datasets)
            study_project = self._user_study(taxonomy, users, datasets)
            results = shared_datasets() / "mafalda" / "results"
            self._published_runs(gold_project, results, users)
            self._published_runs(study_project, results / "20_samples", users)
            loaded += [gold_project.name, study_project.name]
        else:
            self.stdout.write(f"(no MAFALDA data at {datasets}: demo project only)")
        flub_file = shared_datasets() / "flub" / "FLUB.jsonl"
        if flub_file.exists():
            loaded.append(self._flub(users, flub_file).name)
        self.stdout.write("Projects: " + "; ".join(loaded))
        self.stdout.write(f"Logins (password for all: {DEMO_PASSWORD}):")
        for username, role in DEMO_USERS.items():
            extra = " + Django admin" if role == "admin" else ""
            self.stdout.write(f"  {username:<16} {role}{extra}")

    def _prepare_model(self) -> None:
        from evaluation.backends.base import BackendError
        from evaluation.backends.model_files import smollm2_safetensors

        try:
            folder = smollm2_safetensors()
        except (BackendError, OSError) as error:
            self.stdout.write(f"(SmolLM2 not prepared: {error})")
            return
        self.stdout.write(f"SmolLM2 weights: {folder}")

    def _users(self) -> dict:
        user_model = get_user_model()
        users = {}
        for username, role in DEMO_USERS.items():
            user, _ = user_model.objects.get_or_create(username=username)
            user.is_staff = user.is_superuser = role == "admin"
            user.set_password(DEMO_PASSWORD)
            user.save()
            users[username] = user
        return users

    def _add_members(self, project: Project, users: dict, *, annotators: bool = True) -> None:
        for username, role in DEMO_USERS.items():
            if annotators or role != Membership.Role.ANNOTATOR:
                add_member(project=project, user=users[username], role=role)

    @transaction.atomic
    def _demo_project(self, taxonomy, users: dict) -> Project:
        spec = yaml.safe_load(DEMO_FILE.read_text())
        project = Project.objects.filter(name=spec["name"]).first()
        if project is None:
            project = create_project(
                name=spec["name"],
                taxonomy=taxonomy,
                guidelines=spec["guidelines"],
                description=spec["description"],
            )
            add_documents(
                project=project,
                texts=[
                    NewDocument(text=t["text"], external_id=t["id"], source="demo")
                    for t in spec["texts"]
                ],
            )
        self._add_members(project, users)
        for username, role in DEMO_USERS.items():
            if role == Membership.Role.ANNOTATOR:
                assign_documents(project=project, annotator=users[username])
        return project

    @transaction.atomic
    def _mafalda_gold(self, taxonomy, users: dict, datasets: Path) -> Project:
        project = Project.objects.filter(name=MAFALDA_PROJECT).first()
        if project is None:
            project = create_project(
                name=MAFALDA_PROJECT,
                taxonomy=taxonomy,
                description="MAFALDA (Helwe et al., 2024), CC BY-SA 4.0: 200 gold texts.",
                guidelines=yaml.safe_load(DEMO_FILE.read_text())["guidelines"],
            )
            report = import_mafalda_gold(
                path=datasets / "gold_standard_dataset.jsonl",
                project=project,
                created_by=users["demo-admin"],
                note="MAFALDA (Helwe et al., 2024)",
            )
            self.stdout.write(f"MAFALDA gold: {report.texts} texts, {report.spans} spans")
        self._add_members(project, users)
        first_texts = project.documents.order_by("position")[:10]
        for username, role in DEMO_USERS.items():
            if role == Membership.Role.ANNOTATOR:
                assign_documents(project=project, annotator=users[username], documents=first_texts)
        return project

    @transaction.atomic
    def _user_study(self, taxonomy, users: dict, datasets: Path) -> Project:
        project = Project.objects.filter(name=USER_STUDY_PROJECT).first()
        if project is None:
            project = create_project(
                name=USER_STUDY_PROJECT,
                taxonomy=taxonomy,
                description="The 20 texts of the MAFALDA user study, with four annotators' work.",
                guidelines=yaml.safe_load(DEMO_FILE.read_text())["guidelines"],
            )
            import_mafalda_gold(
                path=datasets / "user_study_examples_with_labels.jsonl",
                project=project,
                created_by=users["demo-admin"],
                note="MAFALDA user study gold",
            )
            user_model = get_user_model()
            for name in USER_STUDY_ANNOTATORS:
                annotator, _ = user_model.objects.get_or_create(username=f"mafalda-{name}")
                add_member(project=project, user=annotator, role=Membership.Role.ANNOTATOR)
                import_doccano_annotations(
                    path=datasets / "users_results" / f"{name}.jsonl",
                    project=project,
                    annotator=annotator,
                )
        # The study's own four annotators did the work; demo annotators have nothing there.
        self._add_members(project, users, annotators=False)
        return project

    @transaction.atomic
    def _flub(self, users: dict, path: Path) -> Project:
        """FLUB's 834 items as an item project (its form: answer selection, cunning type,
        explanation); the demo annotators get the first ten."""
        project = Project.objects.filter(name=FLUB_PROJECT).first()
        if project is None:
            preset = get_form_preset("flub")
            project = create_project(
                name=FLUB_PROJECT,
                taxonomy=install_preset(name=preset.taxonomy),
                description="FLUB (Li et al., 2024), CC BY-NC 4.0: 834 Chinese cunning texts.",
                kind="items",
                form=form_preset("flub"),
            )
            report = import_items(path=path, project=project, format="flub")
            self.stdout.write(f"FLUB: {report.summary()}")
        self._add_members(project, users)
        first_items = project.documents.order_by("position")[:10]
        for username, role in DEMO_USERS.items():
            if role == Membership.Role.ANNOTATOR:
                assign_documents(project=project, annotator=users[username], documents=first_items)
        return project

    def _published_runs(self, project: Project, folder: Path, users: dict) -> None:
        """The published systems' raw level-2 outputs as finished runs, scored."""
        gold = project.gold_standards.order_by("version").first()
        added = 0
        for path in sorted(folder.glob("*_level_2_results.jsonl")):
            system = path.name.removesuffix("_level_2_results.jsonl")
            name = f"published · {system}"
            if ModelRun.objects.filter(project=project, name=name).exists():
                continue
            with transaction.atomic():
                run = import_run(
                    project=project,
                    path=path,
                    name=name,
                    gold_standard=gold,
                    backend="published",
                    model_name=system,
                    created_by=users["demo-admin"],
                )
                score_and_store(run=run)
            added += 1
        if added:
            self.stdout.write(f"{project.name}: {added} published runs imported and scored")
