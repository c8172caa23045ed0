import base64

import pytest

from judgebench.records import ExecutionRound, Message, Screenshot, ScreenshotError, Side, Vote

PNG_HEADER = b"\x89PNG\r\n\x1a\n" + b"\0" * 8


def test_vote_merge_and_swap() -> None:
    assert Vote.BOTH_BAD.merged is Vote.TIE
    assert Vote.A.merged is Vote.A
    assert Vote.A.swapped() is Vote.B and Vote.B.swapped() is Vote.A
    assert Vote.TIE.swapped() is Vote.TIE and Vote.BOTH_BAD.swapped() is Vote.BOTH_BAD


def test_screenshot_mime_from_bytes_not_from_a_guess() -> None:
    assert Screenshot(PNG_HEADER).mime_type == "image/png"
    assert Screenshot(base64.b64encode(b"\xff\xd8\xff\xe0" + b"\0" * 8).decode()).mime_type == "image/jpeg"
    uri = "data:image/png;base64," + base64.b64encode(PNG_HEADER).decode()
    assert Screenshot.from_base64(uri).mime_type == "image/png"


@pytest.mark.parametrize("encoded", ["not base64 at all!", base64.b64encode(b"plain text here").decode()])
def test_screenshot_garbage_is_an_error(encoded: str) -> None:
    with pytest.raises(ScreenshotError):
        Screenshot(encoded).check()


def test_latest_execution_is_numeric_and_skips_empty_rounds() -> None:
    rounds = (
        ExecutionRound(2, "python", "Python Runner", "print(2)"),
        ExecutionRound(9, "python", "Python Runner", "print(9)"),
        ExecutionRound(10, "python", "Python Runner", "print(10)"),
        ExecutionRound(11, "python", "Python Runner", ""),
    )
    side = Side("m", (Message("user", "q"), Message("assistant", "a")), rounds)
    assert side.latest_execution is not None and side.latest_execution.number == 10
    assert side.final_answer == "a"
    assert side.user_turns == 1
