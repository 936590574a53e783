"""The examples in protocol/net docstrings (and the net section of messages.py) run."""

from __future__ import annotations

import doctest

import pytest

from p2p_sasaki.protocol.messages import wire as messages
from p2p_sasaki.protocol.net import framing, join, memory, transport


@pytest.mark.parametrize("module", [framing, join, memory, messages, transport], ids=lambda m: m.__name__)
def test_docstring_examples(module):
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0
