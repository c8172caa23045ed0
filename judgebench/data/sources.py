"""`--dataset` specs (hf:owner/name, a path or glob, a bundled name) -> a stream of battles."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from judgebench.data import bundled, hub, local
from judgebench.data.bigcodereward import battle_from_upstream, is_upstream_row, row_id
from judgebench.data.errors import DatasetError, RowError, RowFormatError, StrictModeError
from judgebench.data.normalized import battle_from_dict, is_normalized_row
from judgebench.records import Battle


@dataclass(frozen=True)
class DatasetSource:
    """An opened dataset: where it is, how to read it, and what identifies its content."""

    spec: str
    kind: str  # hub | parquet | jsonl | saved
    split: str
    name: str
    files: tuple[Path, ...] = ()
    repo_id: str = ""
    revision: str | None = None
    hub_sha: str = ""
    _fingerprint: list[str] = field(default_factory=list, compare=False, repr=False)

    def describe(self) -> str:
        if self.kind == "hub":
            return f"hf:{self.repo_id} (split {self.split}, revision {self.hub_sha[:12] or 'latest'})"
        where = self.files[0] if len(self.files) == 1 else f"{len(self.files)} files under {_common_parent(self.files)}"
        return f"{self.name}: {self.kind} {where}"

    def fingerprint(self) -> str:
        """Content identity for manifests: the Hub commit, or a sha256 over the local files' bytes."""
        if self._fingerprint:
            return self._fingerprint[0]
        if self.kind == "hub":
            value = f"hf:{self.repo_id}@{self.hub_sha}"
        else:
            digest = hashlib.sha256()
            for path in self._all_files():
                digest.update(str(path.name).encode() + b"\0")
                with open(path, "rb") as handle:
                    for chunk in iter(lambda: handle.read(1 << 20), b""):
                        digest.update(chunk)
            value = "sha256:" + digest.hexdigest()
        self._fingerprint.append(value)
        return value

    def _all_files(self) -> list[Path]:
        files: list[Path] = []
        for path in self.files:
            files.extend(sorted(p for p in path.rglob("*") if p.is_file()) if path.is_dir() else [path])
        return files

    def size_bytes(self) -> int:
        return sum(p.stat().st_size for p in self._all_files()) if self.kind != "hub" else 0

    def iter_rows(self) -> Iterator[dict[str, Any] | RowFormatError]:
        if self.kind == "hub":
            return hub.iter_hub_rows(self.repo_id, self.split, self.hub_sha or self.revision)
        if self.kind == "parquet":
            return local.iter_parquet_rows(list(self.files))
        if self.kind == "saved":
            return local.iter_saved_rows(self.files[0], self.split)
        return local.iter_jsonl_rows(list(self.files))


def _common_parent(files: tuple[Path, ...]) -> Path:
    parents = {f.parent for f in files}
    return parents.pop() if len(parents) == 1 else Path(".")


def open_dataset(spec: str | None = None, split: str = "train") -> DatasetSource:
    """Resolves a --dataset value. Bundled names win over same-named relative paths only if no such
    path exists, so a user's local folder is never shadowed."""
    spec = spec or bundled.DEFAULT_DATASET
    if spec.startswith("hf:"):
        repo, _, revision = spec[3:].partition("@")
        if repo.count("/") != 1:
            raise DatasetError(f"Hub datasets are written hf:owner/name[@revision], got {spec!r}")
        sha = hub.probe(repo, revision or None)
        return DatasetSource(spec, "hub", split, repo, repo_id=repo, revision=revision or None, hub_sha=sha)
    path = Path(spec).expanduser()
    if not path.exists() and not any(ch in spec for ch in "*?["):
        bundled_dir = bundled.bundled_path(spec)
        if bundled_dir is not None:
            kind, files = local.resolve_files(str(bundled_dir), split)
            return DatasetSource(spec, kind, split, spec, files=tuple(files))
        names = ", ".join(bundled.bundled_names()) or "none installed"
        raise DatasetError(f"No such file or folder: {spec}\n(bundled datasets: {names}; Hub datasets: hf:owner/name)")
    kind, files = local.resolve_files(spec, split)
    return DatasetSource(spec, kind, split, path.name or spec, files=tuple(files))


def to_battle(row: dict[str, Any], source: str) -> Battle:
    if is_normalized_row(row):
        return battle_from_dict(row)
    if is_upstream_row(row):
        return battle_from_upstream(row, source)
    raise RowFormatError("row matches neither the bigcodereward schema nor judgebench's own "
                         f"(keys: {', '.join(sorted(row)[:8])})")


def iter_battles(source: DatasetSource, *, strict: bool = False) -> Iterator[Battle | RowError]:
    """Every row comes out as a Battle or a RowError, in order; in strict mode the first error raises."""
    origin = source.repo_id or source.name
    for index, row in enumerate(source.iter_rows()):
        if isinstance(row, RowFormatError):
            item: Battle | RowError = RowError(index, f"#{index}", str(row))
        else:
            try:
                item = to_battle(row, origin)
            except RowFormatError as exc:
                item = RowError(index, row_id(row, index), str(exc))
        if strict and isinstance(item, RowError):
            raise StrictModeError(item)
        yield item


def load_battles(source: DatasetSource, *, strict: bool = False) -> tuple[list[Battle], list[RowError]]:
    """Materialises a dataset. Use iter_battles for full-size data with screenshots."""
    battles: list[Battle] = []
    errors: list[RowError] = []
    for item in iter_battles(source, strict=strict):
        (errors if isinstance(item, RowError) else battles).append(item)  # type: ignore[arg-type]
    return battles, errors
