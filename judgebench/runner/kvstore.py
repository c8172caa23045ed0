"""A durable key -> JSON record table (SQLite, WAL, one transaction per put), for arena steps."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any


class RecordStore:
    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._db = sqlite3.connect(path, timeout=30, isolation_level=None, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute("CREATE TABLE IF NOT EXISTS records (key TEXT PRIMARY KEY, payload TEXT NOT NULL)")

    @classmethod
    def read_all(cls, path: Path) -> dict[str, dict[str, Any]]:
        """Every record of a table, the connection closed again (no store left open by a reader)."""
        if not path.exists():
            return {}
        store = cls(path)
        try:
            return dict(store.items())
        finally:
            store.close()

    def put(self, key: str, record: dict[str, Any]) -> None:
        self._db.execute("INSERT OR REPLACE INTO records VALUES (?, ?)", (key, json.dumps(record, sort_keys=True)))

    def get(self, key: str) -> dict[str, Any] | None:
        row = self._db.execute("SELECT payload FROM records WHERE key = ?", (key,)).fetchone()
        return json.loads(row[0]) if row else None

    def keys(self) -> set[str]:
        return {k for (k,) in self._db.execute("SELECT key FROM records")}

    def items(self) -> Iterator[tuple[str, dict[str, Any]]]:
        for key, payload in self._db.execute("SELECT key, payload FROM records ORDER BY key"):
            yield key, json.loads(payload)

    def __len__(self) -> int:
        return int(self._db.execute("SELECT COUNT(*) FROM records").fetchone()[0])

    def close(self) -> None:
        self._db.close()
