"""Hand-made records for the corners random play rarely reaches.

Each case is (name, record text, expected oracle result).  The expectation is worked out by
hand from the rules text; ``("ok", finish)`` for a legal record (finish so far), or
``("err", k)`` where k is the 0-based index of the bad action line.
"""

from __future__ import annotations

from sasaki_oracle import DECK


def deal(spec: dict[int, str]) -> list[list[str]]:
    seats = {s: spec.get(s, "").split() for s in range(4)}
    used = {c for cards in seats.values() for c in cards}
    rest = [c for c in DECK if c not in used]
    for s in range(4):
        while len(seats[s]) < 12:
            seats[s].append(rest.pop(0))
    return [seats[s] for s in range(4)]


def record(spec: dict[int, str], actions: str, tags: str = "") -> tuple[str, int]:
    """Record text and the physical line of the first action."""
    lines = [t.strip() for t in tags.strip().splitlines() if t.strip()]
    lines += [f'[Seat{s} "{" ".join(cards)}"]' for s, cards in enumerate(deal(spec))]
    first = len(lines) + 1
    lines += [a.strip() for a in actions.strip().splitlines() if a.strip()]
    return "\n".join(lines) + "\n", first


PASS3 = "S1 pass\nS2 pass\nS3 pass"

# S0 can empty its hand down to TH TD with two sequences.
LAST2 = {0: "3H 4C 5C 6C 7C 8C 9C JC QC KC TH TD", 1: "9H 9S JH JS", 2: "TC TS"}
LAST2_OPEN = f"S0 play 3H 4C 5C 6C 7C 8C 9C\n{PASS3}\nS0 play JC QC KC\n{PASS3}\n"

# S1 empties its hand with two sequences and a 3 (non-red); S2 and S3 are red partners.
S1_OUT = {1: "3H 4C 5C 6C 7C 8C 9C JC QC KC AC 3C", 2: "TH 5D", 3: "TD 5H", 0: "5S"}
S1_OUT_OPEN = ("S1 play 3H 4C 5C 6C 7C 8C 9C\nS2 pass\nS3 pass\nS0 pass\n"
               "S1 play JC QC KC AC\nS2 pass\nS3 pass\nS0 pass\n"
               "S1 play 3C\nS2 pass\nS3 pass\nS0 pass\n")   # S1 out; S2 leads
AOT = '[Running "any_own_turn"]'

