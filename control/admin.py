"""Admin pages of the club league: members, seasons and their holdings (registration, fees,
teams), the rating with its progress chart, the Final's teams and result, the «Star Wars»
series. Server-rendered forms over the same service as the JSON API (`overlay.season`), so
a page refuses exactly what the API refuses, with the same message, and changes nothing then.

Every form posts with the panel's CSRF token; every page needs the operator's login.
Words: the `league.` keys of the catalogs (overlay/i18n; Russian by default, `?lang=uk|en` switches and is remembered).
"""
from __future__ import annotations

import datetime as dt
import functools
from collections.abc import Callable
from typing import Any

from flask import Blueprint, current_app, g, redirect, render_template, request, session, url_for
from werkzeug.datastructures import MultiDict

from overlay.web.auth import is_operator
from overlay.rules import InputError
from overlay.season import EXTENSION, League
from overlay.season.chart import progress_chart
from overlay.season.imports import decode
from overlay.i18n.web import catalogs, translator
from overlay.core.store import StorageError

from .actionlog import sentences
from .csrf import csrf_ok, csrf_token
from .refusals import explain

bp = Blueprint("admin", __name__, url_prefix="/control/admin")

CHART_TOP = 10  # lines drawn by default; ?top=N shows more


def league() -> League:
    return current_app.extensions[EXTENSION]


def lang() -> str:
    langs = catalogs().languages
    wanted = request.args.get("lang")
    if wanted in langs:
        session["admin_lang"] = wanted
    chosen = session.get("admin_lang") or current_app.config.get("LANGUAGE", "ru")
    g.page_lang = chosen if chosen in langs else "ru"  # Flask-Babel's locale for this request
    return g.page_lang


# pages: name → (template, context builder) ----------------------------------------------------

def _index() -> dict:
    lg = league()
    return {"seasons": lg.seasons.all(), "series": lg.series.all(), "members": len(lg.members.all()),
            "tv_games": _tv_games()}


def _members() -> dict:
    return {"members": league().members.all(), "actions": league().core.actions(limit=30)}


def _season(sid: str) -> dict:
    lg = league()
    season = lg.seasons.get(sid)
    views = {h["id"]: lg.holdings.view(h["id"]) for d in season["days"] for h in d["holdings"]}
    return {"season": season, "holdings": views, "actions": lg.core.actions(season=season["id"], limit=100)}


def _holding(hid: str) -> dict:
    lg = league()
    view = lg.holdings.view(hid)
    season = lg.seasons.get(view["season_id"])
    registered = [p for r in view["registrations"] for p in r["players"] if not p["absent"]]
    # a member plays one holding per game day: only those not registered on this day can be registered
    same_day = [h["id"] for h in lg.seasons.holdings(season["id"]) if h["day"] == view["day"]]
    taken = {p["member"] for hid_ in same_day for r in lg.holdings.registrations(hid_) for p in r["players"]}
    return {"holding": view, "season": season,
            "free": [m for m in lg.members.all() if m["status"] == "approved" and m["id"] not in taken],
            "present": registered, "games": lg.games.holding_games(view["id"])}


def _rating(sid: str) -> dict:
    lg = league()
    season = lg.seasons.get(sid)
    data = lg.results.rating(season["id"])
    top = request.args.get("top", "")
    n = int(top) if top.isascii() and top.isdigit() and int(top) > 0 else CHART_TOP
    titles = {live.id: live.game.title for live in lg.results.lives(season["id"])}
    return {"season": season, "rating": data, "chart": progress_chart(data["rating"][:n], data["days"], played=data["played_days"]),
            "top": n, "members": lg.members.all(),
            "playing": [titles.get(g, g) for g in data["playing"]]}  # games still played, by their titles


