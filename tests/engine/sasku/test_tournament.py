"""Duplicate-tournament scoring (p2p_sasaki/sasku/tournament.py): the seed's worked examples
(seeds/sasku-et.txt, "Sasku turniiride punktisüsteem") and the comparison table line by line."""

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from p2p_sasaki.sasku.tournament import (
    ALONE_POINTS,
    BYE_POINTS,
    Line,
    TableResult,
    comparison_points,
    line_of,
    score_round,
)

N, E = Line.NS, Line.EW


def points(tables):
    return [score.line_points for score in score_round(tables)]


def whole(*values: int) -> tuple[Fraction, ...]:
    """Points as the scoring keeps them (fractions), from whole numbers."""
    return tuple(map(Fraction, values))


def test_comparison_table():
    # equal results
    assert comparison_points(2, 2, False) == comparison_points(-4, -4, True) == comparison_points(0, 0, False) == 2
    # both positive or both negative, higher: 4 (same line or no declarer), 3 (different lines)
    assert comparison_points(2, 1, False) == 4
    assert comparison_points(-1, -6, False) == 4
    assert comparison_points(2, 1, True) == 3
    assert comparison_points(-1, -2, True) == 3
    # both positive or both negative, lower: 1 (different lines), 0 (otherwise)
    assert comparison_points(1, 2, True) == 1
    assert comparison_points(-4, -2, True) == 1
    assert comparison_points(1, 2, False) == 0
    # not both of one sign (a 0 counts as neither): higher 4, lower 0
    assert comparison_points(1, -1, True) == comparison_points(0, -2, False) == comparison_points(2, 0, True) == 4
    assert comparison_points(-1, 1, True) == comparison_points(0, 2, False) == comparison_points(-2, 0, True) == 0


def test_seed_round_1_ueleküla_beats_the_other_tables():
    # N:-1 at the üleküla table (no declarer) against N:-2 and N:-4: 4 + 4 of 8, 100;
    # E:1 there 0, as the seed's standings show.
    tables = [TableResult(-1, None), TableResult(-2, E), TableResult(-4, N)]
    scores = score_round(tables)
    assert scores[0].deal_points == (8, 0)
    assert scores[0].line_points == whole(100, 0)
    # The other two: N:-2 vs -1 (no declarer there) 0, vs -4 (declared by the other line) 3;
    # E:2 vs 1: 4, vs 4 (declared in a different line) 1.
    assert scores[1].deal_points == (3, 5)
    assert scores[1].line_points == (Fraction(75, 2), Fraction(125, 2))
    assert scores[2].deal_points == (1, 7)
    assert scores[2].line_points == (Fraction(25, 2), Fraction(175, 2))


def test_seed_round_4_everyone_equal_scores_the_average():
    tables = [TableResult(-2, E)] * 3
    assert points(tables) == [(50, 50)] * 3
    assert [score.deal_points for score in score_round(tables)] == [(4, 4)] * 3


def test_seed_round_5_a_shared_top_and_a_pokk():
    # N:2 at two of four tables, above the third in the same line and the pokk table with the
    # opposite sign: 2 + 4 + 4 = 10 of 12, 83 printed; the pokk's E:0 beats every negative E.
    tables = [TableResult(2, N), TableResult(2, N), TableResult(1, N), TableResult(0, E)]
    scores = score_round(tables)
    assert scores[0].deal_points == scores[1].deal_points == (10, 2)
    assert scores[0].line_points == (Fraction(250, 3), Fraction(50, 3))
    assert round(scores[0].line_points[0]) == 83
    assert scores[3].deal_points == (0, 12)
    assert scores[3].line_points == whole(0, 100)
    assert scores[2].deal_points == (4, 8)


def test_seed_karvane_everywhere_but_one_table():
    # Everyone makes karvane: 50 each; a pair that avoids it gets the best result.
    assert points([TableResult(6, N)] * 4) == [(50, 50)] * 4
    tables = [TableResult(6, N), TableResult(6, N), TableResult(1, N)]
    assert points(tables) == [(75, 25)] * 2 + [(0, 100)]


def test_tournament_points_by_seat_follow_the_lines():
    score = score_round([TableResult(-1, None), TableResult(-2, E)])[0]
    assert [line_of(seat) for seat in range(4)] == [N, E, N, E]
    assert score.tournament_points == whole(100, 0, 100, 0)


def test_one_table_alone_and_a_bye_score_50():
    assert points([TableResult(4, E)]) == [(ALONE_POINTS, ALONE_POINTS)] == [whole(50, 50)]
    assert BYE_POINTS == 50


