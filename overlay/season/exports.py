"""CSV exports for the administration: the season's rating and the fees taken. UTF-8 with a
byte-order mark (spreadsheets then read the Cyrillic right), headers in the chosen language
(the catalogs' `league.csv.*` words; called within a request). Team and player names come from
public registrations: their cells are neutralised against spreadsheet formulas (overlay/csvsafe.py)."""
from __future__ import annotations

import csv
import datetime as dt
import io

from .holdings import Holdings
from .results import Results
from .seasons import Seasons
from ..csvsafe import escape
from ..i18n.web import translator


def _csv(rows: list[list]) -> str:
    out = io.StringIO()
    out.write("\ufeff")
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerows([escape(cell) for cell in row] for row in rows)
    return out.getvalue()


def rating_csv(results: Results, season_id: str, lang: str) -> str:
    t = translator(lang)
    data = results.rating(season_id)
    head = [t("csv.place"), t("csv.player"), t("csv.member"), t("csv.points"), t("csv.games"),
            t("csv.adjustment")] + [t("csv.after_day", n=d) for d in range(1, data["days"] + 1)]
    rows = [[r["place"], r["player"], r["member"] or "", r["points"], r["games"], r["adjustment"], *r["progression"]]
            for r in data["rating"]]
    return _csv([head, *rows])


def _money(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:.2f}"


def fees_csv(seasons: Seasons, holdings: Holdings, season_id: str, lang: str) -> str:
    t = translator(lang)
    season = seasons.get(season_id)
    head = [t("csv.day"), t("csv.holding"), t("csv.date"), t("csv.registration"), t("csv.kind"), t("csv.team"),
            t("csv.players"), t("csv.amount"), t("csv.currency"), t("csv.receipt"), t("csv.paid_at")]
    rows = []
    for h in seasons.holdings(season["id"]):
        for r in holdings.registrations(h["id"]):
            pay = r["payment"]
            paid_at = dt.datetime.fromtimestamp(pay["paid_at"] / 1000).strftime("%Y-%m-%d %H:%M") if pay else ""
            rows.append([h["day"], h["id"], h["date"], r["id"], t(f"kind.{r['kind']}"), r["team_name"] or "",
                         "; ".join(p["name"] for p in r["players"]),
                         _money(pay["amount"]) if pay else "", pay["currency"] if pay else "",
                         pay["receipt"] if pay else t("csv.unpaid"), paid_at])
    return _csv([head, *rows])