CASES = [
    # TH TD as the last two cards: only a pair of tens.
    ("last_two_red_tens_are_a_pair_beaten_by_JJ", LAST2, LAST2_OPEN + "S0 play TH TD\nS1 play JH JS", "",
     ("ok", [0])),
    ("last_two_red_tens_not_beaten_by_black_tens", LAST2, LAST2_OPEN + "S0 play TH TD\nS1 pass\nS2 play TC TS",
     "", ("err", 10)),
    # Pig and Black Pig.
    ("pig_cannot_be_played_on_black_pig", {0: "3H TH TD", 1: "AH", 2: "AD TC TS"},
     "S0 play 3H\nS1 pass\nS2 play AD\nS3 pass\nS0 pass\nS1 pass\nS2 play TC TS\nS3 pass\nS0 play TH TD",
     "", ("err", 8)),
    ("black_pig_beats_pig_then_is_a_pair_of_tens", {0: "3H TH TD", 1: "JH JS", 2: "TC TS"},
     f"S0 play 3H\n{PASS3}\nS0 play TH TD\nS1 pass\nS2 play TC TS\nS3 pass\nS0 pass\nS1 play JH JS",
     "", ("ok", [])),
    ("four_cannot_beat_pig", {0: "3H TH TD", 1: "9C 9D 9H 9S"},
     f"S0 play 3H\n{PASS3}\nS0 play TH TD\nS1 play 9C 9D 9H 9S", "", ("err", 5)),
    ("pig_beats_four", {0: "3H 9C 9D 9H 9S", 1: "TH TD"},
     f"S0 play 3H\n{PASS3}\nS0 play 9C 9D 9H 9S\nS1 play TH TD", "", ("ok", [])),
    ("red_and_black_ten_are_a_pair", {0: "3H TH TC", 1: "JH JS"},
     f"S0 play 3H\n{PASS3}\nS0 play TH TC\nS1 play JH JS", "", ("ok", [])),
    # Specials among themselves.
    ("sasaki_cannot_beat_sasaki", {0: "3H 4C 4D AC", 1: "4H 4S AH"},
     f"S0 play 3H\n{PASS3}\nS0 play 4C 4D AC\nS1 play 4H 4S AH", "", ("err", 5)),
    ("four_beats_sasaki", {0: "3H 4C 4D AC", 1: "9C 9D 9H 9S"},
     f"S0 play 3H\n{PASS3}\nS0 play 4C 4D AC\nS1 play 9C 9D 9H 9S", "", ("ok", [])),
    ("triplet_cannot_beat_sasaki", {0: "3H 4C 4D AC", 1: "KC KD KH"},
     f"S0 play 3H\n{PASS3}\nS0 play 4C 4D AC\nS1 play KC KD KH", "", ("err", 5)),
    ("sasaki_beats_triplet_of_aces", {0: "3H AC AD AH", 1: "4H 4S AS"},
     f"S0 play 3H\n{PASS3}\nS0 play AC AD AH\nS1 play 4H 4S AS", "", ("ok", [])),
    ("lower_four_cannot_beat_higher_four", {0: "3H 9C 9D 9H 9S", 1: "8C 8D 8H 8S"},
     f"S0 play 3H\n{PASS3}\nS0 play 9C 9D 9H 9S\nS1 play 8C 8D 8H 8S", "", ("err", 5)),
    ("triplet_beats_long_sequence", {0: "3H 4C 5C 6C 7C 8C", 1: "KC KD KH"},
     "S0 play 3H 4C 5C 6C 7C 8C\nS1 play KC KD KH", "", ("ok", [])),
    # Sequences.
    ("sequence_ace_is_high_only", {0: "3H KC AC"}, "S0 play KC AC 3H", "", ("err", 0)),
    ("sequence_QKA", {0: "3H QC KC AC"}, "S0 play AC QC KC", "", ("ok", [])),
    ("sequence_length_must_match", {0: "3H 4C 5C", 1: "6C 7C 8C 9C"},
     "S0 play 3H 4C 5C\nS1 play 6C 7C 8C 9C", "", ("err", 1)),
    ("two_card_run_is_not_a_sequence", {0: "3H 4C"}, "S0 play 3H 4C", "", ("err", 0)),
    # Chata and kkojda.
    ("chata_by_the_singles_player", {0: "3H 3C 3D"}, "S0 play 3H\nS0 chata 3C 3D", "", ("err", 1)),
    ("kkojda_by_the_singles_player", {0: "3H 3C 4C", 2: "3D 3S"},
     "S0 play 3H\nS2 chata 3D 3S\nS0 kkojda 3C\nS0 play 4C", "", ("ok", [])),
    ("chata_player_leads", {0: "3H", 2: "3D 3S 4C", 1: "3C"},
     "S0 play 3H\nS2 chata 3D 3S\nS2 play 4C", "", ("ok", [])),
    ("chata_player_leads_not_next_turn", {0: "3H", 2: "3D 3S", 1: "3C 4C"},
     "S0 play 3H\nS2 chata 3D 3S\nS1 play 4C", "", ("err", 2)),
    ("chata_on_a_ten_with_the_pig_cards", {0: "3H TC", 2: "TH TD 4C"},
     f"S0 play 3H\n{PASS3}\nS0 play TC\nS2 chata TH TD\nS2 play 4C", "", ("ok", [])),
    ("chata_on_a_pair_is_not_allowed", {0: "3H 5C 5D", 2: "5H 5S"},
     f"S0 play 3H\n{PASS3}\nS0 play 5C 5D\nS2 chata 5H 5S", "", ("err", 5)),
    ("kkojda_must_be_the_rank", {0: "3H", 2: "3D 3S", 1: "3C 4C"},
     "S0 play 3H\nS2 chata 3D 3S\nS1 kkojda 4C", "", ("err", 2)),
    ("kkojda_after_a_pass_is_late", {0: "3H", 1: "3C", 3: "3D 3S 4S"},
     "S0 play 3H\nS3 chata 3D 3S\nS3 play 4S\nS1 kkojda 3C", "", ("err", 3)),
    ("stop_after_a_play_is_late", {0: "3H", 1: "TH", 2: "TD", 3: "3D 3S"},
     "S1 run TH\nS0 play 3H\nS3 stop", "", ("err", 2)),
    # Going out and the lead.
    ("lead_passes_on_when_the_last_player_is_out", S1_OUT, S1_OUT_OPEN + "S2 play 5D", "",
     ("ok", [1])),
    ("lead_not_to_the_gone_out_player", S1_OUT, S1_OUT_OPEN + "S3 play 5H", "", ("err", 12)),
    ("chata_on_a_last_single", S1_OUT | {0: "3D 3S 5S"}, S1_OUT_OPEN.replace(
        "S1 play 3C\nS2 pass\nS3 pass\nS0 pass\n", "S1 play 3C\nS0 chata 3D 3S\nS0 play 5S"),
     "", ("ok", [1])),
    ("beat_a_last_card_then_the_round_ends_with_the_others", S1_OUT | {0: "AS 5S"},
     S1_OUT_OPEN.replace("S1 play 3C\nS2 pass\nS3 pass\nS0 pass\n",
                         "S1 play 3C\nS2 pass\nS3 pass\nS0 play AS\nS2 pass\nS3 pass\nS0 play 5S"),
     "", ("ok", [1])),
    # Running and Stop.
    ("partner_run_lists_only_its_ten", {0: "3H", 1: "TH", 2: "TD"}, "S1 run TH TD", "", ("err", 0)),
    ("lone_run_lists_both", {0: "3H", 1: "TH TD"}, "S1 run TH", "", ("err", 0)),
    ("lone_run_and_stops", {0: "3H", 1: "TH TD"}, "S1 run TD TH\nS3 stop\nS0 stop\nS0 play 3H", "",
     ("ok", [])),
    ("exchange_after_run", {0: "3H", 1: "TH", 2: "TD"},
     "S1 run TH\nS0 play 3H\nS1 play TD", "", ("ok", [])),
    ("no_exchange_means_error", {0: "3H", 1: "TH", 2: "TD"},
     "S1 run TH\nS0 play 3H\nS1 play TH", "", ("err", 2)),
    ("run_after_first_play", {0: "3H", 1: "TH", 2: "TD"}, "S0 play 3H\nS1 run TH", "", ("err", 1)),
    ("aot_run_at_own_turn", {0: "3H", 1: "TH", 2: "TD"},
     "S0 play 3H\nS1 run TH\nS0 stop\nS3 stop\nS1 pass\nS2 play TH", AOT, ("ok", [])),
    ("aot_run_not_own_turn", {0: "3H", 1: "TH", 2: "TD"}, "S0 play 3H\nS2 run TD", AOT, ("err", 1)),
    ("aot_no_run_before_own_turn", {0: "3H", 1: "TH", 2: "TD"}, "S1 run TH", AOT, ("err", 0)),
    ("aot_run_closes_the_chata_chance", {0: "3H", 1: "TH", 2: "TD", 3: "3D 3S"},
     "S0 play 3H\nS1 run TH\nS3 chata 3D 3S", AOT, ("err", 2)),
    ("aot_no_run_after_a_red_ten_is_played", {0: "3H", 1: "TH", 2: "TD"},
     "S0 play 3H\nS1 play TH\nS2 run TD", AOT, ("err", 2)),
    ("aot_stop_by_an_opponent_who_is_out", S1_OUT, S1_OUT_OPEN + "S2 run TH\nS1 stop\nS2 play 5D",
     AOT, ("ok", [1])),
    ("aot_first_leader_runs", {0: "3H TH", 2: "TD"}, "S0 run TH\nS1 stop\nS0 play 3H", AOT, ("ok", [])),
    # Options and tags.
    ("lead_must_contain_3", {0: "3H 4C"}, "S0 play 4C", '[LeadMustContain3 "yes"]', ("err", 0)),
    ("lead_3S", {0: "3H", 1: "3S"}, "S1 play 3S", '[Lead "3S"]', ("ok", [])),
    ("lead_3S_wrong_leader", {0: "3H", 1: "3S"}, "S0 play 3H", '[Lead "3S"]', ("err", 0)),
    ("unknown_tag_after_first_action_is_ignored", {0: "3H"}, 'S0 play 3H\n[Site "x"]\nS1 pass',
     "", ("ok", [])),
    ("play_lists_a_card_twice", {0: "3H"}, "S0 play 3H 3H", "", ("err", 0)),
    ("ten_as_10", {0: "3H TC", 1: "JC"}, f"S0 play 3H\n{PASS3}\nS0 play 10c\nS1 play J♣", "",
     ("ok", [])),
]
