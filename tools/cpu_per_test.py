"""A pytest plugin: CPU seconds per test and per file, the test process's own and its children's.

    PYTHONPATH=. python -m pytest -n 0 -p tools.cpu_per_test tests/cli -q
    CPU_PER_TEST_OUT=cpu.tsv PYTHONPATH=. python -m pytest -n 0 -p tools.cpu_per_test tests/cli

Each test's figure is the change of ``getrusage(RUSAGE_SELF)`` and ``getrusage(RUSAGE_CHILDREN)``
(user + system) over its setup, call and teardown, so a module- or session-scoped fixture counts
for the test that made it (or tore it down). Children count once they have been waited for (the
``sasaki`` processes the tests start, their proof workers, a browser). With ``-n 0`` it prints
the files sorted by CPU and the slowest tests at the end; with ``CPU_PER_TEST_OUT`` it also writes
one line per test (TSV: node id, wall, own CPU, children's CPU). Under pytest-xdist (the README's
run) nothing is printed, but each worker writes its own lines to ``CPU_PER_TEST_OUT.<worker>``
(``cat`` them together). POSIX only (the ``resource`` module).
"""

from __future__ import annotations

import os
import resource
import time
from collections import defaultdict
from collections.abc import Generator

import pytest

_rows: list[tuple[str, float, float, float]] = []


def _cpu(who: int) -> float:
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Generator[None, None, None]:
    wall, own, children = time.monotonic(), _cpu(resource.RUSAGE_SELF), _cpu(resource.RUSAGE_CHILDREN)
    yield
    _rows.append((item.nodeid, time.monotonic() - wall, _cpu(resource.RUSAGE_SELF) - own,
                  _cpu(resource.RUSAGE_CHILDREN) - children))


def pytest_sessionfinish(session: pytest.Session) -> None:
    """Under pytest-xdist a worker writes its own rows to ``CPU_PER_TEST_OUT.<worker>``."""
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    out = os.environ.get("CPU_PER_TEST_OUT")
    if worker and out:
        with open(f"{out}.{worker}", "w") as f:
            for nodeid, wall, own, children in _rows:
                f.write(f"{nodeid}\t{wall:.3f}\t{own:.3f}\t{children:.3f}\n")


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if not _rows:
        return
    files: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, 0.0, 0.0])
    for nodeid, wall, own, children in _rows:
        total = files[nodeid.split("::")[0]]
        total[0] += 1
        total[1] += wall
        total[2] += own
        total[3] += children
    write = terminalreporter.write_line
    write("")
    write(f"{'file':<48} {'tests':>5} {'wall':>7} {'own':>7} {'child':>7} {'cpu':>7}")
    for name, (count, wall, own, children) in sorted(files.items(), key=lambda kv: -(kv[1][2] + kv[1][3])):
        write(f"{name:<48} {int(count):>5} {wall:7.1f} {own:7.1f} {children:7.1f} {own + children:7.1f}")
    sums = [sum(column) for column in zip(*files.values(), strict=True)]
    write(f"{'total':<48} {int(sums[0]):>5} {sums[1]:7.1f} {sums[2]:7.1f} {sums[3]:7.1f} {sums[2] + sums[3]:7.1f}")
    write("")
    write("slowest tests by CPU (own + children):")
    for nodeid, wall, own, children in sorted(_rows, key=lambda row: -(row[2] + row[3]))[:25]:
        write(f"  {own + children:6.2f} cpu {wall:6.2f} wall  {nodeid}")
    out = os.environ.get("CPU_PER_TEST_OUT")
    if out:
        with open(out, "w") as f:
            for nodeid, wall, own, children in _rows:
                f.write(f"{nodeid}\t{wall:.3f}\t{own:.3f}\t{children:.3f}\n")
