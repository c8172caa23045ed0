"""Code extraction from model answers: upstream heuristics with their flaws fixed."""

from __future__ import annotations

import pytest

from judgebench.execution.extract import code_blocks, extract, guess_language


def fenced(tag: str, code: str) -> str:
    return f"Here you go.\n\n```{tag}\n{code}\n```\n\nHope it helps."


@pytest.mark.parametrize(("code", "language"), [
    ("<!DOCTYPE html>\n<html><body>hi</body></html>", "html"),
    ("<template><div/></template>\n<script>export default {}</script>", "vue"),
    ("graph TD; A-->B", "mermaid"),
    ("#include <stdio.h>\nint main(void) { return 0; }", "c"),
    ("#include <iostream>\nint main() { std::cout << 1; }", "cpp"),
    ("public class Main { public static void main(String[] a) {} }", "java"),
    ("package main\nimport \"fmt\"\nfunc main() { fmt.Println(1) }", "go"),
    ("fn main() { println!(\"x\"); }", "rust"),
    ("import React from 'react';\nexport default function App() { return <div/>; }", "react"),
    ("const n: number = 3;\nconsole.log(n);", "typescript"),
    ("def f(x):\n    return x + 1\nprint(f(1))", "python"),
    ("const xs = [1, 2].map(x => x * 2);\nconsole.log(xs);", "javascript"),
])
def test_untagged_blocks_are_recognised(code: str, language: str) -> None:
    assert guess_language(code) == language
    found = extract(fenced("", code))
    assert found is not None and found.language == language


def test_tags_win_over_guessing() -> None:
    found = extract(fenced("py", "print('hi')"))
    assert found is not None and found.language == "python" and found.environment == "Python Runner"


def test_streamlit_and_gradio_need_a_real_import() -> None:
    assert extract(fenced("python", "import streamlit as st\nst.title('x')")).environment == "Streamlit"
    assert extract(fenced("python", "from gradio import Interface\nInterface(fn=str)")).environment == "Gradio"
    # A variable named st or gr, or the word in a string or comment, is not Streamlit or Gradio.
    plain = "st = [1, 2]\ngr = sum(st)  # not streamlit\nprint('import gradio', gr)"
    assert extract(fenced("python", plain)).environment == "Python Runner"


def test_pygame_and_page_javascript_environments() -> None:
    assert extract(fenced("python", "import pygame\npygame.init()")).environment == "PyGame"
    page_js = "const c = document.getElementById('c').getContext('2d');"
    assert extract(fenced("js", page_js)).environment == "JavaScript (page)"
    assert extract(fenced("js", "console.log(1 + 1);")).environment == "JavaScript Runner"


def test_main_block_is_the_longest_runnable_one() -> None:
    answer = ("Install:\n```bash\npip install numpy\n```\nCode:\n```python\nimport numpy as np\n"
              "print(np.arange(3).sum())\n```\nExample:\n```python\nprint(1)\n```")
    found = extract(answer)
    assert found is not None and "np.arange" in found.code and found.blocks == 3
    assert found.dependencies == ("numpy",)


def test_dependencies_exclude_the_standard_library() -> None:
    found = extract(fenced("python", "import os, json\nimport requests\nfrom PIL import Image\n"))
    assert found is not None and found.dependencies == ("pillow", "requests")


def test_html_page_with_separate_css_and_js_blocks_is_assembled() -> None:
    answer = ("```html\n<html><head></head><body><div id='x'></div></body></html>\n```\n"
              "```css\n#x { color: red; }\n```\n```javascript\ndocument.getElementById('x').textContent = 'hi';\n```")
    found = extract(answer)
    assert found is not None and found.language == "html"
    assert "<style>" in found.code and "color: red" in found.code and "textContent" in found.code


def test_no_runnable_code_is_none_not_an_error() -> None:
    assert extract("I cannot help with that.") is None
    assert extract("```text\njust prose in a box\n```") is None
    assert [b.language for b in code_blocks("```json\n{\"a\": 1}\n```")] == [None]


def test_unterminated_fence_still_counts() -> None:
    found = extract("```python\nprint('cut off')")
    assert found is not None and found.code == "print('cut off')"
