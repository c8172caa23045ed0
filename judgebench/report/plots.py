"""PNG plots for the leaderboard (matplotlib, optional extra `plots`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def available() -> bool:
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return False
    return True


def _pyplot():  # type: ignore[no-untyped-def]
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plt.rcParams.update({"svg.hashsalt": "judgebench", "font.size": 9})
    return plt


def _save(fig: Any, path: Path) -> None:
    # No timestamp in the PNG metadata, so the same scores give the same bytes.
    fig.savefig(path, dpi=110, bbox_inches="tight", metadata={"Software": None})


def accuracy_plot(runs: list[dict[str, Any]], path: Path, level: float) -> None:
    plt = _pyplot()
    rows = [r for r in runs if r["agreement_3class_valid"]["n"]]
    rows.sort(key=lambda r: r["agreement_3class_valid"]["accuracy"]["value"])
    fig, ax = plt.subplots(figsize=(7, 0.35 * len(rows) + 1.2))
    for y, r in enumerate(rows):
        acc = r["agreement_3class_valid"]["accuracy"]
        lo, hi = acc["ci"]
        color = "#888888" if r["kind"] == "reference" else ("#1f77b4" if r["mode"] == "with" else "#ff7f0e")
        ax.errorbar(100 * acc["value"], y, xerr=[[100 * (acc["value"] - lo)], [100 * (hi - acc["value"])]],
                    fmt="o", color=color, capsize=3)
    ax.set_yticks(range(len(rows)), [f"{r['judge']} · {r['style']} · {r['mode']} exec" for r in rows])
    ax.set_xlabel(f"3-class accuracy vs human votes, % ({level:.0%} bootstrap CI)")
    ax.grid(axis="x", alpha=0.3)
    _save(fig, path)
    plt.close(fig)


def rating_scatter(ratings: dict[str, dict[str, Any]], path: Path) -> bool:
    plt = _pyplot()
    panels = [(k, v) for k, v in ratings.items() if "correlation" in v][:6]
    if not panels:
        return False
    fig, axes = plt.subplots(1, len(panels), figsize=(3.4 * len(panels), 3.4), squeeze=False)
    for ax, (key, value) in zip(axes[0], panels, strict=True):
        corr = value["correlation"]
        ax.scatter(corr["human_bt"], corr["judge_bt"], s=18)
        for name, x, y in zip(corr["models"], corr["human_bt"], corr["judge_bt"], strict=True):
            ax.annotate(name[:18], (x, y), fontsize=6, alpha=0.7)
        rho = corr.get("spearman")
        ax.set_title(f"{key}\nSpearman {rho:.2f}" if rho is not None else key, fontsize=7)
        ax.set_xlabel("human BT rating")
        ax.set_ylabel("judge BT rating")
    _save(fig, path)
    plt.close(fig)
    return True


def category_heatmap(runs: list[dict[str, Any]], path: Path) -> bool:
    plt = _pyplot()
    import numpy as np

    categories = sorted({c for r in runs for c in r["by_category"]})
    if not categories or not runs:
        return False
    grid = np.full((len(runs), len(categories)), np.nan)
    for i, r in enumerate(runs):
        for j, c in enumerate(categories):
            metric = r["by_category"].get(c)
            if metric and metric["n"]:
                grid[i, j] = 100 * metric["accuracy"]["value"]
    fig, ax = plt.subplots(figsize=(1.1 * len(categories) + 3, 0.35 * len(runs) + 1.5))
    im = ax.imshow(grid, cmap="viridis", vmin=0, vmax=100, aspect="auto")
    ax.set_xticks(range(len(categories)), categories, rotation=35, ha="right")
    ax.set_yticks(range(len(runs)), [f"{r['judge']} · {r['style']} · {r['mode']}" for r in runs])
    for i in range(len(runs)):
        for j in range(len(categories)):
            if not np.isnan(grid[i, j]):
                ax.text(j, i, f"{grid[i, j]:.0f}", ha="center", va="center", fontsize=7, color="white")
    fig.colorbar(im, ax=ax, label="3-class accuracy, %")
    _save(fig, path)
    plt.close(fig)
    return True
