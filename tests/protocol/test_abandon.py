"""Abandon and leaving (docs/protocol.md, "Abandon", "Leaving", "Settlement"): the present
seats close a slot a silent seat holds up, the void hand is settled with the complement of
the revealed hands, and the seat that left is named as having left, never as a cheat. Four
sans-IO sessions on the seeded hostile fake wire of tests/protocol/table_helpers.py."""

from __future__ import annotations

import copy
import functools

import pytest

from p2p_sasaki.protocol.events import AbandonRejected, BlameBasis, HandAbandoned, SeatLeft
from p2p_sasaki.protocol.messages import Abandon, Body, decode_envelope, sign_envelope
from p2p_sasaki.protocol.sasaki_game import LEAD_SLOT, SasakiGame
from p2p_sasaki.protocol.session import HandEnded, MatchEnded, TableConfig
from p2p_sasaki.protocol.table_audit import AuditStatus, audit_table
from p2p_sasaki.protocol.transcript import KIND_ENVELOPE, encode_record, frame_records
from p2p_sasaki.sasaki.options import TableOptions
from tests.protocol.table_helpers import Net

# Its tests share the stuck table (stuck_table), made once per process: one worker runs them all.
pytestmark = pytest.mark.xdist_group("abandon")


ONE = TableConfig(hands=1, game=SasakiGame(TableOptions(lead_card="3H")), proofs=False)
TWO = TableConfig(hands=2, game=SasakiGame(TableOptions(lead_card="3H")), proofs=False)
PROOFS = TableConfig(hands=1, game=SasakiGame(TableOptions(lead_card="3H")), proofs=True)


class Silence:
    """The fake wire's tamper: peer ``victim`` (roster index) stops sending for good at its
    first envelope ``when(body)`` is true for (its driver stopped)."""

    def __init__(self, victim: int, when) -> None:
        self.victim, self.when, self.silent = victim, when, False

    def __call__(self, sender: int, envelope: bytes):
        if sender != self.victim:
            return None
        if not self.silent and self.when(decode_envelope(envelope).body):
            self.silent = True
        return [] if self.silent else None


def after_the_strips(body) -> bool:
    return body.hand == 1 and body.slot > LEAD_SLOT    # its first play after the opening slot


def during_the_deal(body) -> bool:
    return body.hand == 1 and body.type == "deck/shuffle"


def seat_of(net: Net, peer: int) -> int:
    seat = net.peers[peer].my_seat
    assert seat is not None
    return seat


def present(net: Net, victim: int) -> list[int]:
    return [i for i in range(net.n) if i != victim]


def abandon_all(net: Net, peers: list[int], end: bool = False) -> None:
    for i in peers:
        assert net.peers[i].abandon(end=end), i
    net.run()


def test_a_seat_silent_after_the_strips_is_abandoned_and_the_deal_settled_by_complement():
    net = stuck_table(3)
    seat = net.peers[1].my_seat
    others = present(net, 1)
    assert all(net.peers[i].waiting_for == (seat,) for i in others), [net.peers[i].waiting_for for i in others]
    abandon_all(net, others, end=False)
    dealt = {p.my_seat: p._my_cards for p in net.peers}
    for i in others:
        peer = net.peers[i]
        assert peer.blame is None and peer.finished
        (event,) = net.of_type(i, HandAbandoned)
        assert (event.hand, event.left, event.end) == (1, (seat,), False)
        assert event.deal == tuple(dealt[s] for s in range(4))   # the silent seat's hand: the complement
        assert "left during hand 1" in event.reason and event.forfeit == seat   # the score: the test below
    transcripts = {net.transcript(i) for i in others}
    assert len(transcripts) == 1
    audit = audit_table(transcripts.pop())
    assert audit.blame is None and audit.abandoned == (1,)


