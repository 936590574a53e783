"""The tests import the installed ``p2p_sasaki`` package, never the source folders.

The repository root goes at the *end* of ``sys.path`` so that the tests' own helper modules
(``tests.protocol.helpers`` and so on) can be imported, while ``p2p_sasaki`` (with its
subpackages ``p2p_sasaki.protocol`` and ``p2p_sasaki.cli``) still comes from site-packages.
"""

import os
import sys
import tempfile
from collections.abc import Generator
from pathlib import Path

import pytest

ROOT = str(Path(__file__).resolve().parent.parent)
if ROOT not in sys.path:
    sys.path.append(ROOT)

# The processes the tests start (``sasaki`` peers, their proof workers, scenario scripts; a few
# hundred in a whole run) each import trio, cryptography, zeroconf and the package: about a
# second of CPU each, a quarter of it compiling the package's sources when no bytecode may be
# written (PYTHONDONTWRITEBYTECODE, as on some developer machines and CI). They inherit this
# environment: bytecode is kept in a cache of this user's outside the source tree, so each
# module is compiled once, not once per process.
os.environ["PYTHONPYCACHEPREFIX"] = os.path.join(tempfile.gettempdir(), f"p2p-sasaki-pycache-{os.getuid()}"
                                                 if hasattr(os, "getuid") else "p2p-sasaki-pycache")
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)


# The tests that start `sasaki` processes (four peers, pty sessions, a browser, namespaces):
# each module is in one of two xdist groups (pyproject.toml: `--dist loadgroup`), so
# that at most two of them run at once and their processes start within the tests' deadlines
# on a busy two-core machine, while the in-process tests fill the other workers. A group also
# keeps a module's shared fixture on one worker, made once: the session's full-proof demo
# (tests/cli/conftest.py, used by test_audit_export.py, test_table_processes.py and test_view.py,
# all three in "processes-2": in groups of their own, two workers could each run the demo)
# and test_mdns_commands.py's table scenario.
PROCESS_GROUPS = {
    "tests/cli/test_mdns_commands.py": "processes-1",
    "tests/cli/test_calm_terminal.py": "processes-1",
    "tests/cli/test_human_terminal.py": "processes-1",
    "tests/cli/test_disk.py": "processes-1",
    "tests/net/test_mdns_namespace.py": "processes-1",
    "tests/cli/test_resume_processes.py": "processes-2",
    "tests/cli/test_web_table.py": "processes-2",
    "tests/cli/test_table_processes.py": "processes-2",
    "tests/cli/test_audit_export.py": "processes-2",
    "tests/cli/test_view.py": "processes-2",
    "tests/cli/test_exits.py": "processes-1",
    "tests/cli/test_abandon_processes.py": "processes-2",
    # its module's Sasku demo (four processes, a match to 4) made once, on one worker
    "tests/cli/test_sasku_demo.py": "processes-2",
}


@pytest.hookimpl(tryfirst=True)   # before pytest-xdist reads the marks
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        group = PROCESS_GROUPS.get(item.path.relative_to(config.rootpath).as_posix())
        if group is not None:
            item.add_marker(pytest.mark.xdist_group(group))


@pytest.hookimpl(optionalhook=True, wrapper=True)
def pytest_xdist_auto_num_workers(config: pytest.Config) -> Generator[None, int, int]:
    """``-n auto`` (pyproject.toml's addopts), around pytest-xdist's count of the cores: the
    fast tier (``-m "not slow"``) computes, so one worker a core; a run with the slow tests
    spends most of its time waiting (processes, sockets, namespaces, a browser), so two a core,
    which on two cores took the whole suite from about 6.5 to about 3.5 minutes for the same
    CPU. ``PYTEST_XDIST_AUTO_NUM_WORKERS``, where it is set, is taken as it is."""
    cores = yield
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS") or "not slow" in (config.getoption("markexpr") or ""):
        return cores
    return 2 * cores


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_node_collection_finished(node: object, ids: list[str]) -> None:
    """The run stops if pytest-xdist did not put the groups above on the test ids: ungrouped,
    two workers would each make a shared fixture and run process tests side by side, and
    nothing would say so (pytest 9.2 with pytest-xdist 3.8, pytest-dev/pytest-xdist#1386)."""
    ungrouped = [nodeid for nodeid in ids if nodeid.split("::")[0] in PROCESS_GROUPS and "@" not in nodeid]
    if ungrouped:
        pytest.exit(f"pytest-xdist did not group {ungrouped[0]}: this pytest and pytest-xdist do not work "
                    "together for --dist loadgroup (pyproject.toml pins pytest below 9.2)", returncode=4)


@pytest.fixture(autouse=True)
def own_data_dir(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test (and every ``sasaki`` process it starts, which inherits the environment)
    keeps identities and unfinished tables in a data directory of its own, never the user's:
    tests run side by side (pytest-xdist), and one test's unfinished table must not be
    resumed by another's process."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path_factory.mktemp("data-home")))


@pytest.fixture
def no_fsync(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """In-process drivers write their stores and transcripts as usual, but ``os.fsync`` only
    records its file descriptor: a "crash" in these tests is a cancelled task in a live
    process, which reads back what it wrote whether or not it reached the platter, so the
    thousand fsyncs of a match (each a wait on a disk shared with the whole machine) change
    nothing they assert. That records reach the disk before the next frame is sent is
    tested with real fsyncs in tests/net/test_table_driver.py."""
    calls: list[int] = []
    monkeypatch.setattr(os, "fsync", calls.append)
    return calls
