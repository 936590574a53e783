"""The tests import the installed ``p2p_sasaki`` package, never the source folders.

The repository root goes at the *end* of ``sys.path`` so that the tests' own helper modules
(``tests.protocol.helpers`` and so on) can be imported, while ``p2p_sasaki`` (with its
subpackages ``p2p_sasaki.protocol`` and ``p2p_sasaki.cli``) still comes from site-packages.
"""

import sys
from pathlib import Path

import pytest

ROOT = str(Path(__file__).resolve().parent.parent)
if ROOT not in sys.path:
    sys.path.append(ROOT)


@pytest.fixture(autouse=True)
def own_data_dir(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test (and every ``sasaki`` process it starts, which inherits the environment)
    keeps identities and unfinished tables in a data directory of its own, never the user's:
    tests run side by side (pytest-xdist), and one test's unfinished table must not be
    resumed by another's process."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path_factory.mktemp("data-home")))