def test_the_match_goes_on_after_an_abandoned_hand_and_the_next_deal_stops_waiting_for_the_seat():
    silence = Silence(2, after_the_strips)
    net = Net(seed=4, config=TWO, tamper=silence)
    net.start()
    net.run()
    seat = net.peers[2].my_seat
    others = present(net, 2)
    abandon_all(net, others, end=False)     # hand 1 void, hand 2 starts and waits for the seat in its deal
    assert all(net.peers[i].hand_no == 2 and not net.peers[i].finished for i in others)
    abandon_all(net, others, end=False)
    for i in others:
        first, second = net.of_type(i, HandAbandoned)
        assert second.hand == 2 and second.deal is None and second.left == (seat,)
        assert second.reason == f"stopped during the deal, waiting for S{seat}"
        assert net.peers[i].finished and net.peers[i].blame is None
    audit = audit_table(net.transcript(others[0]))
    assert audit.status is AuditStatus.ABANDONED and audit.abandoned == (1, 2) and audit.left == (seat,)
    assert len({net.transcript(i) for i in others}) == 1


def test_a_hand_stopped_during_the_deal_is_void_with_no_keys_and_nobody_blamed():
    silence = Silence(0, during_the_deal)
    net = Net(seed=5, config=PROOFS, tamper=silence)
    net.start()
    net.run()
    seat = net.peers[0].my_seat
    others = present(net, 0)
    waiting = {net.peers[i].waiting_for for i in others}
    assert waiting == {(seat,)}, waiting
    abandon_all(net, others, end=True)
    for i in others:
        (event,) = net.of_type(i, HandAbandoned)
        assert event.reason == f"stopped during the deal, waiting for S{seat}"
        assert event.deal is None and event.end and net.peers[i].blame is None
        assert not any(decode_envelope(r[1]).body.type == "deck/key"
                       for r in frame_records(net.transcript(i))[0][1:])
    audit = audit_table(net.transcript(others[0]))
    assert audit.status is AuditStatus.ABANDONED and audit.blame is None and audit.left == (seat,)


def test_an_abandon_needs_every_present_seat_and_until_then_the_table_waits():
    net = stuck_table(3)
    seat = net.peers[1].my_seat
    others = present(net, 1)
    for i in others[:2]:
        assert net.peers[i].abandon()
        assert not net.peers[i].abandon()    # one abandon per slot
    net.run()
    for i in others:
        assert net.peers[i].waiting_for == (seat,) and not net.of_type(i, HandAbandoned)
    assert net.peers[others[2]].abandon()
    net.run()
    assert all(net.of_type(i, HandAbandoned) for i in others)


@functools.cache
def _played_until_stuck(seed: int) -> Net:
    net = Net(seed=seed, config=ONE, tamper=Silence(1, after_the_strips))
    net.start()
    net.run()
    return net


def stuck_table(seed: int = 3) -> Net:
    """Peer 1 silent from its first play after the opening slot, the others waiting on it: the
    table played once per seed (most tests here start from seed 3), each caller given its own
    deep copy of the whole table (the identity keys shared), which it may go on with."""
    net = _played_until_stuck(seed)
    return copy.deepcopy(net, {id(k): k for k in net.keys})


def _stuck(seed: int = 3) -> tuple[Net, int, list[int]]:
    net = stuck_table(seed)
    seat = net.peers[1].my_seat
    assert seat is not None
    return net, seat, present(net, 1)


def test_a_forged_abandon_or_one_with_a_wrong_prev_is_rejected_with_one_sentence_and_blames_nobody():
    net, seat, others = _stuck()
    target = net.peers[others[0]]
    signer = net.peers[others[1]]
    assert signer.my_seat is not None
    unit_slot = target.slot
    # forged: the body names a present seat as sender, signed with another key
    forged = sign_envelope(Body(target.table_id, 1, unit_slot, signer.my_seat, target.chain, Abandon((seat,))),
                           net.keys[others[2]])
    target.receive(forged)
    # authentic but bound to another state
    wrong = sign_envelope(Body(target.table_id, 1, unit_slot, signer.my_seat, bytes(32), Abandon((seat,))),
                          net.keys[others[1]])
    target.receive(wrong)
    events = target.take_events()
    rejected = [e for e in events if isinstance(e, AbandonRejected)]
    assert [r.seat for r in rejected] == [None, signer.my_seat], rejected
    assert "does not carry its signer's signature" in rejected[0].reason
    assert "not bound to the agreed state" in rejected[1].reason
    assert target.blame is None and target.waiting_for == (seat,)