def _final(sid: str) -> dict:
    lg = league()
    season = lg.seasons.get(sid)
    try:
        teams, teams_error = lg.results.final_teams(season["id"]), None
    except InputError as exc:
        teams, teams_error = None, exc  # said in the page's language by render()
    return {"season": season, "teams": teams, "teams_error": teams_error, "final": lg.results.final(season["id"]),
            "awards": lg.results.awards(season["id"]), "rating": lg.results.rating(season["id"])["rating"],
            "best": lg.results.best(season["id"])["best_players"]}


def _series(xid: str) -> dict:
    lg = league()
    series = lg.series.get(xid)
    return {"series": series, "tv_games": _tv_games(), "actions": lg.core.actions(series=series["id"], limit=50)}


def _tv_games() -> list[dict]:
    with league().core.sessions.lock:
        return [{"id": g.id, "team": (g.game.experts or {}).get("name"), "title": g.game.title,
                 "status": g.game.status, "score": dict(g.game.score)}
                for g in league().core.sessions.games.values() if g.game.rules == "tv"]


PAGES: dict[str, tuple[str, Callable[..., dict]]] = {
    "index": ("admin/index.html", _index),
    "members": ("admin/members.html", _members),
    "season": ("admin/season.html", _season),
    "holding": ("admin/holding.html", _holding),
    "rating": ("admin/rating.html", _rating),
    "final": ("admin/final.html", _final),
    "series": ("admin/series.html", _series),
}


def _login(status: int) -> Any:
    return render_template("control/login.html", error=None, next_page=request.path, lang=lang()), status


def render(page: str, kwargs: dict, *, error: str | None = None, status: int = 200,
           sent: MultiDict | None = None) -> Any:
    """The page; after a refused form, `sent` is what it sent (the page fills it in again)."""
    template, build = PAGES[page]
    t = translator(lang())
    try:
        context = build(**kwargs)
    except InputError as exc:  # an unknown season, holding, series: the page says so
        return render_template("admin/missing.html", t=t, lang=t.lang, page=page, message=explain(t, exc),
                               csrf=csrf_token()), exc.status
    if isinstance(context.get("teams_error"), InputError):
        context["teams_error"] = explain(t, context["teams_error"])
    if "actions" in context:  # the log read as sentences, members by name
        names = {m["id"]: m["name"] for m in league().members.all()}
        context["actions"] = sentences(t, context["actions"], names)
    return render_template(template, t=t, lang=t.lang, page=page, error=error, csrf=csrf_token(), sent=sent or MultiDict(),
                           ignored_text=functools.partial(ignored_text, t), problem_text=functools.partial(problem_text, t),
                           notice=session.pop("admin_notice", None), warnings=session.pop("admin_warnings", []),
                           **kwargs, **context), status


def warning_text(t: Any, w: dict) -> str:
    """A warning said when a game is made ({"code", names…}), in the page's language."""
    return t("warning." + w["code"], **{k: v for k, v in w.items() if k != "code"})


def ignored_text(t: Any, i: dict) -> str:
    """Why the rating leaves a game out ({"code", names…}), in the page's language."""
    values = {k: v for k, v in i.items() if k not in ("code", "game", "reason")}
    if "teams" in values:
        values["teams"] = ", ".join(f"«{name}»" for name in values["teams"])
    return t("ignored." + i["code"], **values)


def problem_text(t: Any, p: dict) -> str:
    """What stops the Final's result ({"code", names…}), in the page's language."""
    values = {k: v for k, v in p.items() if k not in ("code", "message", "games")}
    if "team" in values:
        values["team"] = t("final." + values["team"])
    if "titles" in values:
        values["titles"] = ", ".join(f"«{title}»" for title in values["titles"])
    return t("problem." + p["code"], **values)


def _page_view(name: str) -> Callable:
    def view(**kwargs: Any) -> Any:
        if not is_operator():
            return _login(200)
        return render(name, kwargs)
    return view


