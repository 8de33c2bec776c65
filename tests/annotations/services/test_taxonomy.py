"""The taxonomy layer: file format and validation, presets, label matching, DB install."""

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from annotations.labels import NO_FALLACY, NO_FALLACY_ALIASES, LabelResolver
from annotations.models import Taxonomy, TaxonomyNode
from annotations.models.annotations import NO_FALLACY as MODEL_NO_FALLACY
from annotations.selectors.taxonomy import label_resolver, taxonomy_tree, type_to_category
from annotations.services.taxonomy import (
    TaxonomyExistsError,
    create_taxonomy,
    install_preset,
    load_taxonomy_file,
    preset_path,
)
from annotations.taxonomy_files import (
    FLAT_CATEGORY,
    TaxonomyFileError,
    parse_taxonomy,
    read_taxonomy_file,
)
from tests.support.paths import ROOT, SHARED_DATASETS

FLUB_FILE = SHARED_DATASETS / "flub" / "FLUB.jsonl"
MAFALDA_GOLD = SHARED_DATASETS / "mafalda" / "datasets" / "gold_standard_dataset.jsonl"

# The spec table (shared/specs/taxonomy-mafalda.md): level-2 label -> (level 1, slots).
MAFALDA_TABLE = {
    "appeal to positive emotion": ("emotion", ["P"]),
    "appeal to anger": ("emotion", ["E", "P"]),
    "appeal to fear": ("emotion", ["P1", "P2"]),
    "appeal to pity": ("emotion", ["P", "C"]),
    "appeal to ridicule": ("emotion", ["E1", "E2", "P", "P'"]),
    "appeal to worse problems": ("emotion", ["P1", "P2"]),
    "causal oversimplification": ("logic", ["P1", "C", "P2"]),
    "circular reasoning": ("logic", ["C", "P"]),
    "equivocation": ("logic", ["T", "M1", "M2", "P1", "P2"]),
    "false analogy": ("logic", ["E1", "E2", "P"]),
    "false causality": ("logic", ["P", "C"]),
    "false dilemma": ("logic", ["P1", "P2"]),
    "hasty generalization": ("logic", ["E", "E1", "C"]),
    "slippery slope": ("logic", ["P1", "P2", "C"]),
    "straw man": ("logic", ["E1", "E2", "P", "P'", "A"]),
    "fallacy of division": ("logic", ["E", "E1", "P"]),
    "ad hominem": ("credibility", ["E", "P", "A"]),
    "ad populum": ("credibility", ["P"]),
    "appeal to (false) authority": ("credibility", ["E", "P"]),
    "appeal to nature": ("credibility", ["P1", "P2"]),
    "appeal to tradition": ("credibility", ["P"]),
    "guilt by association": ("credibility", ["E1", "E2", "P", "A"]),
    "tu quoque": ("credibility", ["E", "P"]),
}

FLUB_TYPES = {
    "推理错误", "文字游戏", "冷笑话", "偷换词义/字义", "悖论", "错误类比",
    "违反常识", "歧义", "事实性错误", "多音字", "谐音",
}  # fmt: skip


def valid_dict() -> dict:
    return {
        "name": "toy",
        "version": "1",
        "categories": [
            {
                "name": "logic",
                "types": [
                    {
                        "name": "straw man",
                        "aliases": ["strawman"],
                        "template": "E1 says P; E2 attacks P' instead.",
                        "slots": ["E1", "E2", "P", "P'"],
                    },
                    {"name": "false dilemma", "template": "P1 or P2.", "slots": ["P1", "P2"]},
                ],
            }
        ],
    }


def write(tmp_path: Path, filename: str, data: dict | str) -> Path:
    path = tmp_path / filename
    if isinstance(data, str):
        path.write_text(data, encoding="utf-8")
    elif filename.endswith(".json"):
        path.write_text(json.dumps(data), encoding="utf-8")
    else:
        import yaml

        path.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    return path