def test_two_different_abandons_of_one_slot_by_one_seat_are_equivocation_named_on_signed_evidence():
    net, seat, others = _stuck()
    cheat = net.peers[others[0]]
    assert cheat.my_seat is not None
    first = sign_envelope(Body(cheat.table_id, 1, cheat.slot, cheat.my_seat, cheat.chain, Abandon((seat,))),
                          net.keys[others[0]])
    second = sign_envelope(Body(cheat.table_id, 1, cheat.slot, cheat.my_seat, cheat.chain, Abandon((seat,), True)),
                           net.keys[others[0]])
    victim = net.peers[others[1]]
    victim.receive(first)
    victim.receive(second)
    assert victim.blame is not None and victim.blame.seat == cheat.my_seat
    assert "signed two different messages" in victim.blame.reason
    audit = audit_table(b"".join(e.data for e in net.events[others[1]] + victim.take_events()
                                 if type(e).__name__ == "Record"))
    assert audit.status is AuditStatus.FAULT and audit.blame.seat == cheat.my_seat


def test_an_abandon_and_an_answer_of_one_slot_are_not_evidence_of_anything():
    net, seat, others = _stuck()
    signer = net.peers[others[0]]
    answered = next((m for k, m in signer._seen.items() if k[:3] == (1, signer.slot, signer.my_seat)), None)
    abandon_all(net, others)
    transcript = net.transcript(others[1])
    if answered is not None:   # a file holding the seat's answer and its abandon as "evidence" names nobody
        from p2p_sasaki.protocol.transcript import KIND_EVIDENCE, encode_evidence
        mine = signer._seen[(1, answered.body.slot, signer.my_seat, "table/abandon")]
        tampered = transcript + encode_record(KIND_EVIDENCE, encode_evidence(answered.raw, mine.raw))
        audit = audit_table(tampered)
        assert audit.blame is not None and audit.blame.seat is None


@pytest.mark.parametrize("drop", [0, 1])
def test_a_tampered_abandoned_transcript_names_nobody(drop):
    net, seat, others = _stuck()
    abandon_all(net, others)
    records, _ = frame_records(net.transcript(others[0]))
    abandons = [i for i, (kind, data) in enumerate(records)
                if kind == KIND_ENVELOPE and decode_envelope(data).body.type == "table/abandon"]
    assert len(abandons) == 3
    kept = [r for i, r in enumerate(records) if i != abandons[drop]]
    audit = audit_table(b"".join(encode_record(kind, data) for kind, data in kept))
    assert audit.status in (AuditStatus.DAMAGED, AuditStatus.INCOMPLETE) and (audit.blame is None
                                                                              or audit.blame.seat is None)


def test_a_leave_notice_tells_the_others_at_once():
    net, seat, others = _stuck()
    leaver = net.peers[1]
    leaver_sends = net.tamper
    net.tamper = None
    assert leaver.leave() and not leaver.leave()
    net.run()
    net.tamper = leaver_sends
    for i in others:
        assert net.of_type(i, SeatLeft) == [SeatLeft(seat, 1)]
        assert net.peers[i].left == {seat}
    abandon_all(net, others)
    assert all(net.of_type(i, HandAbandoned) for i in others)


def test_a_refuser_that_also_withholds_its_key_is_named_by_the_complement_everywhere():
    """issue 12's settlement after the strips, when the refuser withholds its key too: the
    present seats abandon the key slot (their keys recorded with their abandon), and the
    refuser's hand (the complement) shows the opening card it declined."""
    holder_index: dict[str, int] = {}

    def withhold(sender, envelope):
        if sender == holder_index.get("i") and decode_envelope(envelope).body.type == "deck/key":
            return []
        return None

    net = Net(seed=6, config=ONE, tamper=withhold)
    card = net.peers[0].game.opening_card()
    assert card is not None
    for i, peer in enumerate(net.peers):
        original = peer._begin_game

        def refusing(peer=peer, original=original, i=i):
            mine = peer._my_cards
            if mine is not None and mine >> card & 1:
                holder_index["i"] = i
                peer._my_cards = mine & ~(1 << card)
            original()
            peer._my_cards = mine

        peer._begin_game = refusing
    net.start()
    net.run()
    refuser = holder_index["i"]
    holder = net.peers[refuser].my_seat
    others = present(net, refuser)
    assert all(net.peers[i].blame is None and net.peers[i].waiting_for == (holder,) for i in others)
    abandon_all(net, others)
    for i in others:
        blame = net.peers[i].blame
        assert (blame.seat, blame.hand, blame.slot, blame.basis) == (holder, 1, LEAD_SLOT, BlameBasis.SIGNED)
        assert "declined" in blame.reason and "complement" in blame.reason
        audit = audit_table(net.transcript(i))
        assert audit.status is AuditStatus.FAULT and (audit.blame.seat, audit.blame.slot) == (holder, LEAD_SLOT)
    assert len({net.transcript(i) for i in others}) == 1


