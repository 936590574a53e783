"""``sasaki simulate --game sasku``: bots play Sasku deals between two pairs."""

from __future__ import annotations

import argparse


def run(args: argparse.Namespace) -> int:
    print("sasaki simulate: Sasku is not playable yet.")
    return 2
