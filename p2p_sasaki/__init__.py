"""Sasaki (44A), the Korean climbing card game: a pure rules engine.

No I/O, no clock, no randomness of its own: every random choice takes an
``random.Random`` (or compatible) passed in by the caller.
"""
