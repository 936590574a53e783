"""The command line's glue for a bot in the empty seat (cli/botseat.py, cli/matches.py's host,
with protocol/net/match.py's ``play_match(..., replaced=...)``), in virtual time on the
in-memory network: the agreement itself is tested beside the driver, tests/net/test_bot_seat.py."""

from __future__ import annotations

import random
from typing import Any

import trio

from p2p_sasaki.cli.main import main
from p2p_sasaki.protocol.net.match import decode_config, encode_config
from p2p_sasaki.protocol.net.memory import MemoryNetwork
from p2p_sasaki.protocol.net.table import BOT, END, BotPlayer, Stalled, run_table
from p2p_sasaki.sasaki.bots import HeuristicBot
from tests.net.test_bot_seat import CONFIG, IDENTITIES, KEYS, PRESENT, ROSTER, VICTIM, killer


class Person(BotPlayer):
    """What cli/botseat.py takes for a person (it has ``decide_next``) who presses ``b``."""

    async def stalled(self, stall: Stalled) -> str:
        return BOT if stall.bot_seat else END

    async def decide_next(self, seconds: float) -> bool:
        return False


async def test_the_cli_glue_writes_the_new_table_and_the_bots_transcript_which_audit_as_linked(
        autojump_clock, tmp_path, capsys, monkeypatch, no_fsync):
    """cli/botseat.py, the command line's host and ``play_match(..., replaced=...)``: stores, files on
    disk, the bot's copy."""
    import argparse
    import functools

    from p2p_sasaki.cli.botseat import agree_bot_seat
    from p2p_sasaki.cli.matches import CommandLineHost
    from p2p_sasaki.protocol.net import botseat, match
    from p2p_sasaki.protocol.net.match import MatchOptions, play_match

    for module in (match, botseat):   # virtual time: the crypto on the trio thread
        monkeypatch.setattr(module, "run_table", functools.partial(run_table, step_in_thread=False))

    network = MemoryNetwork(KEYS)
    files: dict[int, Any] = {}

    def args(n: int) -> argparse.Namespace:
        return argparse.Namespace(data_dir=tmp_path / f"data{n}", transcript=str(tmp_path / f"peer{n}.sasaki"),
                                  deal_seed=7, proof_workers=0, connect_timeout=60.0, quiet=True, bot=False)

    def options(n: int) -> MatchOptions:
        return MatchOptions(data_dir=tmp_path / f"data{n}", transcript=tmp_path / f"peer{n}.sasaki", deal_seed=7)

    async def run(n: int) -> None:
        transport = network.transport(KEYS[n])
        async with trio.open_nursery() as links:
            await links.start(transport.run)
            if n == VICTIM:
                scope = trio.CancelScope()
                with scope:
                    await run_table(IDENTITIES[n], ROSTER, None, player=BotPlayer(HeuristicBot(random.Random(n))),
                                    transcript_path=None, config_codec=(encode_config, decode_config),
                                    transport=transport, transport_running=True, step_in_thread=False,
                                    crash_point=killer(network, scope))
            else:
                player = Person(HeuristicBot(random.Random(n)))
                host = CommandLineHost(args(n), player, None)
                old = await play_match(IDENTITIES[n], ROSTER, transport, CONFIG if n == 0 else None, player, host,
                                       options(n))
                agreed = await agree_bot_seat(args(n), IDENTITIES[n], ROSTER, transport, old, player, None)
                assert agreed is not None and agreed.roster is not None
                new = await play_match(IDENTITIES[n], agreed.roster, transport, agreed.config, player, host,
                                       options(n), None, match_no=2, replaced=agreed)
                files[n] = (old.transcript, new.transcript, agreed.bot is not None)
            transport.close()
            links.cancel_scope.cancel()

    with trio.fail_after(3600):
        async with trio.open_nursery() as nursery:
            for n in range(4):
                nursery.start_soon(run, n)
    assert sorted(files) == PRESENT and sum(runs for _, _, runs in files.values()) == 1
    for n, (old_path, new_path, runs) in files.items():
        assert old_path == tmp_path / f"peer{n}.sasaki" and new_path == tmp_path / f"peer{n}-2.sasaki"
        assert (tmp_path / f"peer{n}-2-bot.sasaki").exists() == runs
    copies = {path.read_bytes() for path in tmp_path.glob("peer*-2*.sasaki")}
    assert len(copies) == 1 and len(list(tmp_path.glob("peer*-2*.sasaki"))) == 4
    out = capsys.readouterr().out
    assert "Everyone agreed: a bot takes S" in out and "(you run it; its hand is open to all)" in out
    n = PRESENT[0]
    assert main(["audit", str(tmp_path / f"peer{n}-2.sasaki"), "--follows", str(tmp_path / f"peer{n}.sasaki")]) == 0
    assert "It follows" in capsys.readouterr().out
