"""From a model's answer to something runnable: code blocks, the main block, language, environment,
declared dependencies.

Kept from the upstream heuristics: fenced blocks, language tags, environment from imports. Fixed:
untagged blocks are considered (their language is inferred from content); Streamlit, Gradio and
PyGame are detected from imports only, never from a variable that happens to be called `st`/`gr`;
an answer with no runnable code is reported as such instead of being skipped.
"""

from __future__ import annotations

import ast
import re
import sys
from dataclasses import dataclass

FENCE = re.compile(r"(?P<fence>```+|~~~+)[ \t]*(?P<tag>[^\n`]*)\n(?P<body>.*?)(?:\n(?P=fence)[ \t]*(?:\n|$)|\Z)",
                   re.DOTALL)

TAGS = {
    "python": "python", "py": "python", "python3": "python",
    "javascript": "javascript", "js": "javascript", "jsx": "react", "tsx": "react", "node": "javascript",
    "typescript": "typescript", "ts": "typescript",
    "html": "html", "htm": "html", "vue": "vue", "mermaid": "mermaid",
    "c": "c", "cpp": "cpp", "c++": "cpp", "cc": "cpp", "cxx": "cpp",
    "java": "java", "go": "go", "golang": "go", "rust": "rust", "rs": "rust",
}
NOT_CODE = {"", "text", "txt", "bash", "sh", "shell", "console", "plaintext", "json", "yaml", "yml", "toml", "css",
            "output", "diff", "markdown", "md", "sql", "ini", "xml", "csv"}

# environment per language, and the environments that render visually
ENVIRONMENTS = {
    "python": "Python Runner", "javascript": "JavaScript Runner", "typescript": "JavaScript Runner",
    "c": "C Runner", "cpp": "C++ Runner", "java": "Java Runner", "go": "Golang Runner", "rust": "Rust Runner",
    "html": "HTML", "react": "React", "vue": "Vue", "mermaid": "Mermaid",
}
WEB_KIND = {"HTML": "html", "React": "react", "Vue": "vue", "Mermaid": "mermaid", "JavaScript (page)": "javascript"}


@dataclass(frozen=True)
class CodeBlock:
    tag: str
    code: str
    language: str | None  # None: not a runnable language


@dataclass(frozen=True)
class ExtractedCode:
    language: str
    environment: str
    code: str
    dependencies: tuple[str, ...]
    blocks: int  # code blocks found in the answer

    @property
    def web_kind(self) -> str | None:
        return WEB_KIND.get(self.environment)


def code_blocks(answer: str) -> list[CodeBlock]:
    blocks = []
    for match in FENCE.finditer(answer):
        tag = match.group("tag").strip().split()[0].lower() if match.group("tag").strip() else ""
        body = match.group("body").strip("\n")
        if not body.strip():
            continue
        if tag in NOT_CODE and tag:
            blocks.append(CodeBlock(tag, body, None))
            continue
        language = TAGS.get(tag) or guess_language(body)
        if language == "javascript" and looks_like_react(body):
            language = "react"
        blocks.append(CodeBlock(tag, body, language))
    return blocks


def looks_like_react(code: str) -> bool:
    return bool(re.search(r"from\s+['\"]react['\"]|React\.|useState\(|ReactDOM", code)) and bool(
        re.search(r"<[A-Za-z][\w.]*[\s/>]", code))


