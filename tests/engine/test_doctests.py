"""The examples in the engine's module docstrings run."""

import doctest
import importlib

import pytest

MODULES = ["cards", "sasaki.combos", "sasaki.options", "sasaki.scoring", "sasaki.hand", "sasaki.match",
           "sasaki.records", "sasaki.bots", "sasaki.search", "search"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(f"p2p_sasaki.{name}")
    result = doctest.testmod(module)
    assert result.failed == 0 and result.attempted > 0