def action(rule: str, back: str) -> Callable:
    """A form post: run `fn(league, form, **ids)`, which returns where to go next; on refusal
    show the page `back` again with the message (status 400/404/422) and nothing changed."""
    def deco(fn: Callable[..., str]) -> Callable:
        @bp.post(rule, endpoint=fn.__name__)
        @functools.wraps(fn)
        def view(**kwargs: Any) -> Any:
            if not is_operator():
                return _login(401)
            t = translator(lang())
            if not csrf_ok():
                return render(back, _page_args(back, kwargs), error=t("error.csrf"), status=400)
            try:
                target = fn(league(), request.form, **kwargs)
            except InputError as exc:  # said in the page's language, not the API's English
                return render(back, _page_args(back, kwargs), error=explain(t, exc), status=exc.status,
                              sent=request.form)
            except StorageError as exc:
                return render(back, _page_args(back, kwargs), error=t("err.storage"), status=exc.status)
            count = session.pop("admin_count", None)  # a form that changed many members says how many
            session["admin_notice"] = t("notice.saved") if count is None else t("notice.saved_n", n=count)
            return redirect(target, 303)
        return view
    return deco


def _page_args(page_name: str, kwargs: dict) -> dict:
    """The page to show again after a refused form: its own ids out of the action's ids."""
    keys = {"season": ("sid",), "holding": ("hid",), "rating": ("sid",), "final": ("sid",), "series": ("xid",)}
    return {k: kwargs[k] for k in keys.get(page_name, ()) if k in kwargs}


@bp.app_template_filter("admin_time")
def _admin_time(ms: Any) -> str:
    """Server epoch ms as the server's local date and time (the log's "when")."""
    if not isinstance(ms, (int, float)):
        return ""
    return dt.datetime.fromtimestamp(ms / 1000).strftime("%Y-%m-%d %H:%M")


@bp.after_request
def _no_store(response: Any) -> Any:
    response.headers["Cache-Control"] = "no-store"  # pages embed the CSRF token and live data
    return response


# form values → the API's JSON body --------------------------------------------------------------

def _num(value: str | None) -> Any:
    """A number typed into a form; anything else is passed on as text for the service to refuse."""
    if value is None or value.strip() == "":
        return None
    v = value.strip().replace(",", ".")
    try:
        return int(v)
    except ValueError:
        try:
            return float(v)
        except ValueError:
            return value


def _ids(form: MultiDict, name: str) -> list[Any]:
    return [_num(v) for v in form.getlist(name) if v.strip()]


def _opt(form: MultiDict, name: str) -> str | None:
    value = form.get(name, "").strip()
    return value or None


def _player(value: str | None) -> Any:
    """A player field: a member id (digits) or a name."""
    value = (value or "").strip()
    return int(value) if value.isascii() and value.isdigit() else value or None


def _body(**fields: Any) -> dict:
    return {k: v for k, v in fields.items() if v is not None}


# pages --------------------------------------------------------------------------------------------

for _rule, _name in (("/", "index"), ("/members", "members"), ("/seasons/<sid>", "season"),
                     ("/holdings/<hid>", "holding"), ("/seasons/<sid>/rating", "rating"),
                     ("/seasons/<sid>/final", "final"), ("/series/<xid>", "series")):
    bp.add_url_rule(_rule, _name, _page_view(_name), methods=["GET"])


# actions ------------------------------------------------------------------------------------------

@action("/members/new", "members")
def member_create(lg: League, form: MultiDict) -> str:
    lg.members.create(_body(name=form.get("name", ""), adult=form.get("adult") == "on",
                            rating_id=_num(form.get("rating_id"))))
    return url_for("admin.members")


@action("/members/import", "members")
def members_import(lg: League, form: MultiDict) -> str:
    upload = request.files.get("file")
    text = decode(upload.read()) if upload and upload.filename else form.get("text", "")
    added = lg.setup.import_members(text)
    session["admin_count"] = len(added)
    return url_for("admin.members")


