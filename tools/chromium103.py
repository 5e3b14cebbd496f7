"""Chromium 103, the browser of OBS 28–30's browser sources, for tests/browser/test_chromium103.py.

    python tools/chromium103.py [--dir FOLDER]   # prints the binary's path

The binary comes from the npm package @sparticuz/chromium 103.0.0 (a headless build for
serverless machines): `npm pack` fetches the tarball, `bin/chromium.br` is the brotli-compressed
binary and `bin/swiftshader.tar.br` its software GL libraries, unpacked beside it. The package's
`aws.tar.br` (Amazon Linux libraries, Open Sans and a fonts.conf pointing at them) is left out:
the binary then reads the system's /etc/fonts and draws with the same fonts as the system
Chromium, so the two can be compared. Idempotent: a binary already in the folder that reports
103.0.5058.0 is kept. Needs npm and Python's `brotli` (the test extra).
"""
from __future__ import annotations

import argparse
import io
import os
import re
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

PACKAGE = "@sparticuz/chromium@103.0.0"
VERSION = "103.0.5058.0"
ENV = "CHGK_CHROMIUM_103"  # the binary's path, when it lives elsewhere than the cache folder
CACHE = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "chgk-overlay" / "chromium-103"
UA_PAGE = "data:text/html,<script>document.write(navigator.userAgent)</script>"


def binary() -> Path:
    """Where the tests look for it: $CHGK_CHROMIUM_103, else the cache folder."""
    return Path(os.environ.get(ENV) or CACHE / "chromium")


def version(path: Path) -> str | None:
    """The version the binary reports in its user agent (the headless build has no --version)."""
    if not path.is_file():
        return None
    try:
        done = subprocess.run([str(path), "--headless", "--no-sandbox", "--disable-gpu", "--dump-dom", UA_PAGE],
                              capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    found = re.search(r"HeadlessChrome/([\d.]+)", done.stdout)
    return found.group(1) if found else None


def unbrotli(tgz: Path, member: str) -> bytes:
    import brotli  # the test extra; only the install needs it

    with tarfile.open(tgz) as tar:
        packed = tar.extractfile(f"package/{member}")
        if packed is None:
            raise SystemExit(f"{PACKAGE}: {member} is not a file")
        return brotli.decompress(packed.read())


def install(folder: Path) -> Path:
    path = folder / "chromium"
    if version(path) == VERSION:
        return path
    folder.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        done = subprocess.run(["npm", "pack", PACKAGE, "--pack-destination", tmp, "--silent"],
                              capture_output=True, text=True, timeout=600)
        if done.returncode != 0:
            raise SystemExit(f"npm pack {PACKAGE} failed: {done.stderr.strip()}")
        tgz = Path(tmp) / done.stdout.strip().splitlines()[-1]
        with tarfile.open(fileobj=io.BytesIO(unbrotli(tgz, "bin/swiftshader.tar.br"))) as libs:
            libs.extractall(folder, filter="data")
        part = folder / "chromium.part"
        part.write_bytes(unbrotli(tgz, "bin/chromium.br"))
        part.chmod(0o755)
        part.replace(path)  # never a half-written binary under the name the tests look for
    found = version(path)
    if found != VERSION:
        raise SystemExit(f"{path} reports {found}, not HeadlessChrome {VERSION}")
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", type=Path, default=CACHE, help=f"where to unpack it (default {CACHE})")
    print(install(parser.parse_args().dir))


if __name__ == "__main__":
    sys.exit(main())
