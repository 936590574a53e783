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
import trio.testing

from p2p_sasaki.cli.games.sasku import partners_text
from p2p_sasaki.cli.host import choose_partners
from p2p_sasaki.cli.main import main
from p2p_sasaki.cli.pairs import PairsError, WaitingRoomPairs, check_known, seating_fits, with_pairs
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


def _member(n: int, name: str) -> TableMember:
    return TableMember(bytes([n]) * 32, "", 6000 + n, bytes([n]) * 32, name)


def test_the_creator_chooses_partners_in_the_waiting_room_while_seats_allow_and_not_once_full():
    room = WaitingRoomPairs(None, "Ana")
    assert room.fits((_member(9, "Ana"), _member(1, "Bo")), 4) is None          # the draw: anyone sits
    room.joined(_member(1, "Leo"))
    room.joined(_member(2, "Bo"))
    assert room.typed("partners Mina+Jun") == (
        "--pairs Mina+Jun names Mina and Jun, who are not at this table (Ana, Leo, Bo and 1 player(s) to join).")
    assert room.choice is None
    assert room.typed("partners Leo+Jun") == "Partners chosen: Leo and Jun (their seats are kept for them)."
    assert room.fits((_member(9, "Ana"), _member(1, "Leo"), _member(2, "Bo"), _member(3, "Kim")), 4) == (
        "the creator keeps a seat for Jun, chosen as partners (--pairs Leo+Jun)")
    room.left(_member(2, "Bo"))
    assert room.names == ["Ana", "Leo"]
    room.joined(_member(3, "Jun"))
    room.joined(_member(4, "Kim"))
    room.full()
    assert room.typed("partners draw") == "The table is full: its seating is fixed." and room.choice == ("Leo", "Jun")


async def test_what_the_creator_types_in_the_waiting_room_is_read_until_the_table_fills(capsys):
    room = WaitingRoomPairs(None, "Ana")
    send, receive = trio.open_memory_channel[str | None](10)

    class Reader:
        async def line(self) -> str | None:
            return await receive.receive()

    scope = trio.CancelScope()
    async with trio.open_nursery() as nursery:
        nursery.start_soon(choose_partners, room, Reader(), scope)
        for line in ("partners Mina+Jun\n", "\n", "partners Mina\n"):
            await send.send(line)
        await trio.testing.wait_all_tasks_blocked()
        scope.cancel()                 # the table is full: the waiting room's reading ends
    await send.send("a line for the table\n")
    assert receive.receive_nowait() == "a line for the table\n"     # not taken by the waiting room
    assert room.choice == ("Mina", "Jun")
    assert capsys.readouterr().out.splitlines() == [
        "Partners chosen: Mina and Jun (their seats are kept for them).",
        "'Mina' is not two names joined by +, like Mina+Jun."]


async def test_the_creators_page_chooses_partners_in_the_waiting_room():
    from p2p_sasaki.cli.web.server import WebTable
    from tests.cli.test_web_server import Socket, http

    presenter = Presenter(timeout=100, game="sasku")
    room = WaitingRoomPairs(None, "Ana")
    room.joined(_member(1, "Leo"))
    presenter.partners_room = room
    web = WebTable(presenter)
    async with trio.open_nursery() as nursery:
        await nursery.start(web.serve)
        status, body = await http(web.port, f"/t/{web.token}/", {"Host": f"127.0.0.1:{web.port}"})
        html = body.decode()
        assert status == 200 and '<button id="choose" type="button">Choose partners</button>' in html
        assert '<button id="draw" type="button">Draw the pairs</button>' in html
        socket = await Socket.open(web.port, f"/t/{web.token}/ws")
        assert (await socket.receive())["table"]["partners"] == "draw"
        await socket.send({"type": "partners", "names": "Leo+Mina"})
        message = await socket.receive()
        while message["table"]["partners"] != "Leo+Mina":
            message = await socket.receive()
        assert room.choice == ("Leo", "Mina")
        assert message["table"]["log"][-1]["text"] == "Partners chosen: Leo and Mina (their seats are kept for them)."
        await socket.send({"type": "partners", "names": "Leo+Leo"})
        await trio.testing.wait_all_tasks_blocked()
        assert room.choice == ("Leo", "Mina") and presenter.log[-1].text.startswith("Leo is named twice")
        room.full()
        presenter.changed()
        message = await socket.receive()
        while message.get("table", {}).get("partners", "") is not None:
            message = await socket.receive()
        await socket.send({"type": "partners", "names": "draw"})
        message = await socket.receive()
        while message["type"] != "refused":
            message = await socket.receive()
        assert message["reason"] == "partners are chosen by the table's creator, while the table fills"
        assert room.choice == ("Leo", "Mina")
        nursery.cancel_scope.cancel()


@pytest.mark.slow
def test_in_chromium_the_creator_types_partners_and_chooses_them():
    import queue
    import threading

    from playwright.sync_api import sync_playwright

    from p2p_sasaki.cli.web.server import WebTable
    from tests.cli.web_player import CHROMIUM

    presenter = Presenter(timeout=100, game="sasku")
    room = WaitingRoomPairs(None, "Ana")
    room.joined(_member(1, "Leo"))
    presenter.partners_room = room
    urls: queue.Queue[str] = queue.Queue()
    done = threading.Event()

    def serve() -> None:
        async def main() -> None:
            async with trio.open_nursery() as nursery:
                urls.put(await nursery.start(WebTable(presenter).serve))
                while not done.is_set():
                    await trio.sleep(0.05)
                nursery.cancel_scope.cancel()
        trio.run(main)

    thread = threading.Thread(target=serve)
    thread.start()
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM)
            page = browser.new_page()
            page.goto(urls.get(timeout=30))
            page.get_by_text("The seating draw decides the pairs.").wait_for()
            page.get_by_label("Partners (two names, like Mina+Jun)").fill("Leo+Mina")
            page.get_by_role("button", name="Choose partners", exact=True).click()
            page.get_by_text("Partners chosen: Leo and Mina.").wait_for()
            page.get_by_role("button", name="Draw the pairs", exact=True).click()
            page.get_by_text("The seating draw decides the pairs.").wait_for()
            browser.close()
    finally:
        done.set()
        thread.join(timeout=30)
    assert room.choice is None