def test_a_leaver_scores_0_the_others_at_the_table_60_and_the_table_is_left_out():
    tables = [TableResult(-1, None), TableResult(6, N, leaver=3), TableResult(-2, E), TableResult(-4, N)]
    scores = score_round(tables)
    assert scores[1].deal_points is None
    assert scores[1].tournament_points == whole(60, 60, 60, 0)
    # the other three compare among themselves, out of (3 - 1) x 4: as the seed's round 1
    assert [s.line_points for s in scores if s.deal_points is not None] == points(
        [TableResult(-1, None), TableResult(-2, E), TableResult(-4, N)])
    # one table counted: 50
    assert points([TableResult(2, N), TableResult(-3, E, leaver=0)])[0] == (50, 50)


@pytest.mark.parametrize("bad", [dict(ns_result=7, declaring_line=N), dict(ns_result=0, declaring_line=None, leaver=4)])
def test_bad_results_are_refused(bad):
    with pytest.raises(ValueError):
        TableResult(**bad)


def test_line_names_as_the_standings_write_them():
    assert f"{N}:{TableResult(-2, E).result(N)}" == "N:-2"
    assert str(E) == "E"


def test_docstring_examples():
    import doctest

    import p2p_sasaki.sasku.tournament as module
    result = doctest.testmod(module)
    assert result.failed == 0 and result.attempted > 0


results = st.builds(TableResult, st.integers(-6, 6), st.sampled_from([N, E, None]))


@given(st.integers(-6, 6), st.integers(-6, 6), st.booleans())
def test_each_comparison_shares_4_points_between_the_two_tables(r, other, differ):
    assert comparison_points(r, other, differ) + comparison_points(other, r, differ) == 4


@given(st.lists(results, min_size=2, max_size=8))
def test_a_line_averages_50_over_the_tables_and_stays_in_0_to_100(tables):
    scores = score_round(tables)
    for line in (0, 1):
        points = [score.line_points[line] for score in scores]
        assert all(0 <= p <= 100 for p in points)
        assert sum(points) == 50 * len(tables)


# ---------------------------------------------------------------------------------------
# Seating, byes, standings and result strings
# ---------------------------------------------------------------------------------------

from p2p_sasaki.sasku.tournament import (  # noqa: E402 (the second half of the module's tests)
    RoundRecord,
    Seating,
    Standings,
    bye_players,
    result_string,
    seat_round,
    shown,
)


def test_result_strings_of_the_seeds_rounds():
    # round 1: N:-1 at the üleküla table 100, E:1 there 0; the other tables' lines
    round_1 = RoundRecord(1, Seating(((0, 1, 2, 3), (4, 5, 6, 7), (8, 9, 10, 11))),
                          (TableResult(-1, None), TableResult(-2, E), TableResult(-4, N)))
    assert [round_1.entry(p) for p in range(4)] == ["N:-1:100", "E:1:0", "N:-1:100", "E:1:0"]
    assert [round_1.entry(p) for p in (4, 5, 8, 9)] == ["N:-2:38", "E:2:63", "N:-4:13", "E:4:88"]
    assert round_1.points(4) == Fraction(75, 2)
    # round 5: N:2 at two of four tables, 10 of 12: 83 shown, 250/3 kept
    round_5 = RoundRecord(5, Seating(tuple((4 * t, 4 * t + 1, 4 * t + 2, 4 * t + 3) for t in range(4))),
                          (TableResult(2, N), TableResult(2, N), TableResult(1, N), TableResult(0, E)))
    assert round_5.entry(0) == "N:2:83" and round_5.points(0) == Fraction(250, 3)
    assert round_5.entry(13) == "E:0:100"
    assert result_string(E, -2, Fraction(50)) == "E:-2:50"


def test_shown_rounds_halves_up():
    assert [shown(Fraction(n, 2)) for n in (0, 1, 25, 125, 199, 200)] == [0, 1, 13, 63, 100, 100]


def test_seating_of_twelve_players_by_the_standings():
    ranking = [11, 3, 5, 0, 9, 8, 1, 2, 4, 6, 7, 10]
    seating = seat_round(ranking, [0] * 12)
    assert seating == Seating(((11, 3, 5, 0), (9, 8, 1, 2), (4, 6, 7, 10)), ())
    assert seating.place(9) == (1, 0) and seating.place(10) == (2, 3)