def test_a_complete_hand_keeps_its_score_when_the_next_is_abandoned():
    silence = Silence(3, lambda body: body.hand == 2 and body.slot > LEAD_SLOT)
    net = Net(seed=8, config=TWO, tamper=silence)
    net.start()
    net.run()
    others = present(net, 3)
    assert all(net.peers[i].hand_no == 2 for i in others)
    abandon_all(net, others, end=True)
    ended = net.of_type(others[0], HandEnded)
    assert len(ended) == 2 and ended[1].scores == (12, 12, 12, -36)    # hand 2: S3 forfeits it
    audit = audit_table(net.transcript(others[0]))
    assert audit.status is AuditStatus.COMPLETE and audit.scores == (ended[0].scores, ended[1].scores)
    assert audit.forfeits == (None, 3)
    assert audit.totals == ended[1].totals and net.of_type(others[0], MatchEnded)[-1].totals == ended[1].totals


@pytest.mark.parametrize("seed", [3, 9])   # 9: the others' next slot reaches it before their whole abandon
def test_a_seat_voted_out_after_completing_its_own_turn_says_it_answered_and_was_voted_out(seed):
    """Finding 7 of issue 18 on the expelled seat's own turn: it completed its turn slot by
    itself (its play never left); the others abandon that slot naming it silent. It does not
    stop as cut off: it returns to the slot's prev, records their abandon after its own answer
    (docs/protocol.md, "Answered and voted out"), follows their KEYS slot, and its own
    transcript audits complete with a note that it answered and was voted out, not that it
    left. The others' transcripts are unchanged (they say it left)."""
    net = stuck_table(seed)
    victim = net.peers[1]
    seat = seat_of(net, 1)
    assert victim.slot == net.peers[0].slot + 1        # it went on alone
    slot = net.peers[0].slot
    abandon_all(net, present(net, 1))
    assert victim.blame is None and victim.finished
    assert all(net.peers[i].blame is None and net.of_type(i, HandAbandoned) for i in present(net, 1))
    (event,) = net.of_type(1, HandAbandoned)
    assert (event.slot, event.left, event.forfeit) == (slot, (seat,), seat)
    assert event.reason.startswith(f"S{seat} answered hand 1 slot {slot} and was voted out by ")
    assert "it forfeits the hand" in event.reason and " left" not in event.reason
    theirs = net.of_type(0, HandAbandoned)[0]
    assert "left during hand 1" in theirs.reason
    assert net.of_type(1, MatchEnded)[-1].totals == net.of_type(0, MatchEnded)[-1].totals
    audit = audit_table(net.transcript(1))
    assert audit.status is AuditStatus.COMPLETE and audit.blame is None and audit.forfeits == (seat,)
    assert audit.note is not None and f"S{seat} answered hand 1 slot {slot} and was voted out" in audit.note
    assert " left" not in audit.note
    assert len({net.transcript(i) for i in present(net, 1)}) == 1


def test_a_seat_voted_out_of_its_own_turn_that_it_completed_alone_says_so_too():
    """The same on a turn (the slot waits for the victim alone): its play completes the slot
    at once on its own peer and never reaches the others, who abandon the turn naming it."""
    def own_turn(body) -> bool:
        return (body.hand == 1 and body.slot > LEAD_SLOT and body.type == "table/action"
                and body.payload.verb in ("play", "pass"))

    net = Net(seed=3, config=ONE, tamper=Silence(2, own_turn))
    net.start()
    net.run()
    victim, seat = net.peers[2], seat_of(net, 2)
    slot = net.peers[0].slot
    assert net.peers[0].waiting_for == (seat,) and victim.slot == slot + 1    # its turn, completed alone
    abandon_all(net, present(net, 2))
    assert victim.blame is None and victim.finished
    (event,) = net.of_type(2, HandAbandoned)
    assert event.reason.startswith(f"S{seat} answered hand 1 slot {slot} and was voted out by ")
    audit = audit_table(net.transcript(2))
    assert audit.status is AuditStatus.COMPLETE and audit.forfeits == (seat,) and "voted out" in (audit.note or "")


