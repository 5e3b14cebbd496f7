"""Seasons (seed 004): N qualifying game days (default 5) and a Final. Each game day is held
twice, on a Sunday and the following Wednesday, with the same viewers' questions; a holding's
id is what a club game's spec names as its `game_day`."""
from __future__ import annotations

import datetime as dt
from typing import Any

from . import check
from .core import Core
from .schema import select

DEFAULT_DAYS = 5
MAX_DAYS = 20
WEEKDAYS = ("sun", "wed")
SEASON_COLUMNS = "id, name, qualifying_days, fee_individual, fee_team, currency, created_at"


def holding_id(season_id: str, day: int, weekday: str) -> str:
    return f"{season_id}-d{day}-{weekday}"


class Seasons:
    def __init__(self, core: Core) -> None:
        self.core = core

    # reading ---------------------------------------------------------------------------------

    def all(self) -> list[dict]:
        return [self._shape(r) for r in select(self.core.store, SEASON_COLUMNS, "FROM league_seasons ORDER BY n")]

    def get(self, season_id: Any) -> dict:
        rows = select(self.core.store, SEASON_COLUMNS, "FROM league_seasons WHERE id=?", (season_id,)) \
            if isinstance(season_id, str) else []
        if not rows:
            raise check.NotFound("unknown_season", f"There is no season {season_id!r}. GET /api/seasons lists them.",
                                 season=season_id)
        season = self._shape(rows[0])
        holdings = self.holdings(season["id"])
        days: dict[int, list[dict]] = {}
        for h in holdings:
            days.setdefault(h["day"], []).append(h)
        season["days"] = [{"day": d, "holdings": days[d]} for d in sorted(days)]
        return season

    def holdings(self, season_id: str) -> list[dict]:
        return select(self.core.store, "id, season_id, day, weekday, date",
                      "FROM league_holdings WHERE season_id=? ORDER BY day, weekday='wed'", (season_id,))

    def holding(self, holding_id_: Any) -> dict:
        rows = select(self.core.store, "id, season_id, day, weekday, date",
                      "FROM league_holdings WHERE id=?", (holding_id_,)) if isinstance(holding_id_, str) else []
        if not rows:
            raise check.NotFound("unknown_holding",
                                 f"There is no holding {holding_id_!r}. GET /api/seasons/<id> lists a season's holdings.",
                                 holding=holding_id_)
        return rows[0]

    @staticmethod
    def _shape(row: dict) -> dict:
        return {"id": row["id"], "name": row["name"], "qualifying_days": row["qualifying_days"],
                "fees": {"individual": row["fee_individual"], "team": row["fee_team"], "currency": row["currency"]},
                "created_at": row["created_at"]}

    # changing --------------------------------------------------------------------------------

    def _check_date(self, season: dict, day: int, sunday: dt.date) -> None:
        """A Sunday already past, or out of the days' order, is usually a typo: refused unless
        the administration confirms it (entering a season played earlier, say)."""
        today = dt.datetime.fromtimestamp(self.core.now() / 1000).date()
        if sunday < today:
            raise check.rule("day_in_past", f"{sunday.isoformat()} is in the past (today is {today.isoformat()}). "
                             "Confirm to schedule it anyway.", date=sunday.isoformat(), today=today.isoformat())
        for h in self.holdings(season["id"]):
            if h["weekday"] != "sun" or h["day"] == day:
                continue
            other = dt.date.fromisoformat(h["date"])
            if (h["day"] < day and other >= sunday) or (h["day"] > day and other <= sunday):
                raise check.rule("day_out_of_order",
                                 f"Game day {day} on {sunday.isoformat()} would come "
                                 f"{'before' if h['day'] < day else 'after'} game day {h['day']} ({h['date']}). "
                                 "Confirm to schedule it anyway.",
                                 day=day, date=sunday.isoformat(), other=h["day"], other_date=h["date"])

    def create(self, body: Any) -> dict:
        body = check.obj(body, {"name", "qualifying_days", "fees"}, {"name"})
        name = check.text(body["name"], "name")
        days = check.whole(body.get("qualifying_days", DEFAULT_DAYS), "qualifying_days", 1, MAX_DAYS)
        fees = check.obj(body.get("fees") or {}, {"individual", "team", "currency"})
        individual = None if fees.get("individual") is None else check.amount(fees["individual"], "fees.individual")
        team = None if fees.get("team") is None else check.amount(fees["team"], "fees.team")
        currency = check.text(fees.get("currency", "RUB"), "fees.currency", limit=10)
        core = self.core
        with core.store.transaction() as db:
            n = db.execute("SELECT COALESCE(MAX(n), 0) + 1 FROM league_seasons").fetchone()[0]
            season_id = f"s{n}"
            db.execute("INSERT INTO league_seasons (id, n, name, qualifying_days, fee_individual, fee_team, "
                       "currency, created_at) VALUES (?,?,?,?,?,?,?,?)",
                       (season_id, n, name, days, individual, team, currency, core.now()))
            core.record(db, "season_created", {"name": name, "qualifying_days": days,
                                               "fees": {"individual": individual, "team": team, "currency": currency}},
                        season=season_id)
        core.changed(season=season_id)
        return self.get(season_id)

    def set_day(self, season_id: Any, body: Any) -> dict:
        """Schedule game day `day` on `sunday` (and the Wednesday after it). Moving a scheduled
        day's dates is a correction: it needs a reason."""
        season = self.get(season_id)
        body = check.obj(body, {"day", "sunday", "reason", "confirm"}, {"day", "sunday"})
        day = check.whole(body["day"], "day", 1, season["qualifying_days"])
        sunday = check.date(body["sunday"], "sunday")
        if sunday.weekday() != 6:
            raise check.bad("sunday", f"{sunday.isoformat()} is a {sunday.strftime('%A')}, not a Sunday", "sunday",
                            date=sunday.isoformat(), weekday=sunday.weekday())
        dates = {"sun": sunday.isoformat(), "wed": (sunday + dt.timedelta(days=3)).isoformat()}
        existing = [h for h in self.holdings(season["id"]) if h["day"] == day]
        why = check.reason(body.get("reason"), required=bool(existing))
        taken = [h for h in self.holdings(season["id"]) if h["day"] != day and h["date"] in dates.values()]
        if taken:
            raise check.rule("date_taken", f"{taken[0]['date']} is already game day {taken[0]['day']}.",
                             date=taken[0]["date"], day=taken[0]["day"])
        if not check.flag(body.get("confirm", False), "confirm"):
            self._check_date(season, day, sunday)
        core = self.core
        with core.store.transaction() as db:
            for weekday in WEEKDAYS:
                hid = holding_id(season["id"], day, weekday)
                db.execute("INSERT INTO league_holdings (id, season_id, day, weekday, date) VALUES (?,?,?,?,?) "
                           "ON CONFLICT(id) DO UPDATE SET date=excluded.date",
                           (hid, season["id"], day, weekday, dates[weekday]))
            before = {h["weekday"]: h["date"] for h in existing}
            core.record(db, "day_moved" if existing else "day_scheduled",
                        {"day": day, "dates": dates, **({"before": before} if existing else {})}, why,
                        season=season["id"])
        core.changed(season=season["id"])
        return self.get(season["id"])
