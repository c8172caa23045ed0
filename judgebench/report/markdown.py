"""The BigCodeReward leaderboard as markdown: every number with its interval and its n."""

from __future__ import annotations

import math
from typing import Any

REFERENCE_NOTE = "reference judge (no LLM): the floor an LLM judge must beat"


def pct(value: float | None) -> str:
    return "–" if value is None or (isinstance(value, float) and math.isnan(value)) else f"{100 * value:.1f}"


def pct_ci(metric: dict[str, Any]) -> str:
    lo, hi = metric["ci"]
    return f"{pct(metric['value'])} [{pct(lo)}, {pct(hi)}]"


def num(value: float | None, digits: int = 3) -> str:
    return "–" if value is None or (isinstance(value, float) and math.isnan(value)) else f"{value:.{digits}f}"


def table(header: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


def _judge_label(run: dict[str, Any]) -> str:
    return f"{run['judge']} (floor)" if run["kind"] == "reference" else run["judge"]


def judge_table(runs: list[dict[str, Any]], level: float) -> str:
    ordered = sorted(runs, key=lambda r: (r["kind"] == "reference", -(r["agreement_3class_valid"]["accuracy"]["value"]
                                                                     if r["agreement_3class_valid"]["n"] else -1)))
    rows = []
    for r in ordered:
        a3, a3s = r["agreement_3class_valid"], r["agreement_3class_strict"]
        pos = r.get("position") or {}
        cost = r["cost"]
        fails = ", ".join(f"{k} {v}" for k, v in sorted(r["failures"].items())) or "0"
        rows.append([
            _judge_label(r), r["style"], r["mode"], pct_ci(a3["accuracy"]), pct_ci(a3["macro_f1"]),
            num(a3["kappa"]["value"]), str(a3["n"]), pct(a3s["accuracy"]["value"]), pct(r["coverage"]), fails,
            pct(pos.get("flip_rate")), "–" if cost["usd_per_1k"] is None else f"{cost['usd_per_1k']:.2f}",
            "–" if cost["seconds_per_1k"] is None else f"{cost['seconds_per_1k']:.0f}"])
    header = ["judge", "prompt", "execution", f"accuracy 3-class [{level:.0%} CI]", "macro-F1 3-class",
              "kappa", "n", "accuracy, failures wrong", "coverage", "failures", "flip rate", "$ / 1k", "s / 1k"]
    return table(header, rows)


def paired_table(paired: list[dict[str, Any]]) -> str:
    rows = []
    for p in paired:
        o = p["overall"]
        lo, hi = o["ci"]
        rows.append([p["judge"], p["style"], pct(o["accuracy_first"]), pct(o["accuracy_second"]),
                     f"{pct(o['difference'])} [{pct(lo)}, {pct(hi)}]", f"{o['only_first_correct']}/"
                     f"{o['only_second_correct']}", num(o["mcnemar_p"], 4), str(o["n"])])
    return table(["judge", "prompt", "acc. with exec", "acc. without", "difference (points) [CI]",
                  "only with / only without correct", "McNemar exact p", "n"], rows)


def category_table(runs: list[dict[str, Any]], field: str = "by_category") -> str:
    groups = sorted({g for r in runs for g in r[field]})
    rows = []
    for r in runs:
        cells = []
        for g in groups:
            metric = r[field].get(g)
            cells.append(f"{pct(metric['accuracy']['value'])} (n={metric['n']})" if metric and metric["n"] else "–")
        rows.append([_judge_label(r), r["style"], r["mode"], *cells])
    return table(["judge", "prompt", "execution", *groups], rows)


def ratings_section(key: str, ratings: dict[str, Any]) -> str:
    if "human_bt" not in ratings:
        return f"### {key}\n\n{ratings.get('note', 'no ratings')}\n"
    human = {row["model"]: row for row in ratings["human_bt"]["models"]}
    judge = {row["model"]: row for row in ratings["judge_bt"]["models"]}
    h_elo = {row["model"]: row for row in ratings["human_elo"]["models"]}
    j_elo = {row["model"]: row for row in ratings["judge_elo"]["models"]}
    rows = []
    for model, h in human.items():
        j = judge.get(model)
        rows.append([model, f"{h['rating']:.0f} [{h['ci'][0]:.0f}, {h['ci'][1]:.0f}]",
                     f"{h['rank']} [{h['rank_ci'][0]}–{h['rank_ci'][1]}]",
                     f"{j['rating']:.0f} [{j['ci'][0]:.0f}, {j['ci'][1]:.0f}]" if j else "–",
                     f"{j['rank']} [{j['rank_ci'][0]}–{j['rank_ci'][1]}]" if j else "–",
                     f"{h_elo[model]['rating']:.0f}", f"{j_elo[model]['rating']:.0f}" if model in j_elo else "–",
                     str(h["battles"])])
    corr = ratings["correlation"]
    if corr.get("spearman") is None:
        note = corr.get("note", "too few models")
        corr_line = f"Rank correlation: undefined ({note}); n = {corr['n_battles']} battles."
    else:
        corr_line = (f"Spearman {corr['spearman']:.3f} [{corr['spearman_ci'][0]:.3f}, {corr['spearman_ci'][1]:.3f}], "
                     f"Kendall {corr['kendall']:.3f} [{corr['kendall_ci'][0]:.3f}, {corr['kendall_ci'][1]:.3f}] "
                     f"between human and judge Bradley-Terry ratings; n = {corr['n_battles']} battles, "
                     f"{corr['n_models']} models.")
    body = table(["model", "human BT [CI]", "human rank [CI]", "judge BT [CI]", "judge rank [CI]", "human Elo",
                  "judge Elo", "battles (human)"], rows)
    return f"### {key}\n\n{body}\n\n{corr_line}\n"