# --- the MAFALDA preset ----------------------------------------------------------------


def test_mafalda_preset_matches_the_spec_table() -> None:
    spec = read_taxonomy_file(preset_path("mafalda"))

    assert (spec.name, spec.version) == ("mafalda", "1.0")
    assert [category.name for category in spec.categories] == ["emotion", "logic", "credibility"]
    assert spec.label_names() == tuple(MAFALDA_TABLE)  # same names, same order
    assert spec.type_to_category() == {name: level1 for name, (level1, _) in MAFALDA_TABLE.items()}
    assert {t.name: list(t.slots) for t in spec.types()} == {
        name: slots for name, (_, slots) in MAFALDA_TABLE.items()
    }


def test_mafalda_preset_documents_every_type() -> None:
    spec = read_taxonomy_file(preset_path("mafalda"))
    for category in spec.categories:
        assert category.definition
    for type_ in spec.types():
        assert type_.definition and type_.template and type_.example, type_.name


@pytest.mark.shared_data
def test_every_mafalda_gold_label_resolves() -> None:
    if not MAFALDA_GOLD.exists():
        pytest.skip(f"shared MAFALDA data not found at {MAFALDA_GOLD}")
    resolver = read_taxonomy_file(preset_path("mafalda")).label_resolver()
    raw_labels = set()
    for line in MAFALDA_GOLD.read_text(encoding="utf-8").splitlines():
        item = json.loads(line)
        raw_labels |= {label for _, _, label in item["labels"]}
        for alternatives in json.loads(item["sentences_with_labels"]).values():
            raw_labels |= {label for labels in alternatives for label in labels}
    raw_labels.discard("to clean")  # regions the authors excluded, not a label

    unresolved = {label for label in raw_labels if resolver.resolve(label) is None}
    assert unresolved == set()
    assert resolver.resolve("nothing") == NO_FALLACY


# --- validation ------------------------------------------------------------------------


def test_a_valid_dict_parses_and_round_trips() -> None:
    spec = parse_taxonomy(valid_dict())
    assert spec.type_to_category() == {"straw man": "logic", "false dilemma": "logic"}
    assert spec.title == "toy"  # defaults to the name
    assert parse_taxonomy(spec.to_dict()) == spec


def test_names_are_normalised_and_numeric_version_becomes_text(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "t.yaml",
        "name: toy\nversion: 2.5\ncategories:\n"
        "  - name: '  Logic '\n    types:\n      - name: 'False   Dilemma'\n",
    )
    spec = read_taxonomy_file(path)
    assert spec.version == "2.5"
    assert spec.type_to_category() == {"false dilemma": "logic"}


def test_a_flat_file_puts_all_types_under_one_category(tmp_path: Path) -> None:
    path = write(tmp_path, "flat.json", {"name": "flat", "version": "1", "types": [{"name": "a"}]})
    spec = read_taxonomy_file(path)
    assert spec.type_to_category() == {"a": FLAT_CATEGORY}


def test_possessive_counts_as_a_slot_mention() -> None:
    data = valid_dict()
    data["categories"][0]["types"][1] = {
        "name": "ad hominem",
        "template": "E claims P; E's character is attacked.",
        "slots": ["E", "P"],
    }
    assert parse_taxonomy(data).label_names() == ("straw man", "ad hominem")


def _bad(mutate) -> dict:
    data = valid_dict()
    mutate(data)
    return data


def _type(data: dict, index: int = 0) -> dict:
    return data["categories"][0]["types"][index]


