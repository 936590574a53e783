"""The examples in protocol/net docstrings (and in protocol/messages: the wire kit, names, handshakes) run."""

from __future__ import annotations

import doctest

import pytest

from p2p_sasaki.protocol.messages import handshake, names, wire
from p2p_sasaki.protocol.net import asking, framing, join, memory, transport


@pytest.mark.parametrize("module", [asking, framing, join, memory, handshake, names, wire, transport],
                         ids=lambda m: m.__name__)
def test_docstring_examples(module):
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0
