"""Loaded by the sandboxed Python (PYTHONPATH) to capture visual output without a display.

- Matplotlib: figures are saved to /work/figure_<n>.png when shown and when the program exits.
- Plotly: `fig.show()` writes /work/plotly_figure.html (plotly.js inline), rendered by judgebench.
- PyGame (SDL dummy video driver): the display is saved to /work/pygame_frame.png on frame
  JB_PYGAME_CAPTURE_FRAME and at exit; after JB_PYGAME_MAX_FRAMES frames the game loop is ended, since
  games never stop on their own.
This file runs inside the sandbox only; it imports nothing until the program does.
"""

import atexit
import builtins
import os
import sys

_saved_figures = set()


def _save_figures(plt):
    for number in plt.get_fignums():
        if number not in _saved_figures:
            plt.figure(number).savefig(f"/work/figure_{number}.png", dpi=80)
            _saved_figures.add(number)


def _patch_matplotlib(module):
    plt = module

    def show(*args, **kwargs):  # no display: showing a figure means saving it
        _save_figures(plt)

    plt.show = show
    atexit.register(lambda: _save_figures(plt))


def _patch_pygame(module):
    display = module.display
    capture_at = int(os.environ.get("JB_PYGAME_CAPTURE_FRAME", "30"))
    stop_after = int(os.environ.get("JB_PYGAME_MAX_FRAMES", "90"))
    state = {"frames": 0}

    def save():
        surface = display.get_surface()
        if surface is not None:
            module.image.save(surface, "/work/pygame_frame.png")

    def counted(original):
        def wrapper(*args, **kwargs):
            result = original(*args, **kwargs)
            state["frames"] += 1
            if state["frames"] == capture_at:
                save()
            if state["frames"] >= stop_after:
                save()
                raise SystemExit(0)
            return result
        return wrapper

    display.flip = counted(display.flip)
    display.update = counted(display.update)
    atexit.register(lambda: save() if state["frames"] and state["frames"] < capture_at else None)


def _patch_plotly(module):
    def show(fig, *args, **kwargs):  # no browser in the sandbox: the figure becomes a self-contained page
        fig.write_html("/work/plotly_figure.html", include_plotlyjs=True, full_html=True)

    module.show = show


_original_import = builtins.__import__
_patched = set()


def _import(name, globals=None, locals=None, fromlist=(), level=0):
    module = _original_import(name, globals, locals, fromlist, level)
    for target, patch in (("matplotlib.pyplot", _patch_matplotlib), ("pygame", _patch_pygame),
                          ("plotly.io", _patch_plotly)):
        loaded = sys.modules.get(target)
        # Patch only once the module has finished initialising, or its own definitions overwrite ours.
        if target not in _patched and loaded is not None and not getattr(loaded.__spec__, "_initializing", False):
            _patched.add(target)
            patch(loaded)
    return module


builtins.__import__ = _import
