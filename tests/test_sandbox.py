"""The sandbox against hostile programs, and every language with a real program.

Each hostile case must be contained, reported with the right status, and leave the host and the
next run unaffected.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from judgebench.execution.languages import LANGUAGES, run_program
from judgebench.execution.sandbox import Limits, Sandbox, SandboxUnavailable

try:
    SANDBOX: Sandbox | None = Sandbox()
    REASON = ""
except SandboxUnavailable as exc:
    SANDBOX, REASON = None, str(exc)

pytestmark = pytest.mark.skipif(SANDBOX is None, reason=f"no working sandbox: {REASON}")


@pytest.fixture
def tmp_path() -> Path:
    """Work dirs under the sandbox's own root: pytest's tmp dirs are private to root (0700)."""
    assert SANDBOX is not None
    path = SANDBOX.new_workdir("test-")
    yield path
    import shutil

    shutil.rmtree(path, ignore_errors=True)


def py(code: str, tmp_path: Path, **limits: float) -> object:
    (tmp_path / "m.py").write_text(code)
    assert SANDBOX is not None
    return SANDBOX.run(["/usr/bin/python3", "m.py"], tmp_path, Limits(**limits))  # type: ignore[arg-type]


def assert_next_run_is_healthy(tmp_path: Path) -> None:
    assert SANDBOX is not None
    fresh = SANDBOX.new_workdir("next-")
    result = py("print('still fine')", fresh)
    assert result.status == "ok" and result.stdout == "still fine\n"  # type: ignore[attr-defined]


def sandbox_processes() -> list[int]:
    """Processes left running under the sandbox's throwaway uids (61000 and up)."""
    left = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                uid = os.stat(f"/proc/{entry}").st_uid
                state = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[0]
            except OSError:
                continue
            if 61000 <= uid < 61000 + 97 * 64 and state != "Z":  # zombies are dead, awaiting a reaper
                left.append(int(entry))
    return left


def test_trivial_program(tmp_path: Path) -> None:
    result = py("import sys; print('hello'); print('warn', file=sys.stderr)", tmp_path)
    assert result.status == "ok" and result.exit_code == 0
    assert result.stdout == "hello\n" and result.stderr == "warn\n"


def test_error_exit_is_an_error(tmp_path: Path) -> None:
    result = py("raise SystemExit(3)", tmp_path)
    assert result.status == "error" and result.exit_code == 3


def test_fork_bomb(tmp_path: Path) -> None:
    result = py("import os\nwhile True:\n    os.fork()", tmp_path, wall_s=10, processes=64)
    assert result.status in ("killed", "error", "timeout")
    assert "process limit" in result.detail or result.status == "timeout"
    time.sleep(0.2)
    assert sandbox_processes() == []
    assert_next_run_is_healthy(tmp_path)


def test_memory_hog(tmp_path: Path) -> None:
    result = py("chunks = []\nwhile True:\n    chunks.append(bytearray(50 * 2**20))", tmp_path, memory_mb=200)
    assert result.status == "memory"
    assert_next_run_is_healthy(tmp_path)


def test_infinite_loop_hits_the_wall_clock(tmp_path: Path) -> None:
    result = py("while True:\n    pass", tmp_path, wall_s=1.5)
    assert result.status == "timeout" and result.wall_s < 10
    assert_next_run_is_healthy(tmp_path)


def test_cpu_limit(tmp_path: Path) -> None:
    result = py("while True:\n    pass", tmp_path, wall_s=30, cpu_s=1)
    assert result.status == "timeout" and "CPU" in result.detail


def test_disk_filler(tmp_path: Path) -> None:
    one_file = py("f = open('big', 'wb')\nwhile True:\n    f.write(b'0' * 2**20)", tmp_path, file_size_mb=8)
    assert one_file.status == "error" and "File too large" in one_file.stderr
    assert SANDBOX is not None
    many = SANDBOX.new_workdir("many-")
    result = py("i = 0\nwhile True:\n    open(f'f{i}', 'wb').write(b'0' * 4 * 2**20)\n    i += 1", many,
                disk_mb=40, file_size_mb=8, wall_s=20)
    assert result.status == "killed" and "wrote over" in result.detail
    assert_next_run_is_healthy(tmp_path)


def test_no_network(tmp_path: Path) -> None:
    result = py("import socket\nsocket.create_connection(('127.0.0.1', 22), timeout=2)", tmp_path)
    assert result.status == "error"
    assert "unreachable" in result.stderr or "refused" in result.stderr


