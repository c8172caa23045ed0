import pytest

from judgebench.judges.parse import UnparseableVerdict, parse_json_verdict
from judgebench.records import Vote


@pytest.mark.parametrize(("text", "winner"), [
    ('{"Overall": {"winner": "A", "reasoning": "ok"}}', Vote.A),
    ('```json\n{"Overall": {"winner": "B", "reasoning": "ok"}}\n```', Vote.B),
    ('{"Overall": {"winner": "Tie", "reasoning": "same"}}\nBoth are fine, really.', Vote.TIE),
    ('Here is my verdict: {"overall": {"Winner": "model_b"}} thanks', Vote.B),
    ('{"OVERALL": {"WINNER": "a"}}', Vote.A),
    ('{"winner": "Model A", "reasoning": "flat form"}', Vote.A),
    ('{"Overall": {"winner": "Both Bad", "reasoning": "neither runs"}}', Vote.BOTH_BAD),
])
def test_accepted_forms(text: str, winner: Vote) -> None:
    assert parse_json_verdict(text, allow_both_bad=True).winner is winner


@pytest.mark.parametrize("text", [
    "", "   ", "A is better.", '{"Overall": {"winner": "C"}}', '{"Overall": {"reasoning": "no winner"}}',
    '{"Overall": {"winner": "A"', "[[A>B]]",
])
def test_everything_else_is_unparseable(text: str) -> None:
    with pytest.raises(UnparseableVerdict):
        parse_json_verdict(text, allow_both_bad=True)


def test_both_bad_is_rejected_when_the_prompt_did_not_offer_it() -> None:
    with pytest.raises(UnparseableVerdict):
        parse_json_verdict('{"Overall": {"winner": "Both Bad"}}', allow_both_bad=False)


def test_reasoning_is_kept() -> None:
    assert parse_json_verdict('{"Overall": {"winner": "A", "reasoning": "runs"}}').reasoning == "runs"
