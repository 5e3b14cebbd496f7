"""HTTP API of the league (issue 7). JSON in and out, errors shaped as in API.md. Everything
is for operators except `/api/public/...`, which the on-air graphics read."""
from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, current_app, jsonify, request

from ..web.api import body
from ..web.auth import operator_required
from ..rules import InputError
from . import EXTENSION, League, public
from .exports import fees_csv, rating_csv
from ..i18n.web import page_lang

bp = Blueprint("season_api", __name__, url_prefix="/api")


def league() -> League:
    return current_app.extensions[EXTENSION]


def _int(value: str) -> int | str:
    """Path ids that are numbers; anything else stays text and is then not found (404)."""
    return int(value) if value.isascii() and value.isdigit() else value


def _lang() -> str:
    return page_lang()


def _excel() -> bool:
    """?excel=1: `;`-separated with decimal commas, as a Russian-locale Excel opens it."""
    return request.args.get("excel") in ("1", "true", "yes")


def _csv(text: str, filename: str) -> Response:
    return Response(text, mimetype="text/csv", headers={
        "Content-Disposition": f'attachment; filename="{filename}"', "Cache-Control": "no-store"})


# members ---------------------------------------------------------------------------------------

@bp.get("/members")
@operator_required
def members() -> Any:
    return jsonify(members=league().members.all())


@bp.post("/members")
@operator_required
def create_member() -> Any:
    member = league().members.create(body())
    return jsonify(id=member["id"], member=member), 201


@bp.get("/members/<mid>")
@operator_required
def member(mid: str) -> Any:
    lg = league()
    m = lg.members.get(_int(mid))
    return jsonify(member=m, actions=lg.core.actions(member=m["id"]))


@bp.patch("/members/<mid>")
@operator_required
def edit_member(mid: str) -> Any:
    return jsonify(member=league().members.edit(_int(mid), body()))


@bp.post("/members/<mid>/status")
@operator_required
def member_status(mid: str) -> Any:
    return jsonify(member=league().members.set_status(_int(mid), body()))


# seasons and holdings ----------------------------------------------------------------------------

@bp.get("/seasons")
@operator_required
def seasons() -> Any:
    return jsonify(seasons=league().seasons.all())


@bp.post("/seasons")
@operator_required
def create_season() -> Any:
    season = league().seasons.create(body())
    return jsonify(id=season["id"], season=season), 201


@bp.get("/seasons/<sid>")
@operator_required
def season(sid: str) -> Any:
    return jsonify(league().seasons.get(sid))


@bp.post("/seasons/<sid>/days")
@operator_required
def season_day(sid: str) -> Any:
    return jsonify(league().seasons.set_day(sid, body()))


@bp.get("/seasons/<sid>/actions")
@operator_required
def season_actions(sid: str) -> Any:
    lg = league()
    return jsonify(actions=lg.core.actions(season=lg.seasons.get(sid)["id"]))


@bp.get("/holdings/<hid>")
@operator_required
def holding(hid: str) -> Any:
    return jsonify(league().holdings.view(hid))


@bp.post("/holdings/<hid>/registrations")
@operator_required
def register(hid: str) -> Any:
    reg = league().holdings.register(hid, body())
    return jsonify(id=reg["id"], registration=reg), 201


@bp.post("/registrations/<rid>/withdraw")
@operator_required
def withdraw(rid: str) -> Any:
    return jsonify(registration=league().holdings.withdraw(_int(rid), body()))


@bp.post("/registrations/<rid>/absent")
@operator_required
def absent(rid: str) -> Any:
    return jsonify(registration=league().holdings.set_absent(_int(rid), body()))


@bp.post("/registrations/<rid>/payment")
@operator_required
def payment(rid: str) -> Any:
    return jsonify(registration=league().holdings.pay(_int(rid), body()))


@bp.get("/holdings/<hid>/games")
@operator_required
def holding_games(hid: str) -> Any:
    return jsonify(games=league().games.holding_games(hid))


@bp.post("/holdings/<hid>/games")
@operator_required
def make_holding_game(hid: str) -> Any:
    return jsonify(league().games.make_holding_game(hid, _optional_body())), 201


def _optional_body() -> Any:
    data = request.get_json(silent=True, force=True) if request.get_data(cache=True) else {}
    if data is None:
        raise InputError("bad_json", "The body is not valid JSON.")
    return data


@bp.get("/holdings/<hid>/teams")
@operator_required
def teams(hid: str) -> Any:
    view = league().holdings.view(hid)
    return jsonify(holding=view["id"], teams=view["teams"], short=view["short"], unplaced=view["unplaced"])


