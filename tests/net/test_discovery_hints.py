"""protocol/net/discovery.py: the TXT hints of a table record (no network: the records are
built and parsed in memory). ``m`` is the creator's name, ``f=1`` a full or started table."""

from __future__ import annotations

from zeroconf import ServiceInfo

from p2p_sasaki.protocol.net.discovery import SERVICE_TYPE, _parse, _txt
from p2p_sasaki.protocol.net.identity import PROTOCOL_VERSION


def record(properties: dict[str, str]) -> ServiceInfo:
    return ServiceInfo(SERVICE_TYPE, f"19-abc123.{SERVICE_TYPE}", port=4000, properties=properties,
                       server="sasaki-19-abc123.local.", parsed_addresses=["10.0.0.5"])


def test_the_creator_name_and_the_full_flag_travel_as_hints():
    assert _txt("19", 2, 4000, "Mina") == {"v": str(PROTOCOL_VERSION), "n": "19", "s": "2", "p": "4000", "m": "Mina"}
    assert _txt("19", 4, 4000, "Mina", full=True)["f"] == "1"
    assert "m" not in _txt("19", 1, 4000) and "f" not in _txt("19", 1, 4000)
    ad = _parse(record(_txt("19", 4, 4000, "Ünal", full=True)))
    assert ad is not None and (ad.name, ad.nameplate, ad.creator, ad.full, ad.seats_taken) == \
        ("19-abc123", "19", "Ünal", True, 4)
    ad = _parse(record(_txt("19", 2, 4000)))
    assert ad is not None and (ad.creator, ad.full) == (None, False)


def test_a_malformed_creator_name_is_dropped_not_shown():
    """mDNS is unauthenticated: a name with control characters never reaches a terminal."""
    ad = _parse(record(dict(_txt("19", 2, 4000), m="Eve\x1b[2J")))
    assert ad is not None and ad.creator is None
    ad = _parse(record(dict(_txt("19", 2, 4000), m="x" * 30)))
    assert ad is not None and ad.creator is None


def test_the_game_travels_as_a_hint_and_tables_names_it():
    """``g`` names a table's game (absent: sasaki); ``sasaki tables`` and ``play`` show a Sasku
    table's; a malformed one is dropped (the table reads as Sasaki's, the join tells the truth)."""
    from p2p_sasaki.cli.tables import table_line

    assert "g" not in _txt("19", 1, 4000) and _txt("19", 1, 4000, game="sasku")["g"] == "sasku"
    ad = _parse(record(_txt("19", 2, 4000, "Mina", game="sasku")))
    assert ad is not None and ad.game == "sasku"
    assert table_line(ad) == "table 19 by Mina (Sasku): 2 of 4 seats taken, at 10.0.0.5:4000"
    ad = _parse(record(_txt("19", 2, 4000)))
    assert ad is not None and ad.game == "sasaki"
    assert table_line(ad) == "table 19: 2 of 4 seats taken, at 10.0.0.5:4000"
    ad = _parse(record(dict(_txt("19", 2, 4000), g="Sas\x1b[2J")))
    assert ad is not None and ad.game == "sasaki"



def test_a_tournament_travels_as_its_game_hint_and_is_listed_by_its_players():
    from p2p_sasaki.cli.tables import table_line
    from p2p_sasaki.protocol.net.discovery import TOURNAMENT_GAME

    ad = _parse(record(_txt("19", 6, 4000, "Mina", game=TOURNAMENT_GAME)))
    assert ad is not None and ad.game == "sasku-tournament"
    assert table_line(ad) == "tournament 19 by Mina (Sasku): 6 player(s) in, at 10.0.0.5:4000"
    ad = _parse(record(_txt("19", 6, 4000, "Mina", full=True, game=TOURNAMENT_GAME)))
    assert ad is not None and table_line(ad) == "tournament 19 by Mina (Sasku): started, at 10.0.0.5:4000"