def test_host_home_and_secrets_are_out_of_reach(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-must-not-leak")
    home = Path.home()
    code = (f"import os\nprint(sorted(os.environ))\nprint(os.path.exists({str(home)!r}))\n"
            "print(open('/proc/1/environ','rb').read())\n")
    result = py(code, tmp_path)
    assert "sk-must-not-leak" not in result.stdout + result.stderr
    assert "OPENAI_API_KEY" not in result.stdout
    if str(home) not in ("/", "/work", "/tmp"):
        assert "\nFalse\n" in result.stdout


def test_writing_outside_the_work_dir_fails(tmp_path: Path) -> None:
    result = py("import os\nfor p in ('/usr/evil', '/etc/evil', '/evil'):\n    try:\n        open(p, 'w')\n"
                "        print('WROTE', p)\n    except OSError as e:\n        print('denied', p)\n", tmp_path)
    assert "WROTE" not in result.stdout and result.stdout.count("denied") == 3
    assert not Path("/usr/evil").exists() and not Path("/etc/evil").exists()


def test_cannot_signal_the_parent(tmp_path: Path) -> None:
    before = os.getpid()
    result = py("import os, signal\nfor pid in (1, os.getppid(), " + str(before) + "):\n    try:\n"
                "        os.kill(pid, signal.SIGKILL)\n    except OSError as e:\n        print('no', pid)\n", tmp_path)
    assert os.getpid() == before  # we are alive
    assert result.status in ("ok", "killed", "error")
    assert_next_run_is_healthy(tmp_path)


def test_gigabytes_of_output_are_cut_off(tmp_path: Path) -> None:
    result = py("import sys\nwhile True:\n    sys.stdout.write('x' * 65536)", tmp_path, output_bytes=200_000)
    assert result.status == "killed" and result.stdout_truncated
    assert len(result.stdout) == 200_000


def test_closed_stdout_and_sleep(tmp_path: Path) -> None:
    result = py("import os, time\nos.close(1)\nos.close(2)\ntime.sleep(60)", tmp_path, wall_s=1.5)
    assert result.status == "timeout" and result.wall_s < 10
    assert sandbox_processes() == []


def test_daemonised_child_does_not_survive(tmp_path: Path) -> None:
    result = py("import os, time\nif os.fork() == 0:\n    os.setsid()\n    time.sleep(120)\nprint('parent done')",
                tmp_path)
    assert result.status == "ok"
    time.sleep(0.2)
    assert sandbox_processes() == []


def test_files_produced_are_listed(tmp_path: Path) -> None:
    result = py("open('plot.png', 'wb').write(b'x' * 10)\nimport os\nos.makedirs('out')\n"
                "open('out/a.txt', 'w').write('a')", tmp_path)
    assert result.files == [("out/a.txt", 1), ("plot.png", 10)]


PROGRAMS = {
    "python": ("print(sum(range(10)))", "45\n"),
    "javascript": ("console.log([1, 2, 3].map(x => x * 2).join(','))", "2,4,6\n"),
    "typescript": ("const n: number = 21;\nconsole.log(n * 2);", "42\n"),
    "c": ('#include <stdio.h>\nint main(void) { printf("%d\\n", 6 * 7); return 0; }', "42\n"),
    "cpp": ('#include <iostream>\n#include <vector>\nint main() { std::vector<int> v{1, 2, 3};\n'
            '  std::cout << v.size() << std::endl; }', "3\n"),
    "java": ('public class Greeter {\n  public static void main(String[] args) {\n'
             '    System.out.println("hi " + (40 + 2));\n  }\n}', "hi 42\n"),
    "go": ('package main\nimport "fmt"\nfunc main() { fmt.Println("go", 1+1) }', "go 2\n"),
    "rust": ('fn main() { let v: Vec<i32> = (1..4).collect(); println!("{:?}", v); }', "[1, 2, 3]\n"),
}
BROKEN = {
    "typescript": "const n: number = 'not a number';\nconsole.log(n);",
    "c": "int main(void) { return undefined_name; }",
    "cpp": "int main() { std::cout << 1; }",
    "java": "public class Main { public static void main(String[] a) { int x = ; } }",
    "go": 'package main\nfunc main() { undefinedCall() }',
    "rust": "fn main() { let x: i32 = \"text\"; }",
}


@pytest.mark.parametrize("lang", sorted(PROGRAMS))
def test_every_language_runs_a_real_program(lang: str) -> None:
    if LANGUAGES[lang].missing():
        pytest.skip(f"{lang} toolchain missing: {LANGUAGES[lang].missing()} (run `judgebench setup`)")
    code, expected = PROGRAMS[lang]
    assert SANDBOX is not None
    result = run_program(SANDBOX, lang, code)
    assert result.ok, (result.phase, result.result and result.result.stderr)
    assert result.result is not None and result.result.stdout == expected


@pytest.mark.parametrize("lang", sorted(BROKEN))
def test_compile_errors_are_reported_as_such(lang: str) -> None:
    if LANGUAGES[lang].missing():
        pytest.skip(f"{lang} toolchain missing: {LANGUAGES[lang].missing()}")
    assert SANDBOX is not None
    result = run_program(SANDBOX, lang, BROKEN[lang])
    assert result.phase == "compile" and result.status == "error"
    assert result.result is not None and (result.result.stderr + result.result.stdout).strip()  # tsc: stdout


def test_runtime_error_in_a_compiled_language() -> None:
    assert SANDBOX is not None
    result = run_program(SANDBOX, "c", "#include <stdlib.h>\nint main(void) { abort(); }")
    assert result.phase == "run" and result.status == "killed"


def test_answer_to_execution_record() -> None:
    from judgebench.execution.run_answer import execute_answer

    answer = "Sure:\n```c\n#include <stdio.h>\nint main(void) { puts(\"ok\"); return 0; }\n```"
    done = execute_answer(answer, SANDBOX)
    assert done.status == "ok" and done.record is not None
    assert done.record.stdout == "ok\n" and done.record.success and done.record.environment == "C Runner"
    broken = execute_answer("```c\nint main(void) { return x; }\n```", SANDBOX)
    assert broken.status == "error" and broken.record is not None and not broken.record.success
    assert "[compilation failed]" in broken.record.stderr
    none = execute_answer("No code, sorry.", SANDBOX)
    assert none.status == "no_code" and none.record is None


HAVE = {name: Path(f"/usr/lib/python3/dist-packages/{name}").exists() for name in ("matplotlib", "pygame")}


@pytest.mark.skipif(not HAVE["matplotlib"], reason="Debian python3-matplotlib missing (judgebench setup)")
def test_matplotlib_figure_is_captured() -> None:
    from judgebench.execution.run_answer import execute_answer

    answer = ("```python\nimport matplotlib.pyplot as plt\nfig, ax = plt.subplots()\n"
              "ax.add_patch(plt.Rectangle((0, 0), 1, 1, color='#ff0000'))\nax.axis('off')\nplt.show()\n```")
    done = execute_answer(answer, SANDBOX)
    assert done.status == "ok" and done.record is not None and done.record.screenshot is not None
    image = done.record.screenshot.image().convert("RGB")
    assert image.getpixel((image.width // 2, image.height // 2)) == (255, 0, 0)


@pytest.mark.skipif(not HAVE["pygame"], reason="Debian python3-pygame missing (judgebench setup)")
def test_endless_pygame_loop_is_captured_and_stopped() -> None:
    from judgebench.execution.run_answer import execute_answer

    answer = ("```python\nimport pygame\npygame.init()\nscreen = pygame.display.set_mode((320, 240))\n"
              "while True:\n    for event in pygame.event.get():\n        pass\n"
              "    screen.fill((20, 200, 40))\n    pygame.display.flip()\n```")
    done = execute_answer(answer, SANDBOX)
    assert done.status == "ok", (done.detail, done.record and done.record.stderr)
    assert done.extracted is not None and done.extracted.environment == "PyGame"
    shot = done.record.screenshot.image().convert("RGB")  # type: ignore[union-attr]
    assert shot.size == (320, 240) and shot.getpixel((160, 120)) == (20, 200, 40)


def _apps_reason() -> str | None:
    from judgebench.execution.apps import apps_available

    return apps_available()


@pytest.mark.skipif(_apps_reason() is not None, reason=f"app frameworks unavailable: {_apps_reason()}")
@pytest.mark.parametrize(("framework", "code", "text"), [
    ("Streamlit", "import streamlit as st\nst.title('Quarterly sales')\nst.write('Hello from Streamlit')\n",
     "Streamlit"),
    ("Gradio", "import gradio as gr\ndemo = gr.Interface(fn=lambda s: s[::-1], inputs='text', outputs='text', "
               "title='Reverser')\ndemo.launch()\n", "Gradio"),
])
def test_app_frameworks_are_served_inside_the_sandbox_and_screenshotted(framework: str, code: str,
                                                                         text: str) -> None:
    from judgebench.execution.run_answer import execute_answer

    done = execute_answer(f"```python\n{code}```", SANDBOX)
    assert done.extracted is not None and done.extracted.environment == framework
    assert done.status == "ok", (done.detail, done.record and done.record.stderr[-1000:])
    image = done.record.screenshot.image().convert("L")  # type: ignore[union-attr]
    assert image.size == (1024, 768)
    dark = sum(1 for value in image.tobytes() if value < 100)
    assert dark > 500  # rendered text and widgets, not a blank or skeleton page
