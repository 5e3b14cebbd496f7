"""The Companion module's own tests (companion/test/*.test.js, node's test runner) as part of the
README's pytest command: they start a real server, run the module's entry point in a child
process as Companion does, press its actions and read back its state, feedbacks and variables.

They need `npm ci --prefix companion` (which also brings node 22, the runtime
@companion-module/base 2.x is made for, as the npm package `node`). Without it the test is skipped
locally; under CI=true it fails instead."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

MODULE = Path(__file__).resolve().parents[2] / "companion"
NODE = MODULE / "node_modules" / ".bin" / "node"


def test_companion_module_node_tests() -> None:
    if not (MODULE / "node_modules" / "@companion-module" / "base").is_dir() or not NODE.exists():
        if os.environ.get("CI") == "true":
            pytest.fail("companion/node_modules is missing: run `npm ci --prefix companion` (see .ci/run)")
        pytest.skip("companion/node_modules is missing: run `npm ci --prefix companion`")
    env = {**os.environ, "PYTHON": sys.executable}
    done = subprocess.run([str(NODE), "--test", "--test-concurrency=1", "test/*.test.js"], cwd=MODULE, env=env,
                          capture_output=True, text=True, timeout=900)
    output = done.stdout + done.stderr
    print(output[-20000:])
    assert done.returncode == 0, f"node --test failed ({done.returncode}):\n{output[-20000:]}"
