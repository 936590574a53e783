"""``sasaki host --game sasku --pairs NAME+NAME`` (cli/pairs.py): the usage errors (status 2,
one sentence), the waiting room that keeps the chosen players' seats (protocol/handshake.py,
``JoinAdmissions.fits``), and a table whose partners were chosen by name: every joiner is
shown the seating before it signs GENESIS, all four sign the header that holds it, and the
named members sit opposite. In process: the command's parser and the drivers on the
in-memory network, in virtual time."""

from __future__ import annotations

import random
from typing import Any

import pytest
import trio

from p2p_sasaki.cli.games.sasku import partners_text
from p2p_sasaki.cli.main import main
from p2p_sasaki.cli.pairs import PairsError, check_known, seating_fits, with_pairs
from p2p_sasaki.cli.presenter import Presenter
from p2p_sasaki.protocol.crypto import SeededEntropy
from p2p_sasaki.protocol.handshake import Admit, CodeConfirmed, JoinAdmissions, Refuse
from p2p_sasaki.protocol.messages import TranscriptHeader
from p2p_sasaki.protocol.net import Identity, TableMember, TableRoster
from p2p_sasaki.protocol.net.match import decode_config, encode_config
from p2p_sasaki.protocol.net.memory import MemoryNetwork
from p2p_sasaki.protocol.net.table import BotPlayer, OptionsAgreed, run_table
from p2p_sasaki.protocol.sasku_game import SaskuGame, TableBot
from p2p_sasaki.protocol.session import Record, Seated, TableConfig, TableSession
from p2p_sasaki.protocol.table_audit import audit_table
from p2p_sasaki.protocol.transcript import split_records
from p2p_sasaki.sasku.bots import HeuristicBot
from p2p_sasaki.sasku.options import SaskuOptions

NAMES = ("Ana", "Leo", "Mina", "Jun")
IDENTITIES = [Identity.generate(SeededEntropy(b"pairs peer %d" % n)) for n in range(4)]
MEMBERS = tuple(TableMember(identity.public_key, "memory", n, bytes([n]) * 32, NAMES[n])
                for n, identity in enumerate(IDENTITIES))
ROSTER = TableRoster(bytes(range(32)), MEMBERS)


@pytest.mark.parametrize(("argv", "sentence"), [
    (["--game", "sasku", "--pairs", "Mina+Mina"],
     "argument --pairs: Mina is named twice: --pairs names two different players, like Mina+Jun"),
    (["--game", "sasku", "--pairs", "Mina"], "argument --pairs: 'Mina' is not two names joined by +, like Mina+Jun"),
    (["--game", "sasku", "--pairs", "Mina+Jun+Leo"],
     "argument --pairs: 'Mina+Jun+Leo' is not two names joined by +, like Mina+Jun"),
    (["--pairs", "Mina+Jun"],
     "sasaki: --pairs is for --game sasku (Sasaki has no partners): add --game sasku, or leave --pairs out."),
    (["--game", "sasku", "--bots", "3", "--pairs", "Mina+Jun"],
     "sasaki: --pairs Mina+Jun names Mina and Jun, who are not at this table (Ana, Bot 2, Bot 3, Bot 4)."),
    (["--game", "sasku", "--bots", "2", "--pairs", "Mina+Jun"],
     "sasaki: --pairs Mina+Jun names Mina and Jun, who are not at this table (Ana, Bot 2, Bot 3 and 1 player(s) "
     "to join)."),
])
def test_a_wrong_pairs_option_is_one_sentence_and_status_2(tmp_path, capsys, argv, sentence):
    with pytest.raises(SystemExit) as exited:
        status = main(["host", "--bot", "--name", "Ana", "--data-dir", str(tmp_path), "--no-mdns", *argv])
        raise SystemExit(status)
    assert exited.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].endswith(sentence), err
    assert not (tmp_path / "transcripts").exists() or not any((tmp_path / "transcripts").iterdir())


def test_the_named_players_may_be_the_creator_and_its_bots():
    check_known(("Ana", "Bot 3"), ["Ana", "Bot 2", "Bot 3", "Bot 4"], 0)
    check_known(("Mina", "Jun"), ["Ana"], 3)
    with pytest.raises(PairsError, match="cannot tell apart the players called Ana"):
        check_known(("Ana", "Jun"), ["Ana", "Ana"], 2)


def _confirmed(n: int, name: str) -> CodeConfirmed:
    return CodeConfirmed(TableMember(bytes([n]) * 32, "", 6000 + n, bytes([n]) * 32, name))


