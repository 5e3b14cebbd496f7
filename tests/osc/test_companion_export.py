"""docs/companion/chgk-rundown.companionconfig, the Companion page a user imports: every key
sends an address the server routes, and every variable a key shows is one the `companion`
preset sets."""
import json
import re
from pathlib import Path

from overlay.osc.config import PRESETS
from overlay.osc.routes import ROUTES, Action, route

EXPORT = Path(__file__).resolve().parents[2] / "docs" / "companion" / "chgk-rundown.companionconfig"


def test_the_page_export_drives_and_shows_the_rundown():
    page = json.loads(EXPORT.read_text(encoding="utf-8"))
    assert (page["version"], page["type"]) == (4, "page")
    connection, = page["instances"]
    assert page["instances"][connection]["instance_type"] == "generic-osc"
    set_by_preset = {m.group(1) for _, cue in PRESETS["companion"].cues
                     for m in [re.match(r"/custom-variable/(\w+)/value", cue["address"])] if m}
    sent, shown = set(), set()
    for row in page["page"]["controls"].values():
        for key in row.values():
            shown |= set(re.findall(r"\$\(custom:(\w+)\)", key["style"]["text"]))
            for action in key["steps"]["0"]["action_sets"]["down"]:
                assert action["instance"] == connection
                path = action["options"]["path"]
                args = [action["options"]["string"]] if action["action"] == "send_string" else []
                assert path in ROUTES and isinstance(route(path, args), Action), (path, args)
                sent.add(path)
    assert shown and shown <= set_by_preset, shown - set_by_preset
    assert {"/chgk/rundown/go", "/chgk/rundown/next", "/chgk/rundown/previous", "/chgk/rundown/all_out",
            "/chgk/rundown/take_cued"} <= sent
