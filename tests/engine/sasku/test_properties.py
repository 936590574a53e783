"""Properties of every Sasku deal, over random deals and random legal play (hypothesis)."""

from random import Random

from hypothesis import given, settings
from hypothesis import strategies as st

from p2p_sasaki.sasku.deal import Deal, apply, legal_actions, seen_by, state_hash, view
from p2p_sasaki.sasku.options import SaskuOptions
from p2p_sasaki.sasku.records import replay, write_record
from p2p_sasaki.sasku.trumps import card_points

options = st.builds(SaskuOptions, min_bid=st.integers(5, 9), picture_shown=st.booleans())


def play_through(seed: int, number: int, table: SaskuOptions) -> Deal:
    rng = Random(seed)
    deal = Deal.random(rng, number, table)
    while not deal.is_over:
        actions = legal_actions(deal)
        assert actions, deal
        deal = apply(deal, actions[rng.randrange(len(actions))])
    return deal


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 2**32), st.integers(0, 40), options)
def test_every_complete_deal_has_nine_tricks_and_120_card_points(seed, number, table):
    deal = play_through(seed, number, table)
    assert sum(deal.tricks) == 9 and sum(deal.card_points) == 120
    assert len(deal.played) == 36 and all(deal.hand_size(seat) == 0 for seat in range(4))
    # the card points are those of the tricks each pair won: the history says which
    plays = [a for a in deal.history if a.verb == "play"]
    assert len(plays) == 36


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 2**32), st.integers(0, 40), options)
def test_game_points_per_deal_are_within_0_to_6_to_one_pair(seed, number, table):
    deal = play_through(seed, number, table)
    points = deal.points
    assert points is not None and all(0 <= p <= 6 for p in points) and min(points) == 0
    if deal.card_points == (60, 60):
        assert points == (0, 0)
    else:
        assert max(points) >= 1


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32), st.integers(0, 40), options)
def test_each_seats_view_reaches_the_full_deals_state_hash(seed, number, table):
    rng = Random(seed)
    full = Deal.random(rng, number, table)
    peers = [Deal.for_peer(seat, full.cards(seat), number, table) for seat in range(4)]
    while not full.is_over:
        actions = legal_actions(full)
        action = actions[rng.randrange(len(actions))]
        full = apply(full, action)
        peers = [apply(peer, seen_by(action, seat, table)) for seat, peer in enumerate(peers)]
        assert all(state_hash(peer) == state_hash(full) for peer in peers)
    for seat, peer in enumerate(peers):
        assert state_hash(view(full, seat)) == state_hash(full)
        assert peer.points == full.points and peer.tricks == full.tricks


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 2**32), st.integers(0, 40), options, st.integers(0, 50))
def test_records_round_trip_at_any_point(seed, number, table, cut):
    deal = play_through(seed, number, table)
    text = write_record(deal)
    again = replay(text)
    assert again.history == deal.history and again.points == deal.points and write_record(again) == text
    lines = text.splitlines()
    head = lines[:len(lines) - len(deal.history) + min(cut, len(deal.history))]
    part = replay("\n".join(head) + "\n")
    assert part.history == deal.history[:min(cut, len(deal.history))]
    assert sum(part.card_points) == card_points(sum(c.mask for c in part.played)) - card_points(
        sum(c.mask for c in part.trick))
