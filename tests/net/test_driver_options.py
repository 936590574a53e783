"""run_table's typed options (protocol/net/table.py, ``DriverOptions``): the keywords its
callers name one by one are its fields, over the options given; anything else is refused
before the table starts. Whole tables run with them in tests/net/test_match.py."""

from __future__ import annotations

import dataclasses
import random

import pytest

from p2p_sasaki.protocol.net.table import BotPlayer, DriverOptions, run_table
from p2p_sasaki.sasaki.bots import HeuristicBot
from tests.net.test_next_match import IDENTITIES, ROSTER


def test_the_options_default_to_what_run_table_did_without_them() -> None:
    options = DriverOptions()
    assert (options.connect_timeout, options.linger, options.stall_after) == (60.0, 1.5, 3.0)
    assert options.step_in_thread and options.resend and not options.resume and not options.transport_running
    assert options.transport is None and options.store is None and options.early_frames == ()
    with pytest.raises(dataclasses.FrozenInstanceError):
        options.linger = 2.0  # type: ignore[misc]


async def test_a_keyword_that_is_no_option_is_refused_before_the_table_starts() -> None:
    player = BotPlayer(HeuristicBot(random.Random(0)))
    with pytest.raises(TypeError, match="no_such_option"):
        await run_table(IDENTITIES[0], ROSTER, None, DriverOptions(linger=1.0), player=player, transcript_path=None,
                        no_such_option=True)
