"""Content-addressed response cache: the same request never costs twice.

The key covers everything that can change an answer: model, api_base host, decoding parameters,
the rendered messages (images included), the template hash and the presentation order. Keys and
secrets never enter it: api keys are not part of the request description.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

DEFAULT_CACHE = Path.home() / ".cache" / "judgebench" / "responses.sqlite"


def api_host(api_base: str | None) -> str:
    if not api_base:
        return ""
    parts = urlsplit(api_base)
    return f"{parts.hostname or ''}:{parts.port or ''}{parts.path.rstrip('/')}"


def cache_key(model: str, api_base: str | None, params: dict[str, Any], messages: list[dict[str, Any]],
              template_hash: str, order: str) -> str:
    payload = json.dumps({"model": model, "api_host": api_host(api_base), "params": params, "messages": messages,
                          "template": template_hash, "order": order}, sort_keys=True, default=str)
    return hashlib.sha256(payload.encode()).hexdigest()


class ResponseCache:
    """SQLite in WAL mode: safe with several judgebench processes and with kill -9."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self._db: sqlite3.Connection | None = None
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(path, timeout=30, isolation_level=None)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute("CREATE TABLE IF NOT EXISTS responses (key TEXT PRIMARY KEY, model TEXT, "
                             "created REAL, payload TEXT)")

    def get(self, key: str) -> dict[str, Any] | None:
        if self._db is None:
            return None
        row = self._db.execute("SELECT payload FROM responses WHERE key = ?", (key,)).fetchone()
        return json.loads(row[0]) if row else None

    def put(self, key: str, model: str, payload: dict[str, Any]) -> None:
        if self._db is None:
            return
        self._db.execute("INSERT OR REPLACE INTO responses VALUES (?, ?, ?, ?)",
                         (key, model, time.time(), json.dumps(payload)))

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None
