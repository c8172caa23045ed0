"""A scripted OpenAI-compatible chat server on 127.0.0.1, driven through the real litellm client.

Each request is answered by a script function (request body, request number) -> Reply, so a test
can inject 429s with Retry-After, 5xx, hangs, malformed or truncated bodies, then good verdicts.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

VERDICT_A = '{"Overall": {"winner": "A", "reasoning": "A runs and does what was asked."}}'


@dataclass
class Reply:
    content: str | None = VERDICT_A
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    raw_body: bytes | None = None  # sent as is (malformed JSON)
    truncate: bool = False  # announce a longer body than is sent, then close
    delay_s: float = 0.0
    error_message: str = "server error"
    finish_reason: str = "stop"


def completion_body(content: str | None, finish_reason: str = "stop", prompt_tokens: int = 100) -> dict[str, Any]:
    return {
        "id": "chatcmpl-fake", "object": "chat.completion", "created": int(time.time()), "model": "fake-judge",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": finish_reason}],
        "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": 20, "total_tokens": prompt_tokens + 20},
    }


@dataclass
class Received:
    at: float
    body: dict[str, Any]


class FakeOpenAI:
    def __init__(self, script: Callable[[dict[str, Any], int], Reply] | None = None, *,
                 parse_bodies: bool = True) -> None:
        """parse_bodies=False skips decoding requests (benchmarks: the server's own JSON work on large
        image-bearing bodies would otherwise be measured as client latency)."""
        self.script = script or (lambda body, n: Reply())
        self.parse_bodies = parse_bodies
        self.received: list[Received] = []
        self._lock = threading.Lock()
        self.port = 0

    @property
    def api_base(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def setup(self) -> None:
                super().setup()
                # Headers and body go out in two writes; without TCP_NODELAY, Nagle plus the client's
                # delayed ACK adds ~40 ms to every response, which is the server's artefact, not ours.
                self.request.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", 0))
                raw = self.rfile.read(length)
                body = json.loads(raw or b"{}") if fake.parse_bodies else {}
                with fake._lock:
                    n = len(fake.received)
                    fake.received.append(Received(time.monotonic(), body))
                reply = fake.script(body, n)
                if reply.delay_s:
                    time.sleep(reply.delay_s)
                if reply.status != 200:
                    payload = json.dumps({"error": {"message": reply.error_message, "type": "fake",
                                                    "code": str(reply.status)}}).encode()
                elif reply.raw_body is not None:
                    payload = reply.raw_body
                else:
                    payload = json.dumps(completion_body(reply.content, reply.finish_reason)).encode()
                try:
                    self.send_response(reply.status)
                    self.send_header("Content-Type", "application/json")
                    for key, value in reply.headers.items():
                        self.send_header(key, value)
                    self.send_header("Content-Length", str(len(payload) * (3 if reply.truncate else 1)))
                    self.end_headers()
                    self.wfile.write(payload[: len(payload) // 2] if reply.truncate else payload)
                    self.wfile.flush()
                    if reply.truncate:
                        self.close_connection = True
                except (BrokenPipeError, ConnectionResetError):
                    pass

        return Handler

    @contextmanager
    def running(self) -> Iterator[FakeOpenAI]:
        server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        server.daemon_threads = True
        self.port = server.server_address[1]
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        try:
            yield self
        finally:
            server.shutdown()
            server.server_close()


def prompt_text(body: dict[str, Any]) -> str:
    content = body["messages"][0]["content"]
    if isinstance(content, str):
        return content
    return "".join(p.get("text", "") for p in content if p.get("type") == "text")


def image_parts(body: dict[str, Any]) -> list[dict[str, Any]]:
    content = body["messages"][0]["content"]
    return [] if isinstance(content, str) else [p for p in content if p.get("type") == "image_url"]


def battle_id_of(body: dict[str, Any], instructions: dict[str, str]) -> str:
    text = prompt_text(body)
    return next(bid for instr, bid in instructions.items() if instr in text)


@contextmanager
def fake_openai(script: Callable[[dict[str, Any], int], Reply] | None = None, *,
                parse_bodies: bool = True) -> Iterator[FakeOpenAI]:
    with FakeOpenAI(script, parse_bodies=parse_bodies).running() as server:
        yield server