def guess_language(code: str) -> str | None:
    """Content-based guess for untagged blocks; None when it does not look like a program."""
    head = code.lstrip()[:4000]
    lowered = head.lower()
    if lowered.startswith(("<!doctype html", "<html")) or re.search(r"<body[\s>]", lowered):
        return "html"
    if "<template>" in head and "<script" in head:
        return "vue"
    if re.match(r"\s*(graph|flowchart)\s+(TD|TB|BT|RL|LR)\b|\s*(sequenceDiagram|classDiagram|stateDiagram|"
                r"erDiagram|gantt|pie|mindmap|journey)\b", head):
        return "mermaid"
    if re.search(r"^\s*#include\s*<", head, re.MULTILINE):
        return "cpp" if re.search(r"<iostream>|std::|\bclass\b|<vector>|using namespace", head) else "c"
    if re.search(r"\bpublic\s+(?:final\s+)?class\s+\w+", head) and "static void main" in head:
        return "java"
    if re.search(r"^\s*package\s+main\b", head, re.MULTILINE) and "func main(" in head:
        return "go"
    if re.search(r"\bfn\s+main\s*\(\s*\)", head):
        return "rust"
    if looks_like_react(head):
        return "react"
    if re.search(r":\s*(number|string|boolean)\b|\binterface\s+\w+\s*\{", head) and re.search(
            r"\b(const|let|function)\b", head):
        return "typescript"
    if re.search(r"^\s*(def |class |import |from \w+ import |print\()", head, re.MULTILINE):
        try:
            ast.parse(code)
            return "python"
        except SyntaxError:
            pass
    if re.search(r"\b(console\.log|document\.|function\s+\w+\s*\(|const\s+\w+\s*=|let\s+\w+\s*=|=>)", head):
        return "javascript"
    return None


def _python_imports(code: str) -> set[str]:
    """Top-level modules imported by real import statements (parsed, not pattern-matched)."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        names = re.findall(r"^\s*(?:import|from)\s+([A-Za-z_]\w*)", code, re.MULTILINE)
        return set(names)
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module.split(".")[0])
    return found


PIP_NAMES = {"cv2": "opencv-python", "PIL": "pillow", "sklearn": "scikit-learn", "bs4": "beautifulsoup4",
             "yaml": "pyyaml"}


def python_environment(code: str) -> str:
    imports = _python_imports(code)
    if "streamlit" in imports:
        return "Streamlit"
    if "gradio" in imports:
        return "Gradio"
    if "pygame" in imports:
        return "PyGame"
    return "Python Runner"


def _js_imports(code: str) -> set[str]:
    names = re.findall(r"(?:from\s+|require\(\s*|import\s+)['\"]([^'\"./][^'\"]*)['\"]", code)
    return {n if n.startswith("@") else n.split("/")[0] for n in names}


def dependencies(language: str, code: str, answer: str = "") -> tuple[str, ...]:
    deps: set[str] = set()
    if language == "python":
        deps = {PIP_NAMES.get(m, m) for m in _python_imports(code) if m not in sys.stdlib_module_names}
        deps.update(re.findall(r"pip3?\s+install\s+([A-Za-z0-9_.\-\[\]]+)", answer))
    elif language in ("javascript", "typescript", "react", "vue"):
        deps = _js_imports(code) - {"react", "react-dom", "vue"}
        deps.update(re.findall(r"npm\s+(?:install|i)\s+(?:--save\s+)?([@A-Za-z0-9_.\-/]+)", answer))
    return tuple(sorted(deps))


def environment_for(language: str, code: str) -> str:
    if language == "python":
        return python_environment(code)
    if language == "javascript" and re.search(r"\bdocument\.|\bwindow\.|getContext\(|requestAnimationFrame",
                                              code):
        return "JavaScript (page)"
    return ENVIRONMENTS[language]


def extract(answer: str) -> ExtractedCode | None:
    """The main runnable block (the longest, preferring web pages and programs over snippets), or None."""
    blocks = code_blocks(answer)
    runnable = [b for b in blocks if b.language is not None]
    if not runnable:
        return None
    main = max(runnable, key=lambda b: len(b.code))
    language = main.language or "python"
    code = main.code
    if language == "html":  # a page split over several blocks: inline the CSS and JS blocks
        css = "\n".join(b.code for b in blocks if b.tag == "css")
        js = "\n".join(b.code for b in runnable if b.language == "javascript" and b is not main)
        if css and "<style" not in code:
            code = code.replace("</head>", f"<style>\n{css}\n</style></head>", 1) if "</head>" in code else \
                f"<style>\n{css}\n</style>\n{code}"
        if js and "<script" not in code:
            code = code.replace("</body>", f"<script>\n{js}\n</script></body>", 1) if "</body>" in code else \
                f"{code}\n<script>\n{js}\n</script>"
    return ExtractedCode(language, environment_for(language, code), code, dependencies(language, code, answer),
                         len(blocks))
