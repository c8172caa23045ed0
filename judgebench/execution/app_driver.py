"""Runs inside the sandbox (never imported by judgebench): serve a Streamlit or Gradio app on the
sandbox's own loopback, wait until it answers, screenshot it with headless Chromium, stop it.

argv: <streamlit|gradio> <port> <screenshot path>. Server output is echoed to stdout/stderr.
"""

import os
import socket
import subprocess
import sys
import time

kind, port, shot = sys.argv[1], int(sys.argv[2]), sys.argv[3]
env = dict(os.environ, GRADIO_SERVER_NAME="127.0.0.1", GRADIO_SERVER_PORT=str(port), GRADIO_ANALYTICS_ENABLED="False",
           STREAMLIT_BROWSER_GATHER_USAGE_STATS="false")
if kind == "streamlit":
    command = [sys.executable, "-m", "streamlit", "run", "main.py", "--server.port", str(port), "--server.address",
               "127.0.0.1", "--server.headless", "true", "--global.developmentMode", "false"]
else:
    command = [sys.executable, "main.py"]
log = open("/tmp/app.log", "w+")  # noqa: SIM115 - lives as long as the server
server = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env=env)
deadline = time.monotonic() + float(os.environ.get("JB_APP_START_S", "45"))
ready = False
while time.monotonic() < deadline and server.poll() is None:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
        ready = True
        break
    except OSError:
        time.sleep(0.2)
# Apps render over a websocket after load, so readiness is the framework's own "done" state, polled
# in a real browser (Playwright driving Debian's Chromium), not a fixed sleep.
# "Done" = the app's root exists, no skeleton placeholder is left, and its DOM has not changed for
# 800 ms (Streamlit streams elements in as the script runs).
STABLE = """() => {
  const root = document.querySelector(ROOT);
  if (!root || document.querySelector('[data-testid="stSkeleton"]')) return false;
  const size = root.innerHTML.length, now = performance.now();
  if (window.__jbSize !== size) { window.__jbSize = size; window.__jbSince = now; return false; }
  return now - window.__jbSince > 800;
}"""
READY = {"streamlit": STABLE.replace("ROOT", "'[data-testid=\"stApp\"]'"),
         "gradio": STABLE.replace("ROOT", "'.gradio-container'")}
status = 0
if ready:
    try:
        from playwright.sync_api import sync_playwright

        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path="/usr/bin/chromium", headless=True, args=[
                "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                "--disable-background-networking"])
            page = browser.new_page(viewport={"width": 1024, "height": 768})
            page.on("console", lambda m: print("console:", m.text, file=sys.stderr) if m.type == "error" else None)
            page.goto(f"http://127.0.0.1:{port}/", wait_until="load", timeout=30000)
            page.wait_for_function(READY[kind], timeout=30000, polling=200)
            page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
            page.screenshot(path=shot)
            browser.close()
    except Exception as exc:  # a page that never becomes ready still gets reported, with its server log
        print(f"screenshot failed: {type(exc).__name__}: {str(exc)[:500]}", file=sys.stderr)
        status = 3
else:
    print("the app did not start listening" + (f" (exit {server.returncode})" if server.poll() is not None else ""),
          file=sys.stderr)
    status = 2
if server.poll() is None:
    server.terminate()
    try:
        server.wait(timeout=5)
    except subprocess.TimeoutExpired:
        server.kill()
log.seek(0)
text = log.read()
print(text[-20000:], file=sys.stderr if status else sys.stdout)
sys.exit(status)
