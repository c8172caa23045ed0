"""A judge is a model id plus everything that changes its answers or its pace.

Specs are TOML files (judgebench/judges/specs/ ships the upstream judges; `--judge path.toml` takes
your own). An api key never appears in a spec, only the name of the environment variable holding it.
"""

from __future__ import annotations

import hashlib
import json
import re
import tomllib
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

SPEC_DIR = Path(__file__).resolve().parent / "specs"
REFERENCE_JUDGES = ("always-a", "random", "longer", "exec-success")


class JudgeSpecError(ValueError):
    pass


@dataclass(frozen=True)
class JudgeSpec:
    name: str
    model: str = ""
    kind: str = "llm"  # llm | reference
    description: str = ""
    params: dict[str, Any] = field(default_factory=lambda: {"temperature": 0.0, "max_tokens": 1024})
    prompt_style: str = "parity"  # parity | improved
    vision: bool = True
    api_base: str | None = None
    api_key_env: str | None = None
    concurrency: int = 8
    rpm: float = 0
    tpm: float = 0
    context_window: int | None = None
    timeout_s: float = 120.0
    max_attempts: int = 6
    seed: int = 0  # reference judge "random" only
    constrained: bool = False  # local GGUF judges: grammar-constrain output to the verdict JSON schema
    # Prices in dollars per token, for models litellm's price map does not know (self-hosted servers
    # are free: 0). None means "ask litellm's map".
    input_cost_per_token: float | None = None
    output_cost_per_token: float | None = None

    @property
    def slug(self) -> str:
        return re.sub(r"[^A-Za-z0-9._-]+", "_", self.name).strip("_") or "judge"

    def answer_fingerprint(self) -> str:
        """Hash of what changes answers (not pace): a run dir refuses to mix two of these."""
        relevant = {"model": self.model, "kind": self.kind, "params": self.params, "prompt_style": self.prompt_style,
                    "vision": self.vision, "seed": self.seed if self.kind == "reference" else None,
                    "constrained": self.constrained}
        return "sha256:" + hashlib.sha256(json.dumps(relevant, sort_keys=True).encode()).hexdigest()[:16]

    def public(self) -> dict[str, Any]:
        return asdict(self)

    def with_overrides(self, **overrides: Any) -> JudgeSpec:
        return replace(self, **{k: v for k, v in overrides.items() if v is not None})


_FIELDS = set(JudgeSpec.__dataclass_fields__)


def spec_from_toml(path: Path) -> JudgeSpec:
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise JudgeSpecError(f"cannot read judge spec {path}: {exc}") from None
    unknown = set(raw) - _FIELDS
    if unknown:
        raise JudgeSpecError(f"{path}: unknown fields {sorted(unknown)} (known: {sorted(_FIELDS)})")
    raw.setdefault("name", path.stem)
    if "api_key" in raw:
        raise JudgeSpecError(f"{path}: put the key in an environment variable and name it in api_key_env")
    spec = JudgeSpec(**raw)
    if spec.kind == "llm" and not spec.model:
        raise JudgeSpecError(f"{path}: an llm judge needs a model")
    if spec.prompt_style not in ("parity", "improved"):
        raise JudgeSpecError(f"{path}: prompt_style must be parity or improved")
    return spec


def shipped_specs() -> dict[str, JudgeSpec]:
    specs = {name: JudgeSpec(name=name, kind="reference", description=_REFERENCE_HELP[name], concurrency=1)
             for name in REFERENCE_JUDGES}
    for path in sorted(SPEC_DIR.glob("*.toml")):
        spec = spec_from_toml(path)
        specs[spec.name] = spec
    return specs


_REFERENCE_HELP = {
    "always-a": "Always votes for the first side shown (the position-bias floor).",
    "random": "Seeded uniform choice between A, B and tie.",
    "longer": "Prefers the longer final answer (the verbosity-bias floor).",
    "exec-success": "Prefers the side whose latest execution succeeded without errors; tie otherwise.",
}


def resolve_judge(value: str) -> JudgeSpec:
    """A shipped name, a spec file, or any litellm model id (`provider/model`)."""
    specs = shipped_specs()
    if value in specs:
        return specs[value]
    path = Path(value)
    if value.endswith(".toml"):
        if not path.exists():
            raise JudgeSpecError(f"no such judge spec file: {value}")
        return spec_from_toml(path)
    if "/" in value:
        return JudgeSpec(name=value, model=value)
    raise JudgeSpecError(f"unknown judge {value!r}: use a name from `judgebench judges list`, a spec .toml, "
                         "or a litellm model id such as openai/gpt-4o")
