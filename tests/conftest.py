"""The tests import the installed ``p2p_sasaki`` package, never the source folders.

The repository root goes at the *end* of ``sys.path`` so that the tests' own helper modules
(``tests.protocol.helpers`` and so on) can be imported, while ``p2p_sasaki`` (with its
subpackages ``p2p_sasaki.protocol`` and ``p2p_sasaki.cli``) still comes from site-packages.
"""

import sys
from pathlib import Path

ROOT = str(Path(__file__).resolve().parent.parent)
if ROOT not in sys.path:
    sys.path.append(ROOT)
