"""A non-editable install must carry templates/, static/, the word catalogs and the control package."""
from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

from tests.support import ROOT


def test_wheel_contains_templates_static_and_control(tmp_path: Path):
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
                    "-w", str(tmp_path), str(ROOT)], check=True, cwd=tmp_path)
    (wheel,) = tmp_path.glob("chgk_overlay-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    for required in ("overlay/web/app.py", "overlay/rules/tv.py", "control/__init__.py",
                     "overlay/templates/index.html", "overlay/templates/control/login.html",
                     "overlay/templates/overlays/scoreboard.html", "overlay/static/lib/client.js",
                     "overlay/i18n/locales/messages.pot", "overlay/i18n/locales/ru/LC_MESSAGES/messages.po",
                     "overlay/i18n/locales/uk/LC_MESSAGES/messages.po", "overlay/i18n/locales/en/LC_MESSAGES/messages.po",
                     "overlay/ograf/manifest_schema.py",  # the OGraf library validates manifests offline
                     "overlay/ograf/openapi.yaml", "overlay/static/ograf/frame.js"):
        assert required in names, required
    assert any(n.startswith("overlay/static/vendor/socket.io/") for n in names)
    entry = next(n for n in names if n.endswith("entry_points.txt"))
    assert "chgk-overlay = overlay.cli:main" in zipfile.ZipFile(wheel).read(entry).decode()


def test_resources_found_from_a_checkout():
    from overlay.web.app import resource_dir
    assert (resource_dir("templates") / "index.html").is_file()
    assert (resource_dir("static") / "lib").is_dir()
