"""``sasaki audit`` names the seat that signed a tampered message; ``sasaki export``
writes records that pass ``sasaki replay``. Needs the real protocol (a demo match). The
commands run in this process (tests/cli/inproc.py): their output and status are the point,
not an interpreter start each."""

from __future__ import annotations

import dataclasses
import json
import re

import pytest

from tests.cli.inproc import cli

pytestmark = pytest.mark.slow


@pytest.fixture
def demo(full_proof_demo):
    """The session's full-proof demo (tests/cli/conftest.py)."""
    return full_proof_demo


def test_tampered_transcript_names_the_signer(demo, tmp_path):
    from p2p_sasaki.protocol.messages import decode_envelope, sign_envelope, verify_envelope
    from p2p_sasaki.protocol.net import Identity
    from p2p_sasaki.protocol.transcript import KIND_ENVELOPE, encode_record, split_records

    directory, output = demo
    identities = [Identity((directory / f"peer{i}" / "identity.key").read_bytes()) for i in range(4)]
    # the demo's peer i is "Bot i+1": "Seats drawn: ... S0 Bot 3, S1 Bot 1, ..."
    seat_of = {int(bot) - 1: int(seat) for seat, bot in re.findall(r"S(\d) Bot (\d)", output.split("Seats drawn")[1])}
    assert sorted(seat_of) == [0, 1, 2, 3]
    records = split_records((directory / "peer0.sasaki").read_bytes())
    # the last envelope that carries a bytes field: change one byte and re-sign it as its sender
    for index in range(len(records) - 1, 0, -1):
        kind, data = records[index]
        if kind != KIND_ENVELOPE:
            continue
        message = decode_envelope(data)
        payload = message.body.payload
        fields = [n for n, v in vars(payload).items() if isinstance(v, bytes) and v]
        if fields:
            break
    signer = next(i for i in identities if verify_envelope(message, i.public_key))
    value = getattr(payload, fields[0])
    forged_payload = dataclasses.replace(payload, **{fields[0]: bytes([value[0] ^ 1]) + value[1:]})
    forged = sign_envelope(dataclasses.replace(message.body, payload=forged_payload), signer)
    records[index] = (KIND_ENVELOPE, forged)
    path = tmp_path / "tampered.sasaki"
    path.write_bytes(b"".join(encode_record(kind, data) for kind, data in records))
    result = cli("audit", "--json", str(path))
    assert result.returncode == 1, result.stdout + result.stderr
    blame = json.loads(result.stdout)["blame"]
    assert blame["seat"] == seat_of[identities.index(signer)]
    assert json.loads(result.stdout)["names"] == [f"Bot {i + 1}" for s in range(4)
                                                  for i, t in seat_of.items() if t == s]
    text = cli("audit", str(path))
    name = json.loads(result.stdout)["names"][blame["seat"]]
    assert text.returncode == 1 and f"FAILED: S{blame['seat']} {name} is to blame (in hand 1): " in text.stdout


def test_audit_ok_and_export_passes_replay(demo, tmp_path):
    directory, _ = demo
    result = cli("audit", str(directory / "peer2.sasaki"))
    assert result.returncode == 0 and ": OK: 1 hand(s) verified" in result.stdout
    exported = cli("export", str(directory / "peer2.sasaki"), "--out", str(tmp_path))
    assert exported.returncode == 0, exported.stderr
    files = exported.stdout.split()
    assert len(files) == 1
    replayed = cli("replay", "--json", files[0])
    assert replayed.returncode == 0 and json.loads(replayed.stdout)["complete"] is True


def test_audit_exit_status_and_json_verdict(demo, tmp_path):
    """docs/usage.md: 0 complete, 3 incomplete (a cut file: nobody blamed), 4 altered (nobody
    named), 5 not a transcript, 2 a usage error; --json gains status, stops_at, waiting_for."""
    from p2p_sasaki.protocol.messages import TranscriptHeader
    from p2p_sasaki.protocol.transcript import KIND_HEADER, encode_record, split_records

    directory, _ = demo
    data = (directory / "peer1.sasaki").read_bytes()
    full = cli("audit", "--json", str(directory / "peer1.sasaki"))
    verdict = json.loads(full.stdout)
    assert full.returncode == 0 and verdict["status"] == "complete" and verdict["stops_at"] is None
    assert verdict["waiting_for"] == [] and verdict["blame"] is None and verdict["ok"] is True
    records = split_records(data)
    cut = tmp_path / "cut.sasaki"
    cut.write_bytes(b"".join(encode_record(k, d) for k, d in records[:40]) + b"\x00\x00")
    result = cli("audit", "--json", str(cut))
    verdict = json.loads(result.stdout)
    assert result.returncode == 3 and verdict["status"] == "incomplete" and verdict["blame"] is None
    assert verdict["stops_at"]["record"] == 40 and verdict["stops_at"]["hand"] == 1
    text = cli("audit", str(cut))
    assert text.returncode == 3 and "INCOMPLETE" in text.stdout and "nobody is blamed" in text.stdout
    header = TranscriptHeader.decode(records[0][1])
    altered = tmp_path / "altered.sasaki"
    altered.write_bytes(b"".join(encode_record(k, d) for k, d in
                                 [(KIND_HEADER, dataclasses.replace(header, hands=3).encode())] + records[1:]))
    result = cli("audit", "--json", str(altered))
    verdict = json.loads(result.stdout)
    assert result.returncode == 4 and verdict["status"] == "damaged" and verdict["blame"]["seat"] is None
    said = cli("audit", str(altered))
    assert said.returncode == 4 and said.stdout.startswith(f"{altered}: DAMAGED: this file was changed or corrupted")
    assert said.stdout.count("nobody can be") == 1 and "hand 0" not in said.stdout
    text = tmp_path / "notes.txt"
    text.write_text("hello\n")
    unreadable = cli("audit", str(text))
    assert unreadable.returncode == 5 and unreadable.stdout == "" and "is not a transcript" in unreadable.stderr
    assert cli("audit", str(tmp_path / "missing.sasaki")).returncode == 2
