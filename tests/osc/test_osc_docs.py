"""docs/OSC.md lists every inbound address, outbound event and feedback value the code has."""
from pathlib import Path

from overlay.graphics.game import GRAPHICS
from overlay.osc.config import PRESETS
from overlay.osc.events import EVENTS
from overlay.osc.feedback import state_messages
from overlay.osc.routes import ROUTES

DOC = (Path(__file__).resolve().parents[2] / "docs" / "OSC.md").read_text(encoding="utf-8")


def test_every_event_with_its_generic_arguments():
    for spec in EVENTS.values():
        args = " ".join(f"`{n}:{t}`" for n, t in spec.fields) or "—"
        assert f"| `{spec.name}` | {args} |" in DOC, spec.name


def test_every_inbound_address():
    for address in ROUTES:
        if "/graphics/" not in address:
            assert f"`{address}`" in DOC, address
    assert "`/chgk/graphics/<name>/show`" in DOC and "`/chgk/graphics/<name>/hide`" in DOC
    for name in GRAPHICS:
        assert f"`{name}`" in DOC, name


def test_every_feedback_address_and_preset():
    for address, _ in state_messages(None, 0, 0):
        assert f"`{address}`" in DOC, address
    for name in PRESETS:
        assert f"| `{name}` |" in DOC, name
