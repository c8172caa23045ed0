"""Web answers rendered in the real headless Chromium: the pixels must show the content."""

from __future__ import annotations

import io

import pytest

from judgebench.execution.web import WebRenderer, web_available

REASON = web_available()
pytestmark = pytest.mark.skipif(REASON is not None, reason=f"web rendering unavailable: {REASON}")


@pytest.fixture(scope="module")
def renderer():  # type: ignore[no-untyped-def]
    with WebRenderer(timeout_s=5) as r:
        yield r


def pixel(png: bytes, x: int, y: int) -> tuple[int, int, int]:
    from PIL import Image

    return Image.open(io.BytesIO(png)).convert("RGB").getpixel((x, y))


def colours(png: bytes) -> set[tuple[int, int, int]]:
    from PIL import Image

    img = Image.open(io.BytesIO(png)).convert("RGB")
    return {c for _, c in img.getcolors(maxcolors=1 << 20)}


FULL = "margin:0;width:100vw;height:100vh;"


def test_html_page(renderer) -> None:  # type: ignore[no-untyped-def]
    result = renderer.render("html", f"<html><body style='{FULL}background:#ff0000'><h1>Hi</h1></body></html>")
    assert result.ok and result.png is not None
    assert pixel(result.png, 900, 700) == (255, 0, 0)


def test_react_component_with_hooks(renderer) -> None:  # type: ignore[no-untyped-def]
    code = ("import React, { useState } from 'react';\n"
            "export default function App() {\n  const [n] = useState(2);\n"
            f"  return <div style={{{{background: n === 2 ? '#00ff00' : '#000000', {FULL.replace(';', ',')[:-1]}}}}}>"
            "ok</div>;\n}\n")
    code = code.replace("margin:0,width:100vw,height:100vh", "margin: 0, width: '100vw', height: '100vh'")
    result = renderer.render("react", code)
    assert result.ok, (result.detail, result.console_errors)
    assert pixel(result.png, 900, 700) == (0, 255, 0)


def test_vue_single_file_component(renderer) -> None:  # type: ignore[no-untyped-def]
    code = ("<template><div class='box'>{{ msg }}</div></template>\n"
            "<script>\nexport default { data() { return { msg: 'hello' } } }\n</script>\n"
            "<style>body{margin:0} .box{background:#0000ff;width:100vw;height:100vh}</style>")
    result = renderer.render("vue", code)
    assert result.ok, (result.detail, result.console_errors)
    assert pixel(result.png, 900, 700) == (0, 0, 255)


def test_mermaid_diagram_draws_boxes(renderer) -> None:  # type: ignore[no-untyped-def]
    result = renderer.render("mermaid", "graph TD; Cart-->Pay; Pay-->Done")
    assert result.ok, (result.detail, result.console_errors)
    assert len(colours(result.png)) > 10  # boxes, text and arrows, not a blank page


def test_canvas_javascript(renderer) -> None:  # type: ignore[no-untyped-def]
    code = ("const c = document.getElementById('canvas').getContext('2d');\n"
            "c.fillStyle = '#ffff00'; c.fillRect(0, 0, 800, 600);")
    result = renderer.render("javascript", code)
    assert result.ok and pixel(result.png, 100, 100) == (255, 255, 0)


def test_errors_are_captured(renderer) -> None:  # type: ignore[no-untyped-def]
    broken = renderer.render("react", "export default function App() { return <div>{missing.value}</div>; }")
    assert broken.status == "error" and any("missing" in e for e in broken.console_errors)
    page_error = renderer.render("html", "<script>throw new Error('boom-123')</script>")
    assert page_error.ok and any("boom-123" in e for e in page_error.console_errors)


def test_network_is_blocked(renderer) -> None:  # type: ignore[no-untyped-def]
    result = renderer.render("html", "<script>fetch('http://127.0.0.1:9/').then(() => console.error('REACHED'))"
                                     ".catch(e => console.error('blocked: ' + e.message))</script>"
                                     "<img src='https://cdn.example.com/x.png'>")
    assert not any("REACHED" in e for e in result.console_errors)
    assert any("blocked" in e or "ERR_BLOCKED" in e for e in result.console_errors)


def test_a_hung_page_times_out_and_the_next_render_works(renderer) -> None:  # type: ignore[no-untyped-def]
    hung = renderer.render("html", "<script>while (true) {}</script>")
    assert hung.status == "timeout"
    after = renderer.render("html", f"<body style='{FULL}background:#ff0000'></body>")
    assert after.ok and pixel(after.png, 10, 10) == (255, 0, 0)


def test_storage_does_not_leak_between_renders(renderer) -> None:  # type: ignore[no-untyped-def]
    renderer.render("html", "<script>localStorage.setItem('k', 'leaked')</script>")
    result = renderer.render("html", "<script>console.error('value=' + localStorage.getItem('k'))</script>")
    assert any("value=null" in e for e in result.console_errors)


@pytest.mark.skipif(not __import__("pathlib").Path("/usr/lib/python3/dist-packages/plotly").exists(),
                    reason="Debian python3-plotly missing (judgebench setup)")
def test_plotly_figure_is_rendered(renderer) -> None:  # type: ignore[no-untyped-def]
    from judgebench.execution.run_answer import execute_answer
    from judgebench.execution.sandbox import Sandbox, SandboxUnavailable

    try:
        sandbox = Sandbox()
    except SandboxUnavailable as exc:
        pytest.skip(str(exc))
    answer = ("```python\nimport plotly.graph_objects as go\n"
              "fig = go.Figure(go.Bar(x=['a', 'b'], y=[3, 3], marker_color='#ff0000'))\nfig.show()\n```")
    done = execute_answer(answer, sandbox, renderer)
    assert done.status == "ok" and done.record is not None and done.record.screenshot is not None
    assert (255, 0, 0) in colours(done.record.screenshot.data)