@bp.post("/holdings/<hid>/teams/form")
@operator_required
def form_teams(hid: str) -> Any:
    data = request.get_json(silent=True, force=True) if request.get_data(cache=True) else {}
    if data is None:
        raise InputError("bad_json", "The body is not valid JSON.")
    return jsonify(league().holdings.form(hid, data))


@bp.post("/holdings/<hid>/teams")
@operator_required
def add_team(hid: str) -> Any:
    return jsonify(league().holdings.edit_team(hid, None, body(), new=True)), 201


@bp.put("/holdings/<hid>/teams/<tid>")
@operator_required
def edit_team(hid: str, tid: str) -> Any:
    return jsonify(league().holdings.edit_team(hid, tid, body()))


@bp.delete("/holdings/<hid>/teams/<tid>")
@operator_required
def delete_team(hid: str, tid: str) -> Any:
    return jsonify(league().holdings.delete_team(hid, tid, body()))


# results -----------------------------------------------------------------------------------------

@bp.get("/seasons/<sid>/rating")
@operator_required
def rating(sid: str) -> Any:
    return jsonify(league().results.rating(sid))


@bp.post("/seasons/<sid>/rating/adjustments")
@operator_required
def adjust(sid: str) -> Any:
    return jsonify(league().results.adjust(sid, body())), 201


@bp.get("/seasons/<sid>/rating.csv")
@operator_required
def rating_export(sid: str) -> Any:
    lg = league()
    season_id = lg.seasons.get(sid)["id"]
    excel = _excel()
    return _csv(rating_csv(lg.results, season_id, _lang(), excel), f"rating-{season_id}{'-excel' if excel else ''}.csv")


@bp.get("/seasons/<sid>/fees.csv")
@operator_required
def fees_export(sid: str) -> Any:
    lg = league()
    season_id = lg.seasons.get(sid)["id"]
    excel = _excel()
    return _csv(fees_csv(lg.seasons, lg.holdings, season_id, _lang(), excel), f"fees-{season_id}{'-excel' if excel else ''}.csv")


@bp.get("/seasons/<sid>/best-players")
@operator_required
def best(sid: str) -> Any:
    return jsonify(league().results.best(sid))


@bp.get("/seasons/<sid>/final-teams")
@operator_required
def final_teams(sid: str) -> Any:
    return jsonify(league().results.final_teams(sid))


@bp.post("/seasons/<sid>/final-teams/choices")
@operator_required
def final_choice(sid: str) -> Any:
    return jsonify(league().results.choose(sid, body())), 201


@bp.get("/seasons/<sid>/final")
@operator_required
def final(sid: str) -> Any:
    return jsonify(league().results.final(sid))


@bp.post("/seasons/<sid>/final/games")
@operator_required
def make_final_games(sid: str) -> Any:
    return jsonify(league().games.make_final_games(sid, _optional_body())), 201


@bp.get("/seasons/<sid>/awards")
@operator_required
def awards(sid: str) -> Any:
    return jsonify(league().results.awards(sid))


@bp.post("/seasons/<sid>/awards")
@operator_required
def award(sid: str) -> Any:
    return jsonify(league().results.award(sid, body())), 201


# the «Star Wars» series ----------------------------------------------------------------------------

@bp.get("/series")
@operator_required
def series_list() -> Any:
    return jsonify(series=league().series.all())


@bp.post("/series")
@operator_required
def create_series() -> Any:
    s = league().series.create(body())
    return jsonify(id=s["id"], series=s), 201


@bp.get("/series/<xid>")
@operator_required
def series(xid: str) -> Any:
    return jsonify(league().series.get(xid))


@bp.post("/series/<xid>/final")
@operator_required
def series_final(xid: str) -> Any:
    return jsonify(league().series.set_final(xid, body()))


@bp.post("/series/<xid>/overrides")
@operator_required
def series_override(xid: str) -> Any:
    return jsonify(league().series.override(xid, body())), 201


@bp.get("/series/<xid>/actions")
@operator_required
def series_actions(xid: str) -> Any:
    lg = league()
    return jsonify(actions=lg.core.actions(series=lg.series.get(xid)["id"]))


# public: what the on-air graphics show ----------------------------------------------------------

@bp.get("/public/league")
def public_index() -> Any:
    lg = league()
    return jsonify(seasons=[{"id": s["id"], "name": s["name"]} for s in lg.seasons.all()], series=lg.series.all())


@bp.get("/public/seasons/<sid>")
def public_season(sid: str) -> Any:
    top = request.args.get("top", "")
    n = int(top) if top.isascii() and top.isdigit() and 0 < int(top) <= public.MAX_TOP else None
    lg = league()
    return jsonify(public.season(lg.seasons, lg.results, sid, n))


@bp.get("/public/series/<xid>")
def public_series(xid: str) -> Any:
    return jsonify(public.series(league().series, xid))
