"""Sasku, the Estonian trick-taking game for two fixed pairs: its rules engine, records,
bots and duplicate-tournament scoring (../shared/sasku-rules.md; docs/rules-sasku.md).

Card notation is shared with Sasaki (``p2p_sasaki.cards``): Sasku plays the 36 cards
from 6 to A of the same 48-card index space.
"""