@action("/members/status", "members")
def members_status(lg: League, form: MultiDict) -> str:
    """One status, date and reason for the members ticked (or every candidate)."""
    if form.get("all") == "candidates":
        ids = [m["id"] for m in lg.members.all() if m["status"] == "candidate"]
    else:
        ids = _ids(form, "member")
    lg.setup.set_status_many({"members": ids, "status": form.get("status"), "date": form.get("date"),
                              "reason": _opt(form, "reason")})
    session["admin_count"] = len(ids)
    return url_for("admin.members")


@action("/members/<int:mid>/status", "members")
def member_status(lg: League, form: MultiDict, mid: int) -> str:
    lg.members.set_status(mid, _body(status=form.get("status"), date=form.get("date"), reason=_opt(form, "reason")))
    return url_for("admin.members") + f"#m{mid}"


@action("/members/<int:mid>/edit", "members")
def member_edit(lg: League, form: MultiDict, mid: int) -> str:
    current = lg.members.get(mid)
    wanted = {"name": form.get("name", ""), "adult": form.get("adult") == "on", "rating_id": _num(form.get("rating_id"))}
    # only what the form changed: the service refuses an edit that changes nothing
    body = {k: v for k, v in wanted.items() if v != current[k]}
    lg.members.edit(mid, {**body, "reason": _opt(form, "reason")})
    return url_for("admin.members") + f"#m{mid}"


@action("/seasons/new", "index")
def season_create(lg: League, form: MultiDict) -> str:
    fees = _body(individual=_num(form.get("fee_individual")), team=_num(form.get("fee_team")),
                 currency=_opt(form, "currency"))
    s = lg.seasons.create(_body(name=form.get("name", ""), qualifying_days=_num(form.get("qualifying_days")),
                                fees=fees or None))
    return url_for("admin.season", sid=s["id"])


@action("/seasons/<sid>/days", "season")
def season_day(lg: League, form: MultiDict, sid: str) -> str:
    lg.seasons.set_day(sid, _body(day=_num(form.get("day")), sunday=form.get("sunday"), reason=_opt(form, "reason"),
                                  confirm=form.get("confirm") == "on"))
    return url_for("admin.season", sid=sid)


@action("/holdings/<hid>/register", "holding")
def register(lg: League, form: MultiDict, hid: str) -> str:
    if form.get("kind") == "team":
        lg.holdings.register(hid, {"team": form.get("team", ""), "members": _ids(form, "members")})
    else:
        lg.holdings.register(hid, {"member": _num(form.get("member"))})
    return url_for("admin.holding", hid=hid)


@action("/holdings/<hid>/registrations/<int:rid>/absent", "holding")
def absent(lg: League, form: MultiDict, hid: str, rid: int) -> str:
    lg.holdings.set_absent(rid, _body(member=_num(form.get("member")), absent=form.get("absent") == "1",
                                      reason=_opt(form, "reason")))
    return url_for("admin.holding", hid=hid) + f"#r{rid}"


@action("/holdings/<hid>/registrations/<int:rid>/pay", "holding")
def pay(lg: League, form: MultiDict, hid: str, rid: int) -> str:
    lg.holdings.pay(rid, _body(receipt=form.get("receipt", ""), amount=_num(form.get("amount")),
                               reason=_opt(form, "reason")))
    return url_for("admin.holding", hid=hid) + f"#r{rid}"


@action("/holdings/<hid>/registrations/<int:rid>/withdraw", "holding")
def withdraw(lg: League, form: MultiDict, hid: str, rid: int) -> str:
    lg.holdings.withdraw(rid, _body(reason=_opt(form, "reason"), confirm=form.get("confirm") == "on"))
    return url_for("admin.holding", hid=hid)


