"""The help is the rules: the in-game help is the block of docs/rules.md marked "in-game
help", word for word, and docs/rules.md is a player's rulebook, not the engine's contract
(issue 20, findings 4 and 11)."""

from __future__ import annotations

import re

from p2p_sasaki.cli.games.sasaki import RULES_HELP
from tests.cli.peers import ROOT

RULES = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")


def marked_block() -> str:
    start, end = "<!-- in-game help -->\n```\n", "```\n<!-- end of in-game help -->"
    assert RULES.count(start) == 1 and RULES.count(end) == 1
    return RULES.split(start)[1].split(end)[0].rstrip("\n")


def test_the_in_game_help_is_the_marked_block_of_the_rulebook():
    assert RULES_HELP == marked_block()
    assert all(len(line) <= 88 for line in RULES_HELP.splitlines())     # a terminal's width


def test_the_help_puts_the_triplet_among_the_specials_not_the_same_kind_plays():
    ordinary = RULES_HELP[RULES_HELP.index("Ordinary plays"):RULES_HELP.index("Specials")]
    specials = RULES_HELP[RULES_HELP.index("Specials"):RULES_HELP.index("Chata")]
    assert "triplet" not in ordinary and "a triplet," in specials
    assert "Specials beat every ordinary play" in specials
    assert "Sasaki (4 4 A)" in specials and "Black Pig (TC TS)" in specials
    assert "more cards' worth" not in RULES_HELP and "as many cards and a higher rank" in ordinary


def test_the_rulebook_explains_what_a_player_asks_in_plain_words():
    for words in ("two fours and an ace", "The **Black Pig**", "**A special beats every ordinary play, whatever its "
                  "size**", "\"more cards' worth\"", "Why run:", "Call Stop when", "**chata**", "**kkojda**",
                  "alone against three", "shows the cards they still hold"):
        assert words in " ".join(RULES.split()), words


def test_the_rulebook_holds_no_engine_contract_and_no_dangling_reference():
    for jargon in ("view(", ".shown", "AuditNeededError", "HiddenInformationError", "state_hash", "resolve(",
                   "sasaki-rules.md", "provisional", "p2p_sasaki/"):
        assert jargon not in RULES, jargon
    for path in re.findall(r"docs/[\w-]+\.md", RULES):
        assert (ROOT / path).exists(), path
    architecture = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    assert "## The rules engine" in architecture and "AuditNeededError" in architecture