BAD_FILES = {
    "missing name": (_bad(lambda d: d.pop("name")), "name", "missing (required)"),
    "empty version": (_bad(lambda d: d.update(version=" ")), "version", "must not be empty"),
    "name not a slug": (_bad(lambda d: d.update(name="my toy")), "name", "not a slug"),
    "no categories": (_bad(lambda d: d.pop("categories")), "", 'missing "categories"'),
    "categories and types": (
        _bad(lambda d: d.update(types=[{"name": "x"}])),
        "",
        "not both",
    ),
    "empty types": (
        _bad(lambda d: d["categories"][0].update(types=[])),
        "categories[0].types",
        "must not be empty",
    ),
    "unknown key": (
        _bad(lambda d: _type(d).update(defintion="typo")),
        "categories[0].types[0].defintion",
        'unknown key (did you mean "definition"?)',
    ),
    "type name missing": (
        _bad(lambda d: _type(d).pop("name")),
        "categories[0].types[0].name",
        "missing (required)",
    ),
    "definition not text": (
        _bad(lambda d: _type(d).update(definition=["a"])),
        "categories[0].types[0].definition",
        "must be text",
    ),
    "slots not a list": (
        _bad(lambda d: _type(d, 1).update(slots="P1")),
        "categories[0].types[1].slots",
        "must be a list",
    ),
    "duplicate type name": (
        _bad(lambda d: _type(d, 1).update(name="Straw  Man")),
        "categories[0].types[1].name",
        '"straw man" is already used at categories[0].types[0].name',
    ),
    "type named like its category": (
        _bad(lambda d: _type(d, 1).update(name="LOGIC")),
        "categories[0].types[1].name",
        "already used at categories[0].name",
    ),
    "alias of another type": (
        _bad(lambda d: _type(d, 1).update(aliases=["Strawman"])),
        "categories[0].types[1].aliases[0]",
        "already used at categories[0].types[0].aliases[0]",
    ),
    "alias is a no-fallacy spelling": (
        _bad(lambda d: _type(d).update(aliases=["nothing"])),
        "categories[0].types[0].aliases[0]",
        'reserved for "no fallacy"',
    ),
    "type named like the root": (
        _bad(lambda d: _type(d).update(name="Fallacy")),
        "categories[0].types[0].name",
        "reserved for the level-0 root",
    ),
    "invalid slot name": (
        _bad(lambda d: _type(d, 1).update(slots=["p 1", "P2"])),
        "categories[0].types[1].slots[0]",
        'slot name "p 1" is not a valid variable (letters, digits and \' only, '
        "starting with a capital letter)",
    ),
    "slot listed twice": (
        _bad(lambda d: _type(d, 1).update(slots=["P1", "P2", "P1"])),
        "categories[0].types[1].slots[2]",
        'slot "P1" is listed twice',
    ),
    "slot only inside a longer slot name": (
        _bad(lambda d: _type(d).update(template="E1 says Q; E2 attacks P' instead.")),
        "categories[0].types[0].slots[2]",
        'slot "P" does not appear in the template',
    ),
}


@pytest.mark.parametrize("suffix", [".yaml", ".json"])
@pytest.mark.parametrize("case", list(BAD_FILES))
def test_each_rule_rejects_a_bad_file_naming_file_and_place(
    tmp_path: Path, case: str, suffix: str
) -> None:
    data, place, message = BAD_FILES[case]
    path = write(tmp_path, f"bad{suffix}", data)

    with pytest.raises(TaxonomyFileError) as error:
        read_taxonomy_file(path)

    prefix = f"{path}: {place}: " if place else f"{path}: "
    lines = [line.strip() for line in str(error.value).splitlines()]
    assert any(line.startswith(prefix) and message in line for line in lines), lines


@pytest.mark.parametrize(
    ("filename", "content", "message"),
    [
        ("dup.yaml", "name: a\nname: b\nversion: '1'\n", 'duplicate key "name"'),
        ("dup.json", '{"name": "a", "name": "b"}', 'duplicate key "name"'),
        ("broken.json", '{"name": ', "cannot parse the file"),
        ("broken.yaml", "name: [a\n", "cannot parse the file"),
        ("list.yaml", "- a\n- b\n", "must hold a mapping"),
        ("taxonomy.txt", "name: a\n", 'unknown file type ".txt"'),
    ],
)
def test_unreadable_files_are_rejected(
    tmp_path: Path, filename: str, content: str, message: str
) -> None:
    path = write(tmp_path, filename, content)
    with pytest.raises(TaxonomyFileError, match=message) as error:
        read_taxonomy_file(path)
    assert str(error.value).startswith(f"{path}: ")


