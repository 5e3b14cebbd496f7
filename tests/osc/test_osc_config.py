"""osc.toml: targets, cues, presets, and errors that say where (overlay/osc/config.py)."""
import pytest

from overlay.osc.config import PRESETS, ConfigError, cli_targets, parse_config
from overlay.osc.events import EVENTS, RECORDED_TYPES
from overlay.rules.evolve import EVOLVE

GOOD = """
[listen]
address = "0.0.0.0:9000"
allow = ["127.0.0.1", "192.168.1.0/24"]

[targets.deck]
host = "10.0.0.5"
port = 12321
presets = ["companion"]
vars = { page = 7 }

[targets.sound]
host = "qlab.local"
port = 53000
presets = ["qlab"]
passcode = "4321"

[[cues.spin]]
target = "deck"
address = "/custom-variable/sector/value"
args = [{ int = "{sector}" }, "{kind}", 0.5, true, { double = 2 }]
delay_ms = 250

[[cues.timer_started]]
target = "sound"
when = { kind = "blitz" }
address = "/cue/blitz-{round.question}/start"
"""


def test_a_good_file():
    config = parse_config(GOOD)
    assert config.listen == "0.0.0.0:9000" and config.allow == ("127.0.0.1", "192.168.1.0/24")
    assert set(config.targets) == {"deck", "sound"}
    assert config.targets["deck"].vars == {"page": 7}  # the target's vars win over the preset's
    assert config.targets["sound"].passcode == "4321"
    own = config.cues["spin"][0]
    assert (own.target, own.delay_ms, own.origin) == ("deck", 250, "osc.toml")
    assert [(a.type, a.value) for a in own.args] == [("int", "{sector}"), ("string", "{kind}"), ("float", 0.5),
                                                      ("bool", True), ("double", 2)]
    # the file's own cues come first, then each target's presets
    assert [c.origin for c in config.cues["spin"]][:2] == ["osc.toml", "preset companion"]
    blitz = config.cues["timer_started"][0]
    assert blitz.matches({"kind": "blitz"}) and not blitz.matches({"kind": "minute"})


def test_cli_targets_get_the_generic_namespace():
    config = parse_config("", cli_targets(["127.0.0.1:9001", "[::1]:9002"]))
    assert [(t.name, t.host, t.port) for t in config.targets.values()] == [("cli-1", "127.0.0.1", 9001),
                                                                           ("cli-2", "::1", 9002)]
    generic = [c for c in config.cues["score"] if c.target == "cli-1"]
    assert [c.address for c in generic] == ["/chgk/event/score", "/chgk/score"]
    assert [(a.type, a.value) for a in generic[1].args] == [("int", "{experts}"), ("int", "{viewers}")]


@pytest.mark.parametrize("text,where", [
    ("[targets.x\nhost=", "not valid TOML"),
    ("[targets.x]\nhost='h'\nport=1\nadress='x'", "targets.x: unknown key 'adress'"),
    ("[targets.x]\nhost='h'\nport=70000", "targets.x.port"),
    ("[targets.x]\nhost='h'\nport=1\npresets=['vmix']", "unknown preset 'vmix'"),
    ("[[cues.spin]]\ntarget='nobody'\naddress='/a'", "cues.spin[0].target"),
    ("[[cues.spun]]\naddress='/a'", "cues.spun: unknown event"),
    ("[targets.x]\nhost='h'\nport=1\n[[cues.spin]]\ntarget='x'\naddress='a'", "starts with '/'"),
    ("[targets.x]\nhost='h'\nport=1\n[[cues.spin]]\ntarget='x'\naddress='/a/{sectr}'",
     "cues.spin[0].address: unknown placeholder {sectr}"),
    ("[targets.x]\nhost='h'\nport=1\n[[cues.spin]]\ntarget='x'\naddress='/a'\nargs=[{integer=1}]",
     "cues.spin[0].args[0]"),
    ("[targets.x]\nhost='h'\nport=1\n[[cues.spin]]\ntarget='x'\naddress='/a'\nargs=[{int='abc'}]", "not a whole number"),
    ("[targets.x]\nhost='h'\nport=1\n[[cues.spin]]\ntarget='x'\naddress='/a'\nargs=[[1,2]]", "args[0]"),
    ("[targets.x]\nhost='h'\nport=1\n[[cues.spin]]\ntarget='x'\naddress='/a'\ndelay_ms=-1", "delay_ms"),
    ("[targets.x]\nhost='h'\nport=1\n[[cues.spin]]\ntarget='x'\naddress='/a'\nwhen={winner='x'}", "unknown key 'winner'"),
    ("[targets.x]\nhost='h'\nport=1\n[[cues.score]]\ntarget='x'\naddress='/a/{vars.page}'", "{vars.page}"),
    ("[listen]\nallow=['localhost']", "listen.allow[0]"),
    ("[listen]\naddress='9000'", "listen.address"),
    ("surprise = 1", "unknown key 'surprise'"),
])
def test_bad_files_say_where(text, where):
    with pytest.raises(ConfigError) as info:
        parse_config(text)
    assert info.value.code == "bad_osc_config"
    assert where in info.value.message


def test_every_preset_is_valid_on_a_target():
    for name, preset in PRESETS.items():
        config = parse_config(f"[targets.t]\nhost='127.0.0.1'\nport=9\npresets=['{name}']\npasscode='1'")
        assert config.count() == len(preset.cues) > 0, name


def test_the_generic_preset_sends_every_event_with_its_fields_in_order():
    config = parse_config("[targets.t]\nhost='127.0.0.1'\nport=9\npresets=['generic']")
    for spec in EVENTS.values():
        cue = next(c for c in config.cues[spec.name] if c.address == f"/chgk/event/{spec.name}")
        assert [(a.type, a.value) for a in cue.args] == [(t, "{" + n + "}") for n, t in spec.fields]


def test_every_recorded_event_type_has_a_cue_mapping():
    # a new event type in the rules must be given a cue (or an explicit nothing) here
    assert RECORDED_TYPES == set(EVOLVE)
