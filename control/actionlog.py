"""The league's action log as sentences (issue 25, item 4): «Иван Петров: кандидат → одобрен
с 2026-01-10», not the recorded JSON. Each kind has `league.log.say.<kind>`; its values are
taken from the recorded body, members and teams named by name. A kind with no sentence yet
shows its title (`league.action.<kind>`) alone, never the raw body.
"""
from __future__ import annotations

from typing import Any

from overlay.i18n.web import Translator

from .refusals import field_label, scope_name

Names = dict[int, str]


def _who(names: Names, ids: Any) -> str:
    if not isinstance(ids, list):
        ids = [ids]
    return ", ".join(names.get(m, f"№{m}") for m in ids if m is not None) or "—"


def _player(p: Any) -> str:
    return (p.get("player") or "—") if isinstance(p, dict) else str(p)


def _money(value: Any) -> str:
    return f"{value:g}" if isinstance(value, (int, float)) else str(value)


def _values(t: Translator, a: dict, names: Names) -> dict[str, Any]:
    """What the sentence of action `a` names, from its body."""
    b, kind = a["body"] if isinstance(a["body"], dict) else {}, a["kind"]
    member = names.get(a.get("member"), "") if a.get("member") is not None else ""
    v: dict[str, Any] = {"member": member}
    if kind == "member_created":
        v.update(name=b.get("name", ""), adult=t("yes") if b.get("adult") else t("no"))
    elif kind == "member_edited":
        before, after = b.get("before", {}), b.get("after", {})
        def shown(key: str, value: Any) -> str:
            return (t("yes") if value else t("no")) if key == "adult" else ("—" if value is None else str(value))
        v["changes"] = "; ".join(f"{field_label(t, k)}: {shown(k, before.get(k))} → {shown(k, after[k])}" for k in after)
    elif kind == "member_status":
        v.update(before=t(f"status.{b.get('from')}"), after=t(f"status.{b.get('to')}"), date=b.get("date", ""))
    elif kind == "season_created":
        v.update(name=b.get("name", ""), n=b.get("qualifying_days", ""))
    elif kind in ("day_scheduled", "day_moved"):
        dates, before = b.get("dates", {}), b.get("before") or {}
        v.update(day=b.get("day", ""), sun=dates.get("sun", ""), wed=dates.get("wed", ""),
                 before=before.get("sun", "") if isinstance(before, dict) else "")
    elif kind == "registered":
        players = _who(names, b.get("members", []))
        v.update(n=b.get("registration", ""), what=f"{t('kind.team')} «{b['team']}»: {players}" if b.get("team") else players)
    elif kind in ("registration_withdrawn", "fee_undone"):
        v.update(n=b.get("registration", ""))
    elif kind in ("absent", "present"):
        v.update(name=_who(names, b.get("member")))
    elif kind in ("fee_paid", "fee_corrected"):
        v.update(n=b.get("registration", ""), amount=_money(b.get("amount")), currency=b.get("currency") or "",
                 receipt=b.get("receipt", ""))
    elif kind in ("teams_formed", "teams_reformed"):
        teams = b.get("teams", [])
        v.update(n=len(teams), teams=", ".join(f"«{x.get('name')}»" for x in teams) or "—")
    elif kind in ("team_added", "team_edited"):
        after = b.get("after", {})
        v.update(team=after.get("name", ""), players=_who(names, after.get("members", [])))
    elif kind == "team_removed":
        v.update(team=b.get("name", ""))
    elif kind == "rating_adjusted":
        points = b.get("points", 0)
        v.update(name=b.get("player", ""), points=f"{points:+g}" if isinstance(points, (int, float)) else points,
                 day=b.get("day", ""))
    elif kind == "final_choice":
        v.update(choice=t(f"choice.{b.get('kind')}"), players=", ".join(_player(p) for p in b.get("players", [])) or "—")
    elif kind == "crystal_sphinx":
        v.update(name=_player(b))
    elif kind == "series_created":
        v.update(name=b.get("name", ""), n=len(b.get("duels", [])))
    elif kind == "series_final_set":
        v.update(games=", ".join(b.get("games", [])) or "—")
    elif kind in ("series_override", "series_override_withdrawn"):
        v.update(scope=scope_name(t, b.get("scope")), team=b.get("winner") or "")
    return v


def sentence(t: Translator, a: dict, names: Names) -> str:
    key = f"log.say.{a['kind']}"
    text = t(key, **_values(t, a, names))
    return t(f"action.{a['kind']}") if text == t.prefix + key else text


def sentences(t: Translator, actions: list[dict], names: Names) -> list[dict]:
    """The actions with their `sentence`."""
    return [{**a, "sentence": sentence(t, a, names)} for a in actions]