def test_one_error_lists_every_problem(tmp_path: Path) -> None:
    data = valid_dict()
    data["version"] = ""
    _type(data).update(colour="red")
    _type(data, 1)["slots"] = ["P1", "p2"]
    path = write(tmp_path, "many.yaml", data)

    with pytest.raises(TaxonomyFileError) as error:
        read_taxonomy_file(path)

    assert [place for place, _ in error.value.problems] == [
        "version",
        "categories[0].types[0].colour",
        "categories[0].types[1].slots[1]",
    ]
    text = str(error.value)
    assert text.startswith(f"{path}: 3 problems:")
    for place, _ in error.value.problems:
        assert f"{path}: {place}: " in text


def test_pure_modules_import_without_django() -> None:
    code = (
        "import sys, annotations.taxonomy_files, annotations.labels; "
        "assert not any(m == 'django' or m.startswith('django.') for m in sys.modules)"
    )
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True)


# --- labels ----------------------------------------------------------------------------


def test_no_fallacy_constant_matches_the_model() -> None:
    assert NO_FALLACY == MODEL_NO_FALLACY
    assert NO_FALLACY in NO_FALLACY_ALIASES


def test_label_resolver_matches_case_whitespace_and_aliases() -> None:
    resolver = read_taxonomy_file(preset_path("mafalda")).label_resolver()

    assert resolver.resolve("Appeal to Ridicule") == "appeal to ridicule"
    assert resolver.resolve("  Ad   Hominem ") == "ad hominem"
    assert resolver.resolve("Strawman") == "straw man"
    assert resolver.resolve("appeal to authority") == "appeal to (false) authority"
    for spelling in ("nothing", "None", "⊥", "no_fallacy", "No Fallacy"):
        assert resolver.resolve(spelling) == NO_FALLACY
    assert resolver.resolve("banana") is None
    assert resolver.resolve("") is None


def test_label_resolver_refuses_ambiguous_spellings() -> None:
    with pytest.raises(ValueError, match="already taken"):
        LabelResolver([("a", ["x"]), ("b", ["X"])])
    with pytest.raises(ValueError, match="already taken"):
        LabelResolver([("none", [])])


# --- FLUB ------------------------------------------------------------------------------


def test_flub_preset_is_flat_with_eleven_types() -> None:
    spec = read_taxonomy_file(preset_path("flub"))
    assert set(spec.label_names()) == FLUB_TYPES
    assert set(spec.type_to_category().values()) == {FLAT_CATEGORY}
    resolver = spec.label_resolver()
    assert resolver.resolve("False Analogy") == "错误类比"


@pytest.mark.shared_data
def test_every_flub_type_string_resolves() -> None:
    if not FLUB_FILE.exists():
        pytest.skip(f"shared FLUB data not found at {FLUB_FILE}")
    resolver = read_taxonomy_file(preset_path("flub")).label_resolver()
    raw_types = set()
    for line in FLUB_FILE.read_text(encoding="utf-8").splitlines():
        raw = json.loads(line)["type"]
        if isinstance(raw, str):  # 14 items have no type (NaN)
            raw_types.add(raw)
        else:
            assert raw is None or math.isnan(raw)
    assert raw_types == FLUB_TYPES
    assert {raw: resolver.resolve(raw) for raw in raw_types} == {raw: raw for raw in raw_types}


# --- database --------------------------------------------------------------------------


