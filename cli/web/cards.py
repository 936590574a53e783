"""Card faces as SVG, drawn here (no image assets): rank and suit in two corners, a
large pip in the middle; hearts and diamonds red.

>>> face("TH").startswith('<svg')
True
>>> "10" in face("TH") and "\u2665" in face("TH")
True
"""

from __future__ import annotations

from p2p_sasaki.cards import FULL_DECK, CardSet

__all__ = ["face", "faces", "back"]

_RANKS = {"T": "10"}
_SUITS = {"C": "\u2663", "D": "\u2666", "H": "\u2665", "S": "\u2660"}
_RED = "#c8102e"
_BLACK = "#1b1b1f"


def face(code: str) -> str:
    """The SVG face of the card ``code`` (``TH``, ``4S``)."""
    rank, suit = code[0], code[1]
    shown = _RANKS.get(rank, rank)
    pip = _SUITS[suit]
    colour = _RED if suit in "HD" else _BLACK
    corner = (f'<text x="7" y="20" font-size="17" font-weight="700" font-family="Georgia,serif">{shown}</text>'
              f'<text x="7" y="36" font-size="15">{pip}</text>')
    court = ""
    if rank in "JQKA":
        court = (f'<rect x="15" y="22" width="42" height="56" rx="4" fill="none" stroke="{colour}" '
                 f'stroke-opacity=".35"/>')
    return ('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 72 100" aria-hidden="true" focusable="false">'
            '<rect x="1" y="1" width="70" height="98" rx="7" fill="#fffdf7" stroke="#8a8578" stroke-width="1.5"/>'
            f'<g fill="{colour}">{court}{corner}'
            f'<g transform="rotate(180 36 50)">{corner}</g>'
            f'<text x="36" y="63" font-size="{34 if rank not in "JQK" else 26}" text-anchor="middle">'
            f'{pip if rank not in "JQK" else shown + pip}</text></g></svg>')


def back() -> str:
    """A card's back (other players' hands)."""
    return ('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 72 100" aria-hidden="true" focusable="false">'
            '<rect x="1" y="1" width="70" height="98" rx="7" fill="#24406e" stroke="#e9e4d4" stroke-width="2"/>'
            '<rect x="7" y="7" width="58" height="86" rx="4" fill="none" stroke="#e9e4d4" stroke-opacity=".6"/>'
            '<path d="M36 20 L56 50 L36 80 L16 50 Z" fill="#e9e4d4" fill-opacity=".25"/></svg>')


def faces() -> dict[str, str]:
    """Every card's face, by its code."""
    return {str(card): face(str(card)) for card in CardSet(FULL_DECK)}
