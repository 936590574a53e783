"""Sasaki (44A), the Korean climbing game: its rules engine, records and bots.

The game is chosen by name (``p2p_sasaki.games``); what both games share (card notation)
lives one level up, in ``p2p_sasaki``.
"""