@pytest.mark.django_db
def test_install_preset_is_idempotent_and_builds_the_tree() -> None:
    first = install_preset(name="mafalda")
    second = install_preset()

    assert first.pk == second.pk
    assert Taxonomy.objects.count() == 1
    nodes = TaxonomyNode.objects.filter(taxonomy=first)
    assert nodes.count() == 1 + 3 + 23
    root = nodes.get(level=TaxonomyNode.Level.FALLACY)
    assert (root.name, root.parent) == ("fallacy", None)
    assert set(
        nodes.filter(level=TaxonomyNode.Level.CATEGORY).values_list("parent", flat=True)
    ) == {root.pk}
    straw_man = nodes.get(name="straw man")
    assert (straw_man.parent.name, straw_man.slots) == ("logic", ["E1", "E2", "P", "P'", "A"])
    assert "strawman" in straw_man.aliases


@pytest.mark.django_db
def test_selectors_read_back_the_file(django_assert_max_num_queries) -> None:
    taxonomy = install_preset(name="mafalda")
    spec = read_taxonomy_file(preset_path("mafalda"))

    with django_assert_max_num_queries(1):
        tree = taxonomy_tree(taxonomy)
    assert tree == {"id": taxonomy.pk, **spec.to_dict()}
    json.dumps(tree)  # JSON-ready

    assert type_to_category(taxonomy) == spec.type_to_category()
    resolver = label_resolver(taxonomy)
    assert resolver.resolve("Bandwagon") == "ad populum"
    assert resolver.resolve("nothing") == NO_FALLACY


@pytest.mark.django_db
def test_create_taxonomy_refuses_an_existing_name_and_version() -> None:
    spec = parse_taxonomy(valid_dict())
    create_taxonomy(spec=spec)
    with pytest.raises(TaxonomyExistsError, match="toy v1 already exists"):
        create_taxonomy(spec=spec)
    assert TaxonomyNode.objects.count() == 1 + 1 + 2


@pytest.mark.django_db
def test_load_taxonomy_file_keeps_file_order(tmp_path: Path) -> None:
    data = valid_dict()
    data["categories"].insert(0, {"name": "emotion", "types": [{"name": "appeal to fear"}]})
    taxonomy = load_taxonomy_file(path=write(tmp_path, "toy.json", data))
    types = TaxonomyNode.objects.filter(taxonomy=taxonomy, level=TaxonomyNode.Level.TYPE)
    assert list(types.values_list("name", flat=True)) == [
        "appeal to fear",
        "straw man",
        "false dilemma",
    ]


@pytest.mark.django_db
def test_load_taxonomy_command_creates_from_a_file(tmp_path: Path, capsys) -> None:
    path = write(tmp_path, "toy.yaml", valid_dict())
    call_command("load_taxonomy", str(path))

    assert "Created taxonomy toy v1" in capsys.readouterr().out
    assert TaxonomyNode.objects.filter(taxonomy__name="toy").count() == 4


@pytest.mark.django_db
def test_load_taxonomy_command_installs_a_preset_once(capsys) -> None:
    call_command("load_taxonomy", "--preset", "mafalda")
    call_command("load_taxonomy", "--preset", "mafalda")

    out = capsys.readouterr().out
    assert "Created taxonomy mafalda v1.0" in out
    assert "already installed; nothing created" in out
    assert Taxonomy.objects.count() == 1


@pytest.mark.django_db
def test_load_taxonomy_command_rejects_a_bad_file_and_creates_nothing(tmp_path: Path) -> None:
    data = valid_dict()
    _type(data, 1)["slots"] = ["P1", "P3"]
    path = write(tmp_path, "bad.yaml", data)

    with pytest.raises(CommandError) as error:
        call_command("load_taxonomy", str(path))

    assert f'{path}: categories[0].types[1].slots[1]: slot "P3"' in str(error.value)
    assert Taxonomy.objects.count() == 0
    assert TaxonomyNode.objects.count() == 0


@pytest.mark.django_db
def test_load_taxonomy_command_rejects_an_unknown_preset() -> None:
    with pytest.raises(CommandError, match='no taxonomy preset "nope"'):
        call_command("load_taxonomy", "--preset", "nope")
