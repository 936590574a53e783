"""The table session hands out its deck's proof work as pure jobs (take_jobs / finish_job),
and the whole-table audit checks a hand that reached its key slot from the keys, without
verifying any shuffle argument, and a stopped hand in live order, every argument included."""

from __future__ import annotations

import pytest

from p2p_sasaki.protocol import crypto
from p2p_sasaki.protocol.deck import DeckUsageError, ProveHop, VerifyHop, run_job
from p2p_sasaki.protocol.messages import decode_envelope
from p2p_sasaki.protocol.sasaki_game import SasakiGame
from p2p_sasaki.protocol.session import TableConfig, TableSession
from p2p_sasaki.protocol.table_audit import AuditStatus, audit_table, audit_transcript
from p2p_sasaki.protocol.transcript import KIND_ENVELOPE, encode_record, read_transcript, split_records
from p2p_sasaki.sasaki.options import TableOptions
from tests.protocol.table_helpers import Net

PROOFS = TableConfig(hands=1, game=SasakiGame(TableOptions(lead_card="3H")), proofs=True)


def jobs_instead_of_step(peer: TableSession, handed_out: list) -> None:
    """Replace ``peer.step`` by take_jobs + run_job + finish_job, results in reverse order."""

    def step() -> bool:
        jobs = peer.take_jobs()
        handed_out.extend(jobs)
        for job in reversed(jobs):
            peer.finish_job(job, run_job(job))
        return bool(jobs)

    peer.step = step


@pytest.fixture(scope="module")
def played():
    """The same seeded table twice: proof work by step(), and by jobs handed out."""
    by_step = Net(seed=4, config=PROOFS)
    by_step.start()
    by_step.run()
    by_jobs = Net(seed=4, config=PROOFS)
    handed_out: list = []
    for peer in by_jobs.peers:
        jobs_instead_of_step(peer, handed_out)
    by_jobs.start()
    by_jobs.run()
    return by_step, by_jobs, handed_out


def test_jobs_handed_out_give_the_transcript_step_gives(played):
    by_step, by_jobs, handed_out = played
    assert all(p.finished and p.blame is None for p in by_jobs.peers)
    # each seat proves its own hop and verifies the three others'
    assert sum(isinstance(j, ProveHop) for j in handed_out) == 4
    assert sum(isinstance(j, VerifyHop) for j in handed_out) == 12
    assert all(by_jobs.transcript(i) == by_jobs.transcript(0) for i in range(4))
    # the deal's records are byte-identical (the bots' plays may differ with the timing)
    assert deal_records(by_jobs.transcript(0)) == deal_records(by_step.transcript(0))
    assert len(deal_records(by_step.transcript(0))) == 4 + 4 + 4 + 4 + 3 * 4


def deal_records(data: bytes) -> list[bytes]:
    return [envelope for kind, envelope in split_records(data) if kind == KIND_ENVELOPE
            and decode_envelope(envelope).body.type in ("deck/commit", "deck/nonce", "deck/shuffle",
                                                        "deck/shuffle-proof", "deck/strip")]


def test_finish_job_takes_only_a_job_it_handed_out(played):
    by_step, _, handed_out = played
    with pytest.raises(DeckUsageError):
        by_step.peers[0].finish_job(handed_out[0], True)


def test_a_result_after_the_table_stopped_is_dropped():
    net = Net(seed=6, config=PROOFS)
    net.start()
    jobs: list = []
    while not jobs:  # deliver until some peer has proof work
        net.flush()
        sender, to, data = net.queue.pop(0)
        net.peers[to].receive(data, net.keys[sender].public_key)
        jobs = [(p, j) for p in net.peers for j in p.take_jobs()]
    peer, job = jobs[0]
    peer.finished = True  # as after a blame
    peer.take_outgoing()
    peer.finish_job(job, run_job(job))
    assert peer.take_outgoing() == [] and peer.take_jobs() == []
    with pytest.raises(DeckUsageError):  # once
        peer.finish_job(job, run_job(job))


class VerifyCounter:
    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.calls = 0
        real = crypto.shuffle_argument_verify

        def counting(*args, **kwargs):
            self.calls += 1
            return real(*args, **kwargs)

        monkeypatch.setattr(crypto, "shuffle_argument_verify", counting)


def test_a_hand_that_reached_its_key_slot_is_audited_from_the_keys(played, monkeypatch):
    data = played[0].transcript(0)
    counter = VerifyCounter(monkeypatch)
    audit = audit_table(data)
    assert audit.ok and audit.complete
    assert counter.calls == 0  # every hop checked from its key instead
    live = audit_transcript(read_transcript(data), from_keys=False)
    assert counter.calls == 4  # every argument, once
    assert (live.ok, live.hands, live.scores) == (True, audit.hands, audit.scores)


def test_a_stopped_hand_is_verified_in_live_order_with_its_arguments(played, monkeypatch):
    """A transcript that stops before its KEYS slot: no key, so the arguments are verified as
    the seats did; the file simply ends, so nobody is blamed (docs/protocol.md, "Audit verdicts")."""
    records = split_records(played[0].transcript(0))
    keys = [i for i, (kind, data) in enumerate(records)
            if kind == KIND_ENVELOPE and decode_envelope(data).body.type == "deck/key"]
    counter = VerifyCounter(monkeypatch)
    audit = audit_table(b"".join(encode_record(kind, data) for kind, data in records[:keys[0]]))
    assert counter.calls == 4  # no key for this hand: its arguments are verified as the seats did
    assert (audit.status, audit.blame, audit.complete) == (AuditStatus.INCOMPLETE, None, False)
    assert audit.stops_at is not None and (audit.stops_at.hand, audit.stops_at.record) == (1, keys[0])


def test_a_key_removed_from_the_middle_is_damage_verified_live(played, monkeypatch):
    """One key reveal deleted: the hand is verified live, every argument included, and the
    gap is damage to the file, never the silent seat's fault."""
    records = split_records(played[0].transcript(0))
    keys = [i for i, (kind, data) in enumerate(records)
            if kind == KIND_ENVELOPE and decode_envelope(data).body.type == "deck/key"]
    del records[keys[0]]
    counter = VerifyCounter(monkeypatch)
    audit = audit_table(b"".join(encode_record(kind, data) for kind, data in records))
    assert counter.calls == 4
    assert audit.status is AuditStatus.DAMAGED and audit.blame is not None and audit.blame.seat is None


def test_the_deal_progress_counts_checked_proofs_whatever_order_they_finish_in(played):
    """Proof checks finish in any order (here in reverse): the progress says how many are
    checked, 1, 2, 3, 4, so every peer's deal line ends at "4 of 4" (issue 20: some ended
    at "3 of 4 shuffle proofs checked", the hop number of the last check to finish)."""
    from p2p_sasaki.protocol.events import DealProgress

    _, by_jobs, _ = played
    for seat in range(4):
        proofs = [(e.done, e.total) for e in by_jobs.of_type(seat, DealProgress) if e.step == "proof"]
        assert proofs[:4] == [(1, 4), (2, 4), (3, 4), (4, 4)], (seat, proofs)