def test_the_waiting_room_keeps_a_seat_for_each_chosen_player_and_refuses_a_second_of_a_name():
    creator = TableMember(bytes([9]) * 32, "", 5000, bytes(32), "Ana")
    book = JoinAdmissions(bytes(32), creator, seats=4, fits=seating_fits(("Mina", "Jun")))
    assert isinstance(book.decide(_confirmed(1, "Leo"), "10.0.0.1"), Admit)
    refused = book.decide(_confirmed(2, "Bo"), "10.0.0.2")
    assert refused == Refuse("refused", "the creator keeps seats for Mina and Jun, chosen as partners "
                                        "(--pairs Mina+Jun)")
    assert isinstance(book.decide(_confirmed(3, "Jun"), "10.0.0.3"), Admit)
    assert book.decide(_confirmed(4, "Jun"), "10.0.0.4") == Refuse(
        "refused", "two players would be called Jun, whom the creator chose as a partner by name "
                   "(--pairs Mina+Jun): choose another name to join")
    assert book.decide(_confirmed(5, "Bo"), "10.0.0.5") == Refuse(
        "refused", "the creator keeps a seat for Mina, chosen as partners (--pairs Mina+Jun)")
    assert book.seats_taken == 3 and book.closed is None     # a refused joiner takes no seat
    assert isinstance(book.decide(_confirmed(6, "Mina"), "10.0.0.6"), Admit)
    assert book.closed == "table-full"
    config = with_pairs(TableConfig(hands=1, game=SaskuGame(SaskuOptions(target=3))), book.roster.members,
                        ("Mina", "Jun"))
    assert config.game.pairs == (2, 3) and config.game.options_bytes() == b"min-bid=5;target=3;pairs=2+3"


def test_pairs_name_members_by_their_roster_names():
    config = TableConfig(hands=1, game=SaskuGame(SaskuOptions(target=3)))
    assert with_pairs(config, MEMBERS, ("Jun", "Ana")).game.pairs == (0, 3)
    with pytest.raises(PairsError, match=r"names Bo, who is not at this table \(Ana, Leo, Mina, Jun\)"):
        with_pairs(config, MEMBERS, ("Bo", "Ana"))
    assert partners_text(SaskuGame(pairs=(0, 3)), NAMES) == (
        "Partners chosen by the creator: Ana and Jun sit opposite each other, against Leo and Mina; starting the "
        "table signs this seating.")
    assert partners_text(SaskuGame(), NAMES) is None


async def test_every_member_sees_the_chosen_partners_before_it_signs_and_all_four_sign_them(autojump_clock):
    config = with_pairs(TableConfig(hands=1, game=SaskuGame(SaskuOptions(target=30)), proofs=False), MEMBERS,
                        ("Ana", "Mina"))
    network = MemoryNetwork([m.key for m in MEMBERS])
    events: list[list[Any]] = [[] for _ in range(4)]
    presenters = [Presenter(person=False) for _ in range(4)]
    told: list[list[str]] = [[] for _ in range(4)]
    for presenter, notes in zip(presenters, told, strict=True):
        presenter.on_note.append(lambda note, notes=notes: notes.append(note.text))  # type: ignore[misc]
    results: list[Any] = [None] * 4

    def session_factory(n: int) -> Any:
        def make(identity: Identity, roster: TableRoster, config: Any) -> TableSession:
            return TableSession(identity, roster.keys, roster.table_id, config, rng=SeededEntropy(b"pairs %d" % n),
                                roster_names=roster.names)
        return make

    async def peer(n: int) -> None:
        def on_event(event: Any, session: Any) -> None:
            events[n].append(event)
            presenters[n].event(event, session)

        transport = network.transport(MEMBERS[n].key)
        async with trio.open_nursery() as links:
            await links.start(transport.run)
            results[n] = await run_table(
                IDENTITIES[n], ROSTER, config if n == 0 else None,
                player=BotPlayer(TableBot(HeuristicBot(random.Random(n)))), transcript_path=None,
                on_event=on_event, config_codec=(encode_config, decode_config), transport=transport,
                transport_running=True, session_factory=session_factory(n), step_in_thread=False)
            transport.close()
            links.cancel_scope.cancel()

    with trio.fail_after(3600):
        async with trio.open_nursery() as nursery:
            for n in range(4):
                nursery.start_soon(peer, n)
    seen = ("Partners chosen by the creator: Ana and Mina sit opposite each other, against Leo and Jun; starting "
            "the table signs this seating.")
    for n in range(4):
        kinds = [type(e) for e in events[n]]
        agreed = kinds.index(OptionsAgreed)
        assert agreed < kinds.index(Record)     # shown before its GENESIS signature
        assert events[n][agreed].config.game.pairs == (0, 2) and results[n].config == config
        assert told[n][:2] == ["Connected to the other three players; drawing seats.", seen]
    transcripts = {b"".join(e.data for e in events[n] if isinstance(e, Record)) for n in range(4)}
    assert len(transcripts) == 1
    transcript = transcripts.pop()
    header = TranscriptHeader.decode(split_records(transcript)[0][1])
    assert header.game_options == b"min-bid=5;target=30;pairs=0+2"
    audit = audit_table(transcript)
    assert audit.ok and audit.complete     # GENESIS: every member's signature over this header
    seats = {n: next(e.my_seat for e in events[n] if isinstance(e, Seated)) or 0 for n in range(4)}
    assert (seats[0] - seats[2]) % 4 == 2 and (seats[1] - seats[3]) % 4 == 2
    # The header every member signed holds the seating: another pairing is another table.
    altered = transcript.replace(b"pairs=0+2", b"pairs=0+1", 1)
    tampered = audit_table(altered)
    assert (tampered.ok, str(tampered.status.value), tampered.blame.seat, tampered.blame.hand) == (
        False, "damaged", None, 0), tampered