def test_vector_abandoned_table_digest():
    """docs/protocol.md, "Table test vector": the abandoned table of the first test above."""
    import hashlib

    net = stuck_table(3)
    abandon_all(net, present(net, 1))
    data = net.transcript(0)
    assert len(data) == 23282
    assert hashlib.sha256(data).hexdigest() == "a972bed5cd4c3d926b4f59a86aaac14e2372beb3b25af6570aee95b099a93b17"
    assert Abandon((2,), False).to_wire() == [[2], False]
    (event,) = net.of_type(0, HandAbandoned)
    assert event.slot == LEAD_SLOT + 1 and event.left == (3,)     # the slot abandoned, not the KEYS slot after it
    audit = audit_table(data)
    assert audit.status is AuditStatus.COMPLETE and audit.forfeits == (3,)
    assert audit.stops_at is None and audit.note.startswith(f"hand 1 was abandoned at slot {LEAD_SLOT + 1}: ")


def test_a_seat_that_withholds_its_key_after_a_played_out_hand_cannot_void_it():
    """A loser that withholds its key at the end of the hand: the present seats abandon the
    KEYS slot (their keys recorded with their abandon), its cards are the complement, and the hand is scored exactly as
    the withholding seat itself scored it (it holds every key)."""
    def withhold(sender, envelope):
        return [] if sender == 2 and decode_envelope(envelope).body.type == "deck/key" else None

    net = Net(seed=3, config=TWO, tamper=withhold)
    net.start()
    net.run()
    seat = net.peers[2].my_seat
    others = present(net, 2)
    assert all(net.peers[i].waiting_for == (seat,) for i in others)
    abandon_all(net, others, end=True)
    (own,) = net.of_type(2, HandEnded)           # the withholder's own view: every key
    for i in others:
        (event,) = net.of_type(i, HandAbandoned)
        assert event.scored and event.left == (seat,) and "played out and is scored" in event.reason
        (ended,) = net.of_type(i, HandEnded)
        assert ended.scores == own.scores and net.peers[i].finished and net.peers[i].blame is None
    audit = audit_table(net.transcript(others[0]))
    assert audit.status is AuditStatus.ABANDONED and audit.scores == (own.scores,) and audit.left == (seat,)


def test_a_seat_whose_key_never_left_goes_on_alone_and_stops_naming_nobody_at_the_next_deal():
    """The withholder completed the KEYS slot by itself (it holds every key) and started hand 2;
    the others abandoned that slot naming it and go on to hand 2 with a different chain. Their
    deal messages do not fit its chain: it stops naming nobody (rule 3), never blaming them."""
    def withhold(sender, envelope):
        body = decode_envelope(envelope).body
        return [] if sender == 2 and body.hand == 1 and body.type == "deck/key" else None

    net = Net(seed=3, config=TWO, tamper=withhold)
    net.start()
    net.run()
    others = present(net, 2)
    assert net.peers[2].hand_no == 2
    for i in others:
        assert net.peers[i].abandon(end=False)
    net.run()
    victim = net.peers[2]
    assert victim.blame is not None and victim.blame.seat is None and victim.blame.basis is BlameBasis.ABANDONED
    assert victim.blame.hand == 1
    # and the others drop its forked deal messages unblamed: they wait for it in hand 2's deal
    seat = victim.my_seat
    assert all(net.peers[i].blame is None and net.peers[i].hand_no == 2 and net.peers[i].waiting_for == (seat,)
               for i in others)
    abandon_all(net, others, end=False)   # and abandon that deal too: the match is over
    for i in others:
        first, second = net.of_type(i, HandAbandoned)
        assert first.scored and second.reason == f"stopped during the deal, waiting for S{seat}"
        assert net.peers[i].finished and net.peers[i].blame is None


