"""Moves words from the old hand-written tables into the gettext catalogs (one-off, and for merges).

The tables were `static/control/i18n.js` (panel), `static/lib/i18n.js` (on-air), `static/lib/league.js`
(league graphics) and `overlay/season/texts.py` (league admin pages, exports). A branch written
before the catalogs may still add words to them; read its tables with

    python tools/i18n_tables.py --ref BRANCH   # adds the tables' keys missing from the catalogs
    pybabel extract -F babel.cfg -o overlay/i18n/locales/messages.pot .
    pybabel update -i overlay/i18n/locales/messages.pot -d overlay/i18n/locales --no-fuzzy-matching

Without --ref the tables are read from the working tree (where they no longer exist once merged).
Keys already in a catalog are left alone (the catalog wins); the keys added are printed.
Needs `node` to read the JS object literals exactly as a browser would.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po, write_po

ROOT = Path(__file__).resolve().parent.parent
LOCALES = ROOT / "overlay/i18n/locales"
LANGS = ("ru", "uk", "en")

# table file → (how its object literals are found, the key prefix in the catalogs)
JS_TABLES = {
    "static/control/i18n.js": ({"ru": "const ru = {", "uk": "const uk = {", "en": "const en = {"}, ""),
    "static/lib/i18n.js": ("const STRINGS = {", "air."),
    "static/lib/league.js": ("const STRINGS = {", "air.league_"),
}


def _object_literal(src: str, start: str) -> str:
    i = src.index("{", src.index(start))
    depth = 0
    for k in range(i, len(src)):
        depth += {"{": 1, "}": -1}.get(src[k], 0)
        if depth == 0:
            return src[i:k + 1]
    raise ValueError(f"unbalanced object after {start!r}")


def _source(path: str, ref: str | None) -> str | None:
    if ref is None:
        file = ROOT / path
        return file.read_text(encoding="utf-8") if file.exists() else None
    shown = subprocess.run(["git", "show", f"{ref}:{path}"], cwd=ROOT, capture_output=True, text=True)
    return shown.stdout if shown.returncode == 0 else None


def read_tables(ref: str | None = None) -> dict[str, dict[str, str]]:
    """{lang: {catalog key: text}} from whichever old tables exist (in `ref`, else on disk)."""
    words: dict[str, dict[str, str]] = {lang: {} for lang in LANGS}
    script = ["const out = {};"]
    for path, (start, prefix) in JS_TABLES.items():
        src = _source(path, ref)
        if src is None or not all(s in src for s in (start.values() if isinstance(start, dict) else [start])):
            continue  # gone, or already the catalog-reading module
        if isinstance(start, dict):
            body = "{" + ", ".join(f"{lang}: {_object_literal(src, s)}" for lang, s in start.items()) + "}"
        else:
            body = _object_literal(src, start)
        script.append(f"out[{json.dumps(prefix)}] = {body};")
    script.append("console.log(JSON.stringify(out));")
    with tempfile.NamedTemporaryFile("w", suffix=".js", delete=False, encoding="utf-8") as f:
        f.write("\n".join(script))
    found = json.loads(subprocess.run(["node", f.name], check=True, capture_output=True, text=True).stdout)
    Path(f.name).unlink()
    for prefix, tables in found.items():
        for lang in LANGS:
            words[lang].update({prefix + k: v for k, v in tables.get(lang, {}).items()})
    texts = _source("overlay/season/texts.py", ref)
    if texts is not None:
        namespace: dict = {}
        exec(compile(texts, "texts.py", "exec"), namespace)  # a plain module of dicts
        for lang in LANGS:
            words[lang].update({"league." + k: v for k, v in namespace["STRINGS"][lang].items()})
    return words


def main() -> int:
    parser = argparse.ArgumentParser(description="Move words from the old tables into the catalogs.")
    parser.add_argument("--ref", default=None, help="a git branch or commit whose tables to read")
    words = read_tables(parser.parse_args().ref)
    added = 0
    for lang in LANGS:
        path = LOCALES / lang / "LC_MESSAGES" / "messages.po"
        if path.exists():
            with path.open("rb") as f:
                catalog = read_po(f, locale=lang)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            catalog = Catalog(locale=lang, project="chgk-overlay", version="0.1", copyright_holder="chgk-overlay",
                              msgid_bugs_address="", fuzzy=False)
        for key, text in words[lang].items():
            if key not in catalog:
                catalog.add(key, text)
                print(f"{lang}: {key} = {text}")
                added += 1
        with path.open("wb") as f:
            write_po(f, catalog, width=0, sort_output=False)
    print(f"{added} words added to {', '.join(LANGS)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
