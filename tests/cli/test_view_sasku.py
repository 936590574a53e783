"""``sasaki view`` of a Sasku transcript (cli/view.py, cli/view_sasku.py): every deal the
audit verifies is shown step by step, its cards face up, each action of the exported record
in order (the picture giving with its cards: the keys are revealed), who wins each trick,
each pair's points; a damaged copy says where it stops. The command itself runs in process:
it audits, serves the page on 127.0.0.1 (fetched once) and ends on Ctrl-C."""

from __future__ import annotations

import functools
import json
import re
from pathlib import Path
from typing import Any

import pytest
import trio

from p2p_sasaki.cli.main import main
from p2p_sasaki.cli.view import replay_steps
from p2p_sasaki.cli.web.server import PageServer
from p2p_sasaki.protocol.table_audit import audit_table, export_records
from tests.cli.test_web_server import http
from tests.protocol.table_helpers import Net
from tests.protocol.test_sasku_game import giving_bot, sasku_config

LINE = re.compile(r"S(\d) (\w+)(?: (\S+))?")
WORDS = {"bid": "bids", "pass": "passes", "diamonds": "calls diamonds", "give": "gives", "take": "takes it",
         "refuse": "refuses it", "return": "returns", "trump": "names trump", "play": "plays"}


@functools.cache
def transcript() -> bytes:
    """Two deals (seed 2: S3 gives QH, S1 refuses it), the tests' in-memory table."""
    net = Net(seed=2, config=sasku_config(hands=2, target=30, proofs=False), hostile=False, bot=giving_bot)
    net.start()
    net.run()
    return net.transcript(0)


def test_every_deal_is_replayed_action_by_action_with_its_cards_and_points():
    data = transcript()
    view = replay_steps(data)
    audit = audit_table(data)
    assert view.ok and view.title == "2 deal(s)"
    assert view.steps[-1].verdict and view.steps[-1].text.startswith("Audit: OK: 2 hand(s) verified")
    for deal, record in enumerate(export_records(data), 1):
        steps = [s for s in view.steps if s.hand_no == deal and not s.verdict]
        assert steps[0].text.startswith(f"Deal {deal} is dealt") and [len(c) for c in steps[0].cards] == [9] * 4
        actions = [m for line in record.splitlines() if (m := LINE.fullmatch(line))]
        assert len(steps) == 1 + len(actions)
        for step, action in zip(steps[1:], actions, strict=True):
            seat, verb, card = action[1], action[2], action[3]
            said = f"S{seat} {WORDS[verb]}" + (f" {card}" if card and verb in ("give", "return", "play") else "")
            assert step.text.startswith(said), (step.text, action[0])
        plays = sum(1 for a in actions if a[2] == "play")
        assert sum("wins the trick" in s.text for s in steps) == plays // 4 == 9
        assert [len(c) for c in steps[-1].cards] == [0] * 4 and steps[-1].next_text == "The deal is over."
        points = audit.scores[deal - 1]
        assert steps[-1].text.endswith(f"game points S0+S2 {points[0]}, S1+S3 {points[1]}.")
    give = next(s for s in view.steps if " gives " in s.text)
    assert give.text == "S3 gives QH to S1 (face down: only the pair saw it at the table)."
    assert give.next_text == "S1's turn to take or refuse the picture."
    refuse = view.steps[view.steps.index(give) + 1]
    assert refuse.text == "S1 refuses it: QH goes back to S3, face down." and "QH" in refuse.cards[3]


def test_a_damaged_sasku_transcript_shows_its_verified_deals_and_says_where_it_stops():
    data = transcript()
    cut = data[: len(data) * 3 // 4]
    view = replay_steps(cut)
    assert not view.ok
    assert {s.hand_no for s in view.steps[:-1]} == {1}
    assert re.search(r"The verified part ends before record \d+ \(hand 2\)", view.steps[-1].text), view.steps[-1].text


def test_the_view_command_audits_serves_the_replay_and_ends_on_ctrl_c(tmp_path: Path, monkeypatch, capsys):
    path = tmp_path / "peer0.sasaki"
    path.write_bytes(transcript())
    served: list[Any] = []
    real = PageServer.serve

    async def serve_once(self: PageServer, task_status: Any = trio.TASK_STATUS_IGNORED) -> None:
        async with trio.open_nursery() as nursery:
            url = await nursery.start(real, self)
            task_status.started(url)
            port = int(url.split(":")[2].split("/")[0])
            served.append(await http(port, url.split(str(port), 1)[1], {"Host": f"127.0.0.1:{port}"}))
            raise KeyboardInterrupt     # Ctrl-C

    monkeypatch.setattr(PageServer, "serve", serve_once)
    assert main(["view", str(path), "--no-browser"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("peer0.sasaki: Audit: OK: 2 hand(s) verified")
    assert out[1].startswith("The replay in the browser: http://127.0.0.1:") and out[-1] == "The replay page is closed."
    ((status, body),) = served
    assert status == 200
    page = body.decode()
    found = re.search(r'<script type="application/json" id="replay">(.*?)</script>', page, re.S)
    assert found is not None
    shown = json.loads(found[1])
    assert shown["title"] == "2 deal(s)" and shown["steps"][0]["text"].startswith("Deal 1 is dealt")


@pytest.mark.parametrize("argv", [["view", "no-such-file.sasaki", "--no-browser"]])
def test_a_missing_file_is_one_sentence(argv, capsys):
    assert main(argv) == 2
    assert capsys.readouterr().err.startswith("sasaki view: cannot read no-such-file.sasaki")
