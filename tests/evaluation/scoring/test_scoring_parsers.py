"""Output parsers: the published keyword rules step by step, strict, json, the registry."""

import pytest

from evaluation.scoring import NO_FALLACY, UNREADABLE, ScoringInputError, get_parser, make_parser

keyword = get_parser("keyword").parse
strict = get_parser("strict").parse
json_ = get_parser("json").parse


def test_registry_gives_named_versioned_parsers():
    for name in ("keyword", "strict", "json"):
        parser = get_parser(name)
        assert parser.name == name
        assert parser.version == "1"
    with pytest.raises(ScoringInputError, match="unknown parser 'regex'.*keyword, strict, json"):
        get_parser("regex")


def test_keyword_keeps_text_from_output_marker():
    assert keyword("Options: fear, pity. Output: ad hominem") == {"ad hominem"}
    # The marker is case-sensitive, as in the published scorer.
    assert keyword("options: fear. output: ad hominem") == {"appeal to fear", "ad hominem"}


def test_keyword_cuts_a_repeated_instruction():
    output = "straw man\nBased on the above text, determine whether fear or pity"
    assert keyword(output) == {"straw man"}


def test_keyword_cuts_based_on_the_above_after_cleaning():
    # Step 1 needs "text, determine"; step 2 finds the lower-cased phrase.
    assert keyword("Slippery slope. BASED ON THE ABOVE, it is fear.") == {"slippery slope"}


def test_keyword_matches_substrings_of_the_cleaned_text():
    assert keyword("An emotional appeal about worse things") == {
        "appeal to positive emotion",
        "appeal to worse problems",
    }
    assert keyword("ad-hominem; tu_quoque") == {"ad hominem", "tu quoque"}
    assert keyword("PROBLEMS with slopes") == {"appeal to worse problems", "slippery slope"}


def test_keyword_adds_no_fallacy_on_negation_words():
    assert keyword("The sentence is not part of a fallacious argument.") == {NO_FALLACY}
    assert keyword("None.") == {NO_FALLACY}
    # "false dilemma" also yields ⊥ ("false" is in the regular expression).
    assert keyword("False dilemma") == {"false dilemma", NO_FALLACY}
    assert keyword("appeal to (false) authority") == {"appeal to (false) authority", NO_FALLACY}


def test_keyword_unknown_when_nothing_matches():
    assert keyword("This is notable.") == UNREADABLE  # \bnot\b does not match "notable"
    assert keyword("") == UNREADABLE


def test_strict_accepts_exact_names_aliases_and_no_fallacy_phrases():
    assert strict("Ad Hominem") == {"ad hominem"}
    assert strict("Appeal to Ridicule.") == {"appeal to ridicule"}
    assert strict("ad hominem, straw man") == {"ad hominem", "straw man"}
    assert strict("- ad populum\n- tu quoque") == {"ad populum", "tu quoque"}
    for phrase in (
        "none",
        "No fallacy",
        "not a fallacy",
        "Nothing",
        "The sentence is not part of a fallacious argument.",
    ):
        assert strict(phrase) == {NO_FALLACY}, phrase


def test_strict_rejects_anything_else():
    assert strict("I think it is ad hominem") == UNREADABLE
    assert strict("ad hominem, red herring") == UNREADABLE
    assert strict("  ") == UNREADABLE


def test_strict_with_a_custom_label_set():
    parser = make_parser(
        "strict", labels=["cherry picking"], aliases={"cherry-pick": "cherry picking"}
    )
    assert parser.parse("Cherry-Pick") == {"cherry picking"}
    assert parser.parse("ad hominem") == UNREADABLE


def test_json_reads_lists_objects_and_fences():
    assert json_('["ad hominem"]') == {"ad hominem"}
    assert json_('{"labels": ["Straw Man", "tu quoque"]}') == {"straw man", "tu quoque"}
    assert json_('{"fallacy": "none"}') == {NO_FALLACY}
    assert json_('```json\n{"fallacy": "tu quoque"}\n```') == {"tu quoque"}
    assert json_('Answer: ["ad populum"] as requested') == {"ad populum"}
    assert json_("[]") == {NO_FALLACY}
    assert json_('{"labels": null}') == {NO_FALLACY}


def test_json_unreadable_cases():
    assert json_("ad hominem") == UNREADABLE
    assert json_('["red herring"]') == UNREADABLE
    assert json_('{"answer": "ad hominem"}') == UNREADABLE
    assert json_("[1, 2]") == UNREADABLE
    # Unknown strings are ignored when a known one is present.
    assert json_('["ad hominem", "red herring"]') == {"ad hominem"}


def test_taxonomy_keyword_parser_reads_a_taxonomy_of_its_own():
    from evaluation.scoring import UNREADABLE, taxonomy_parser

    parser = taxonomy_parser("keyword", ["alpha", "beta gamma"], {"first letter": "alpha"})
    assert (parser.name, parser.version) == ("taxonomy-keyword", "1")
    assert parser.parse("Output: Alpha.") == frozenset({"alpha"})
    assert parser.parse("It is BETA-gamma, and the first letter") == frozenset(
        {"alpha", "beta gamma"}
    )
    assert parser.parse("alphabet soup") == UNREADABLE  # whole words only
    assert parser.parse("There is no fallacy here.") == frozenset({"no fallacy"})
    assert parser.parse("ad hominem") == UNREADABLE  # MAFALDA's labels are not its own
    assert taxonomy_parser("strict", ["alpha"]).parse("alpha") == frozenset({"alpha"})
