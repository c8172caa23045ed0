"""The data layer against the committed Hub-schema fixture and hand-broken rows."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import replace
from pathlib import Path

import pytest

from judgebench.data.errors import DatasetError, RowError, StrictModeError
from judgebench.data.sources import iter_battles, load_battles, open_dataset
from judgebench.records import Vote
from tests.conftest import FEATURES_JSON, FIXTURE_DIR, FIXTURE_PARQUET, write_jsonl


def test_fixture_is_in_the_exact_hub_schema() -> None:
    if not FEATURES_JSON.exists():
        pytest.skip(f"shared reference data absent: {FEATURES_JSON}")
    import datasets
    import pyarrow.parquet as pq

    expected = datasets.Features.from_dict(json.loads(FEATURES_JSON.read_text()))
    stored = datasets.Features.from_arrow_schema(pq.read_schema(FIXTURE_PARQUET))
    assert stored == expected


@pytest.mark.parametrize(
    "spec", [str(FIXTURE_PARQUET), str(FIXTURE_DIR), str(FIXTURE_DIR / "*.parquet"), "bcr-fixture"])
def test_every_way_of_naming_the_fixture_loads_it(spec: str) -> None:
    battles, errors = load_battles(open_dataset(spec))
    assert errors == []
    assert len(battles) == 36
    assert Counter(b.vote for b in battles) == {Vote.A: 9, Vote.B: 9, Vote.TIE: 9, Vote.BOTH_BAD: 9}
    assert len({b.category for b in battles}) == 6


def test_rounds_are_numeric_null_rounds_dropped_and_all_kept() -> None:
    battles, _ = load_battles(open_dataset("bcr-fixture"))
    by_id = {b.id: b for b in battles}
    multi = by_id["fx005"].side_a  # multi-turn row: rounds 1 and 3 ran, round 2 is null
    assert [r.number for r in multi.rounds] == [1, 3]
    assert multi.latest_execution.number == 3
    assert multi.user_turns == 2 and len(multi.messages) == 4
    late = by_id["fx007"].side_b  # runs in rounds 1 and 8 (round 8 typed like rounds 6+)
    assert [r.number for r in late.rounds] == [1, 8]
    assert late.latest_execution.number == 8
    no_success_field = by_id["fx011"].side_a  # model_A round 6 has no execution_success upstream
    assert no_success_field.latest_execution.number == 6
    assert no_success_field.latest_execution.success is None


def test_screenshots_stay_encoded_until_used() -> None:
    battles, _ = load_battles(open_dataset("bcr-fixture"))
    shots = [r.screenshot for b in battles for s in b.sides for r in s.rounds if r.screenshot]
    assert shots
    assert all("data" not in vars(s) for s in shots)  # cached_property not computed yet
    image = shots[0].image()
    assert shots[0].mime_type == "image/png" and image.size == (96, 64)


def test_round_keys_sorted_as_numbers_not_strings(tmp_path: Path, rows: list[dict]) -> None:
    row = rows[0]
    logs = row["states"]["model_A"]["sandbox_logs_by_round"]
    first = logs["1"]
    import copy

    nine, ten = copy.deepcopy(first), copy.deepcopy(first)
    nine["sandbox_state"]["code_to_execute"] = "print(9)"
    ten["sandbox_state"]["code_to_execute"] = "print(10)"
    row["states"]["model_A"]["sandbox_logs_by_round"] = {"10": ten, "9": nine, "1": first}
    battles, errors = load_battles(open_dataset(str(write_jsonl(tmp_path / "trap.jsonl", [row]))))
    assert errors == []
    side = battles[0].side_a
    assert [r.number for r in side.rounds] == [1, 9, 10]
    assert side.latest_execution.code == "print(10)"


BROKEN = {
    "no instruction": (lambda r: r.update(instruction=None), "instruction is missing"),
    "empty instruction": (lambda r: r.update(instruction="   "), "instruction is empty"),
    "unknown vote": (lambda r: r.update(human_vote="vote_left"), "unknown vote label 'vote_left'"),
    "bad base64": (lambda r: r["states"]["model_A"]["sandbox_logs_by_round"]["1"]["sandbox_state"].update(
        screenshot_base64="%%%not-base64%%%"), "screenshot_base64"),
    "wrong type": (lambda r: r.update(instruction=42), "instruction should be a string, got int"),
    "bad round key": (lambda r: r["states"]["model_B"].update(
        sandbox_logs_by_round={"first": r["states"]["model_B"]["sandbox_logs_by_round"]["1"]}), "non-numeric round"),
    "no states": (lambda r: r.update(states=None), "states is missing"),
}


def test_malformed_rows_are_named_counted_and_never_dropped(tmp_path: Path, rows: list[dict]) -> None:
    for i, (mutate, _) in enumerate(BROKEN.values()):
        mutate(rows[i])
    lines: list = [*rows, "{this is not json", "[1, 2]"]
    source = open_dataset(str(write_jsonl(tmp_path / "broken.jsonl", lines)))
    items = list(iter_battles(source))
    assert len(items) == len(lines)  # every input line accounted for
    errors = [i for i in items if isinstance(i, RowError)]
    assert len(errors) == len(BROKEN) + 2
    for error, (name, (_, expected)) in zip(errors, BROKEN.items(), strict=False):
        assert expected in error.reason, name
        assert error.row_id == rows[errors.index(error)]["chat_session_id"]
    assert "not valid JSON" in errors[-2].reason and "line" not in errors[-2].row_id
    assert "expected a JSON object" in errors[-1].reason


def test_strict_mode_stops_at_the_first_bad_row(tmp_path: Path, rows: list[dict]) -> None:
    rows[3]["human_vote"] = "vote_left"
    source = open_dataset(str(write_jsonl(tmp_path / "broken.jsonl", rows)))
    with pytest.raises(StrictModeError, match="fx004"):
        list(iter_battles(source, strict=True))


def test_export_round_trips_in_both_formats(tmp_path: Path) -> None:
    from judgebench.data.pipeline import export_dataset

    original, _ = load_battles(open_dataset("bcr-fixture"))
    for suffix in ("jsonl", "parquet"):
        out = tmp_path / f"export.{suffix}"
        result = export_dataset("bcr-fixture", out, "train")  # explicit: the default is humaneval-pairs
        assert result["written"] == 36 and result["errors"] == 0
        again, errors = load_battles(open_dataset(str(out)))
        assert errors == [] and again == original
        assert not list(tmp_path.glob(".*partial*"))


def test_save_to_disk_folder_loads(tmp_path: Path) -> None:
    import datasets

    ds = datasets.load_dataset("parquet", data_files=str(FIXTURE_PARQUET), split="train")
    ds.save_to_disk(str(tmp_path / "saved"))
    battles, errors = load_battles(open_dataset(str(tmp_path / "saved")))
    assert errors == [] and len(battles) == 36
    reference, _ = load_battles(open_dataset("bcr-fixture"))
    assert [replace(b, source="") for b in battles] == [replace(b, source="") for b in reference]


def test_unknown_paths_and_formats_fail_clearly(tmp_path: Path) -> None:
    with pytest.raises(DatasetError, match="No such file or folder"):
        open_dataset(str(tmp_path / "missing.parquet"))
    (tmp_path / "notes.txt").write_text("hello")
    with pytest.raises(DatasetError, match="Unsupported file type"):
        open_dataset(str(tmp_path / "notes.txt"))
    with pytest.raises(DatasetError, match="hf:owner/name"):
        open_dataset("hf:justaname")


def test_fingerprint_follows_content(tmp_path: Path) -> None:
    a = open_dataset("bcr-fixture").fingerprint()
    assert a == open_dataset(str(FIXTURE_PARQUET)).fingerprint()
    copy_path = tmp_path / "train-00000-of-00001.parquet"
    copy_path.write_bytes(FIXTURE_PARQUET.read_bytes() + b"")
    assert open_dataset(str(copy_path)).fingerprint() == a
    copy_path.write_bytes(FIXTURE_PARQUET.read_bytes()[:-1] + b"\0")
    assert open_dataset(str(copy_path)).fingerprint() != a


def test_committed_fixture_matches_its_builder(upstream_rows: list[dict]) -> None:
    if not FEATURES_JSON.exists():
        pytest.skip(f"shared reference data absent: {FEATURES_JSON}")
    import base64

    from tests.fixtures.build_bcr_fixture import build_rows

    def normal(value):  # type: ignore[no-untyped-def]
        if isinstance(value, dict):
            if set(value) == {"bytes", "path"}:
                return base64.b64encode(value["bytes"]).decode() if value["bytes"] else None
            return {k: normal(v) for k, v in value.items()}
        if isinstance(value, list):
            return [normal(v) for v in value]
        return value

    built = build_rows(json.loads(FEATURES_JSON.read_text()))
    assert [normal(r) for r in built] == [normal(r) for r in upstream_rows]
