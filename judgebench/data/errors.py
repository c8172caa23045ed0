"""Errors and per-row failures raised by the data layer."""

from __future__ import annotations

from dataclasses import dataclass


class DatasetError(Exception):
    """A dataset cannot be opened at all (bad path, unreachable Hub, unknown format).

    The message is written for the person at the terminal: the CLI prints it without a traceback.
    """


class HubUnreachableError(DatasetError):
    """The Hugging Face Hub did not answer; the message tells how to use a local copy instead."""


class RowFormatError(ValueError):
    """One row does not fit the schema; carries the reason, the loader adds the row's id."""


@dataclass(frozen=True)
class RowError:
    """A row that could not be turned into a Battle. Never dropped: counted and reported."""

    index: int
    row_id: str
    reason: str

    def __str__(self) -> str:
        return f"row {self.index} ({self.row_id}): {self.reason}"


class StrictModeError(DatasetError):
    """Raised in --strict mode at the first unreadable row."""

    def __init__(self, error: RowError) -> None:
        super().__init__(f"unreadable {error} (drop --strict to count such rows and go on)")
        self.error = error