@action("/holdings/<hid>/game", "holding")
def make_game(lg: League, form: MultiDict, hid: str) -> str:
    """The holding's club game from its formed teams; the panel then plays it."""
    made = lg.games.make_holding_game(hid, _body(title=_opt(form, "title"), target=_num(form.get("target"))))
    _warn(made["warnings"])
    return url_for("admin.holding", hid=hid) + "#games"


@action("/seasons/<sid>/final/games", "final")
def make_final_games(lg: League, form: MultiDict, sid: str) -> str:
    t = translator(lang())
    made = lg.games.make_final_games(sid, _body(title=_opt(form, "title"), target=_num(form.get("target")),
                                                names={"club": t("final.club"), "central_table": t("final.central_table")}))
    _warn(made["warnings"])
    return url_for("admin.final", sid=sid) + "#final-games"


def _warn(warnings: list[dict]) -> None:
    t = translator(lang())
    session["admin_warnings"] = [warning_text(t, w) for w in warnings]


@action("/holdings/<hid>/form", "holding")
def form_teams(lg: League, form: MultiDict, hid: str) -> str:
    lg.holdings.form(hid, _body(reason=_opt(form, "reason")))
    return url_for("admin.holding", hid=hid) + "#teams"


@action("/holdings/<hid>/teams/<tid>", "holding")
def team_edit(lg: League, form: MultiDict, hid: str, tid: str) -> str:
    if tid == "new":
        lg.holdings.edit_team(hid, None, _body(name=form.get("name", ""), members=_ids(form, "members"),
                                               reason=_opt(form, "reason")), new=True)
    elif form.get("delete") == "1":
        lg.holdings.delete_team(hid, tid, _body(reason=_opt(form, "reason")))
    else:
        lg.holdings.edit_team(hid, tid, _body(name=_opt(form, "name"), members=_ids(form, "members"),
                                              reason=_opt(form, "reason")))
    return url_for("admin.holding", hid=hid) + "#teams"


@action("/seasons/<sid>/adjust", "rating")
def adjust(lg: League, form: MultiDict, sid: str) -> str:
    lg.results.adjust(sid, _body(player=_player(form.get("player")), points=_num(form.get("points")),
                                 day=_num(form.get("day")), reason=_opt(form, "reason")))
    return url_for("admin.rating", sid=sid)


@action("/seasons/<sid>/choice", "final")
def final_choice(lg: League, form: MultiDict, sid: str) -> str:
    players = [_player(p) for p in form.get("players", "").replace("\n", ",").split(",") if p.strip()]
    players += [_num(v) for v in form.getlist("member") if v.strip()]
    lg.results.choose(sid, _body(kind=form.get("kind"), players=players, reason=_opt(form, "reason")))
    return url_for("admin.final", sid=sid)


@action("/seasons/<sid>/award", "final")
def award(lg: League, form: MultiDict, sid: str) -> str:
    lg.results.award(sid, _body(crystal_sphinx=_player(form.get("player")), reason=_opt(form, "reason")))
    return url_for("admin.final", sid=sid)


@action("/series/new", "index")
def series_create(lg: League, form: MultiDict) -> str:
    games = [g.strip() for g in form.get("duels", "").replace("\n", ",").split(",") if g.strip()]
    duels = [games[i:i + 2] for i in range(0, len(games), 2)]
    s = lg.series.create({"name": form.get("name", ""), "duels": duels})
    return url_for("admin.series", xid=s["id"])


@action("/series/<xid>/final", "series")
def series_final(lg: League, form: MultiDict, xid: str) -> str:
    lg.series.set_final(xid, _body(games=form.getlist("games"), reason=_opt(form, "reason")))
    return url_for("admin.series", xid=xid)


@action("/series/<xid>/override", "series")
def series_override(lg: League, form: MultiDict, xid: str) -> str:
    lg.series.override(xid, {"scope": form.get("scope", ""), "winner": _opt(form, "winner"),
                             "reason": _opt(form, "reason")})
    return url_for("admin.series", xid=xid)
