"""Every overlay runs in Chrome 103, the browser of OBS 28–30's browser sources: stylelint
(stylelint-no-unsupported-browser-features) over the overlays' CSS and ESLint
(eslint-plugin-compat) over their JS, with the features those plugins miss listed in
.ci/node/chrome-103.mjs. The node tools come from `npm ci --prefix .ci/node` (.ci/run); the
product itself has no build step. Under CI a missing tool fails the run instead of skipping."""
from __future__ import annotations

import functools
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.support import ROOT

NODE_DIR = ROOT / ".ci" / "node"
BIN = NODE_DIR / "node_modules" / ".bin"
# All of the overlays' own CSS and JS: every graphic's files, the shared client and blocks, the
# themes and fonts they load. The panel (static/control/) may use a current browser.
CSS = ["static/overlays/*.css", "static/lib/*.css", "static/themes/*.css", "static/fonts/*.css"]
JS = ["static/overlays/*.js", "static/lib/*.js",
      "static/ograf/*.js"]  # the uploaded graphics' host and frame runtime run in the same browser source
FLOOR = "OBS 28–30 run browser sources in Chrome 103"


def tool(name: str) -> Path:
    path = BIN / name
    if not path.exists() or not shutil.which("node"):
        message = f"{name} is not installed: run `npm ci --prefix .ci/node` (Node.js and npm needed)"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    return path


def run(name: str, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    config = NODE_DIR / ("stylelint.config.mjs" if name == "stylelint" else "eslint.config.mjs")
    return subprocess.run([str(tool(name)), "--config", str(config), *args], cwd=ROOT, input=stdin,
                          capture_output=True, text=True, timeout=180)


@functools.cache
def banned() -> dict:
    """The tables of chrome-103.mjs, as the configs see them."""
    done = subprocess.run(["node", "--input-type=module", "-e",
                           "const m = await import('./chrome-103.mjs'); console.log(JSON.stringify({css: m.css, js: m.js}))"],
                          cwd=NODE_DIR, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def reported(done: subprocess.CompletedProcess) -> dict[int, list[str]]:
    """Line → messages, from either tool's JSON report (stylelint writes it to stderr when it
    finds something)."""
    text = done.stdout.strip() or done.stderr.strip()
    found: dict[int, list[str]] = {}
    for result in json.loads(text):
        for problem in result.get("warnings", []) + result.get("messages", []):
            found.setdefault(problem["line"], []).append(problem.get("text") or problem.get("message"))
    return found


def test_the_overlays_css_uses_nothing_chrome_103_lacks():
    tool("stylelint")
    done = run("stylelint", *CSS)
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_overlays_js_uses_nothing_chrome_103_lacks():
    tool("eslint")
    done = run("eslint", "--max-warnings", "0", *JS)
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_css_check_catches_what_chrome_103_lacks():
    """One line per banned feature, each must be reported; the first is the color-mix() that
    made the correct club tables colourless in OBS 30, then what only doiuse knows."""
    tool("stylelint")
    table = banned()["css"]
    lines = [
        ".ctb-glow { background: linear-gradient(160deg, color-mix(in srgb, var(--c-ok) 42%, transparent), "
        "color-mix(in srgb, var(--c-ok) 14%, transparent)); }",
        ".a { & .b { color: red; } }",                      # nesting (doiuse)
        "@media (width >= 600px) { .a { color: red; } }",   # range syntax (doiuse)
        ".a { height: 100dvh; }",                           # dynamic viewport units (doiuse)
        ".a { mask-image: linear-gradient(red, blue); }",   # no -webkit- twin (chgk/webkit-twin)
    ]
    lines += [f".f{i} {{ width: {name}(1px, 2px); }}" for i, name in enumerate(table["functions"])]
    lines += [f".p{i} {{ {name}: inherit; }}" for i, name in enumerate(table["properties"])]
    lines += [f"@{name} {{ .a {{ color: red; }} }}" for name in table["atRules"]]
    lines += [f".u{i} {{ width: 2{unit}; }}" for i, unit in enumerate(table["units"])]
    lines += [f".a:{name} {{ color: red; }}" for name in table["pseudoClasses"]]
    lines += [f".a::{name} {{ color: red; }}" for name in table["pseudoElements"]]
    lines += [f"@media ({name}: fast) {{ .a {{ color: red; }} }}" for name in table["mediaFeatures"]]
    lines += ["li:nth-child(2 of .x) { color: red; }"]
    done = run("stylelint", "-f", "json", "--stdin-filename", "static/overlays/probe.css",
               stdin="\n".join(lines) + "\n")
    assert done.returncode == 2, done.stdout + done.stderr
    found = reported(done)
    missed = [line for n, line in enumerate(lines, 1) if n not in found]
    assert not missed, f"not reported: {missed}"
    assert any("color-mix() needs Chrome 111; " + FLOOR in m for m in found[1]), found[1]


def test_the_css_check_keeps_what_chrome_103_has():
    tool("stylelint")
    fine = (".a { inset: 0; aspect-ratio: 16 / 9; gap: 4px; column-gap: 12px; width: clamp(1px, 2vw, 3px);\n"
            "  -webkit-mask-image: linear-gradient(red, blue); mask-image: linear-gradient(red, blue);\n"
            "  transform: translate(1px) rotate(2deg) scale(1.1); background: rgba(0, 0, 0, 0.42); }\n"
            ".a:is(.b, .c):where(.d) { color: red; }\n@layer base { .e { color: red; } }\n")
    done = run("stylelint", "--stdin-filename", "static/overlays/probe.css", stdin=fine)
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_js_check_catches_what_chrome_103_lacks():
    tool("eslint")
    table = banned()["js"]
    lines = ["new Highlight();"]  # eslint-plugin-compat's own (Chrome 105)
    lines += [f"list.{name}(x);" for name in table["properties"]]
    lines += [f"{name}(x);" for name in table["statics"]]
    done = run("eslint", "-f", "json", "--stdin", "--stdin-filename", "static/overlays/probe.js",
               stdin="\n".join(lines) + "\n")
    assert done.returncode == 1, done.stdout + done.stderr
    found = reported(done)
    missed = [line for n, line in enumerate(lines, 1) if n not in found]
    assert not missed, f"not reported: {missed}"
    assert any(".toSorted() needs Chrome 110; " + FLOOR in m for m in found[2]), found[2]

    # Syntax newer than ES2022 does not parse.
    for source in ["const r = /[\\p{L}--\\p{N}]/v;\n", 'import data from "./d.json" with { type: "json" };\n']:
        done = run("eslint", "--stdin", "--stdin-filename", "static/lib/probe.js", stdin=source)
        assert done.returncode == 1 and "Parsing error" in done.stdout, source + done.stdout