def test_a_seat_silent_after_the_deal_forfeits_the_hand_no_free_re_deal():
    """Finding 2 of issue 18: going silent after seeing one's cards was a free re-deal (the hand
    void, the totals untouched). It is a forfeit: the silent seat scores the hand's largest loss
    (a lone red ten last after a Stop, -36), the others +12 each, and the audit is complete."""
    net = stuck_table(3)
    seat = net.peers[1].my_seat
    others = present(net, 1)
    abandon_all(net, others, end=False)
    row = tuple(-36 if s == seat else 12 for s in range(4))
    for i in others:
        (event,) = net.of_type(i, HandAbandoned)
        assert (event.left, event.forfeit, event.scored) == ((seat,), seat, True)
        assert net.of_type(i, MatchEnded)[-1].totals == row
    transcripts = {net.transcript(i) for i in others}
    assert len(transcripts) == 1
    audit = audit_table(transcripts.pop())
    assert audit.status is AuditStatus.COMPLETE and audit.blame is None
    assert audit.scores == (row,) and audit.totals == row and audit.forfeits == (seat,)
    from p2p_sasaki.cli.audit import as_json
    data = as_json(audit)
    assert data["status"] == "complete" and data["totals"] == list(row)
    assert data["hands"][0]["forfeit"] == seat and len(data["hands"][0]["cards"]) == 4


def test_a_refuser_with_an_accomplice_that_withholds_its_second_key_reveal_is_still_named():
    """Finding 3 of issue 18: the holder of the opening card declines to lead and withholds its
    key; an accomplice reveals its key, signs the abandon of that key slot, then withholds its
    key again. Its first reveal is recorded with its abandon and, with the two honest seats'
    keys, completes the deal: the refuser is named from its own signed decline, everywhere."""
    holder_index: dict[str, int] = {}

    def withhold(sender, envelope):
        body = decode_envelope(envelope).body
        if body.type != "deck/key" or "i" not in holder_index:
            return None
        refuser = holder_index["i"]
        if sender == refuser or (sender == (refuser + 1) % 4 and body.slot > LEAD_SLOT + 1):
            return []   # the refuser never reveals; the accomplice only in the first key slot
        return None

    net = Net(seed=6, config=ONE, tamper=withhold)
    card = net.peers[0].game.opening_card()
    assert card is not None
    for i, peer in enumerate(net.peers):
        original = peer._begin_game

        def refusing(peer=peer, original=original, i=i):
            mine = peer._my_cards
            if mine is not None and mine >> card & 1:
                holder_index["i"] = i
                peer._my_cards = mine & ~(1 << card)
            original()
            peer._my_cards = mine

        peer._begin_game = refusing
    net.start()
    net.run()
    refuser = holder_index["i"]
    holder = net.peers[refuser].my_seat
    accomplice = (refuser + 1) % 4
    honest = [i for i in range(4) if i not in (refuser, accomplice)]
    abandon_all(net, [*honest, accomplice])         # the key slot, naming the refuser
    for i in honest:                                 # a second key slot the accomplice withholds (if any)
        net.peers[i].abandon()
    net.run()
    for i in [*honest, accomplice]:
        blame = net.peers[i].blame
        assert blame is not None, (i, net.of_type(i, HandAbandoned))
        assert (blame.seat, blame.hand, blame.slot, blame.basis) == (holder, 1, LEAD_SLOT, BlameBasis.SIGNED)
        assert "declined" in blame.reason
    transcripts = {net.transcript(i) for i in honest}
    assert len(transcripts) == 1
    audit = audit_table(transcripts.pop())
    assert audit.status is AuditStatus.FAULT and (audit.blame.seat, audit.blame.slot) == (holder, LEAD_SLOT)


def test_an_abandon_that_cannot_reach_its_majority_says_why_and_what_can_be_done():
    """Finding 8: two of four seats awaited together cannot be abandoned by the other two;
    ``abandon`` signs nothing and ``why_no_abandon`` says why in one sentence."""
    def two_silent(sender, envelope):
        body = decode_envelope(envelope).body
        return [] if sender in (1, 2) and body.hand == 1 and body.slot >= LEAD_SLOT else None

    net = Net(seed=3, config=ONE, tamper=two_silent)
    net.start()
    net.run()
    silent = tuple(sorted(seat_of(net, i) for i in (1, 2)))
    for i in (0, 3):
        peer = net.peers[i]
        assert peer.waiting_for == silent
        assert not peer.abandon()
        reason = peer.why_no_abandon()
        assert reason is not None and "strict majority" in reason and "leave the table" in reason
        assert all(f"S{s}" in reason for s in silent)