def test_byes_go_to_the_lowest_and_rotate():
    # seven players: three byes, the lowest three
    assert bye_players(list(range(7)), 3, [0] * 7) == (6, 5, 4)
    # 6 had a bye: 5 and 4 (lowest without one) and then 3
    assert bye_players(list(range(7)), 3, [0, 0, 0, 0, 0, 0, 1]) == (5, 4, 3)
    # everyone but 0 had one: 0 first, then the lowest with one
    assert bye_players(list(range(5)), 2, [0, 1, 1, 1, 1]) == (0, 4)


def test_fewer_than_four_players_have_no_round():
    with pytest.raises(ValueError, match="four players"):
        seat_round([0, 1, 2], [0, 0, 0])


def test_nine_players_a_leaver_in_round_2_scores_0_and_plays_no_more():
    names = tuple(f"P{i}" for i in range(9))
    standings = Standings(names, draw=(8, 7, 6, 5, 4, 3, 2, 1, 0))
    first = standings.next_seating()
    assert first == Seating(((8, 7, 6, 5), (4, 3, 2, 1)), (0,))
    standings = standings.with_round(first, [TableResult(2, N), TableResult(-1, E)])
    # N:2 vs N:-1: the N-S of table 1 scores 100, its E-W 0; table 2 the opposite
    assert [shown(standings.total(p)) for p in range(9)] == [50, 100, 0, 100, 0, 0, 100, 0, 100]
    assert standings.ranking() == (8, 6, 3, 1, 0, 7, 5, 4, 2)
    second = standings.next_seating()
    # the bye goes to the lowest among those without one: player 2
    assert second == Seating(((8, 6, 3, 1), (0, 7, 5, 4)), (2,))
    # player 5 (table 2, S2) leaves in round 2: 0, the other three 60, the table left out
    standings = standings.with_round(second, [TableResult(3, N), TableResult(0, None, leaver=2)])
    round_2 = standings.rounds[1]
    assert [round_2.entry(p) for p in (0, 7, 5, 4)] == ["N:-:60", "E:-:60", "left:0", "E:-:60"]
    assert [round_2.entry(p) for p in (8, 6, 3, 1)] == ["N:3:50", "E:-3:50", "N:3:50", "E:-3:50"]  # one table: 50
    assert round_2.entry(2) == "bye:50"
    assert standings.left == (5,)
    assert 5 not in standings.active() and 5 in standings.ranking()
    third = standings.next_seating()
    assert 5 not in third.players and len(third.players) == 8 and third.byes == ()
    assert standings.total(5) == 0
    assert standings.total(0) == 110


@st.composite
def tournaments(draw):
    players = draw(st.integers(4, 13))
    order = tuple(draw(st.permutations(range(players))))
    rounds = draw(st.integers(1, 2 * players))
    return players, order, rounds, draw(st.randoms(use_true_random=False))


@settings(deadline=None)   # up to 26 rounds of 13 players a case: no timing is asserted
@given(tournaments())
def test_a_tournament_seats_by_the_standings_and_rotates_byes_fairly(case):
    players, order, rounds, rng = case
    standings = Standings(tuple(f"P{i}" for i in range(players)), order)
    for _ in range(rounds):
        try:
            seating = standings.next_seating()
        except ValueError:
            assert len(standings.active()) < 4
            break
        active = standings.active()
        assert seating.players == frozenset(active)
        assert len(seating.byes) == len(active) % 4
        had = {p: standings.byes_had(p) for p in active}
        seated = [p for p in active if p not in seating.byes]
        for bye in seating.byes:
            # nobody seated has had fewer byes; among those who had as many, the bye is lower
            assert all(had[q] >= had[bye] for q in seated)
            assert all(active.index(q) < active.index(bye) for q in seated if had[q] == had[bye])
        assert [p for table in seating.tables for p in table] == seated
        results = []
        for _table in seating.tables:
            leaver = rng.choice([None] * 6 + [0, 1, 2, 3])
            results.append(TableResult(rng.randint(-6, 6), rng.choice([N, E, None]), leaver))
        standings = standings.with_round(seating, results)
        for record in standings.rounds:
            for p in record.seating.players:
                assert 0 <= record.points(p) <= 100
        assert sum(map(standings.total, range(players))) == sum(
            r.points(p) for r in standings.rounds for p in r.seating.players)
    # byes rotate: nobody's count exceeds another active player's by more than one
    counts = [standings.byes_had(p) for p in standings.active()]
    if counts:
        assert max(counts) - min(counts) <= 1 or standings.left