def test_a_seat_that_answered_and_was_voted_out_by_three_says_so_in_its_own_audit():
    """Finding 7 of issue 18: three colluding seats abandon a window a fourth had answered (they
    claim it was silent: here its answer never reaches them). The protocol cannot overrule
    three signatures (docs/protocol.md, "What a colluding majority can do"), but the expelled
    seat's own transcript records its signed answer after their abandon, and its audit says it
    answered and was voted out, not that it left."""
    victim = 1
    window: list[int] = []

    def voted_out(sender, envelope):
        body = decode_envelope(envelope).body
        if sender == victim and not window and body.hand == 1 and body.slot > LEAD_SLOT \
                and body.type == "table/action" and body.payload.verb == "decline":
            window.append(body.slot)           # its answer to a window: the others never get it
        if sender == victim and window:
            return []
        if window and body.slot == window[0] and body.type == "table/action":   # nor it theirs
            return [(j, envelope) for j in range(4) if j not in (sender, victim)]
        return None

    net = Net(seed=3, config=ONE, tamper=voted_out)
    net.start()
    net.run()
    seat = net.peers[victim].my_seat
    others = present(net, victim)
    expelled = net.peers[victim]
    assert expelled.slot == net.peers[others[0]].slot and seat in net.peers[others[0]].waiting_for
    assert expelled.my_seat not in expelled.waiting_for          # it answered the window
    abandon_all(net, others)
    (event,) = net.of_type(victim, HandAbandoned)
    assert event.forfeit == seat and "left" not in event.reason
    assert f"S{seat} answered hand 1 slot {event.slot} and was voted out by" in event.reason
    audit = audit_table(net.transcript(victim))
    assert audit.blame is None and audit.forfeits == (seat,)
    assert audit.note is not None
    assert "answered" in audit.note and "voted out" in audit.note and " left" not in audit.note
    for i in others:   # the colluders' own transcripts hold no answer of it: they say it left
        (theirs,) = net.of_type(i, HandAbandoned)
        assert "left during hand 1" in theirs.reason
    assert len({net.transcript(i) for i in others}) == 1


def test_an_accomplice_that_reveals_its_key_but_never_signs_the_key_slots_abandon_keeps_the_table_waiting():
    """The limit docs/protocol.md states ("Not settled"): the opening card's holder declines
    and withholds its key; an accomplice reveals its key in that KEYS slot but never signs
    its abandon. The two honest seats' abandon cannot complete (the accomplice's signature is
    missing) and naming the accomplice too has no majority: the table waits for the refuser,
    nobody is blamed, and nothing of the KEYS slot is recorded."""
    holder_index: dict[str, int] = {}

    def withhold(sender, envelope):
        body = decode_envelope(envelope).body
        if "i" in holder_index and sender == holder_index["i"] and body.type == "deck/key":
            return []
        return None

    net = Net(seed=6, config=ONE, tamper=withhold)
    card = net.peers[0].game.opening_card()
    assert card is not None
    for i, peer in enumerate(net.peers):
        original = peer._begin_game

        def refusing(peer=peer, original=original, i=i):
            mine = peer._my_cards
            if mine is not None and mine >> card & 1:
                holder_index["i"] = i
                peer._my_cards = mine & ~(1 << card)
            original()
            peer._my_cards = mine

        peer._begin_game = refusing
    net.start()
    net.run()
    refuser = holder_index["i"]
    holder = seat_of(net, refuser)
    accomplice = (refuser + 1) % 4
    honest = [i for i in range(4) if i not in (refuser, accomplice)]
    before = {i: net.transcript(i) for i in honest}
    for i in honest:
        assert net.peers[i].waiting_for == (holder,)     # the accomplice's key is in
        assert net.peers[i].abandon()
    net.run()
    for i in honest:
        peer = net.peers[i]
        assert peer.blame is None and not peer.finished and peer.waiting_for == (holder,)
        assert net.of_type(i, HandAbandoned) == [] and net.transcript(i) == before[i]
        assert not peer.abandon()                         # it signed its one abandon of the slot
