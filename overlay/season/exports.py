"""CSV exports for the administration: the season's rating and the fees taken. UTF-8 with a
byte-order mark (spreadsheets then read the Cyrillic right); `excel=True` gives what a
Russian-, Ukrainian- or German-locale Excel opens by a double click: `;` between cells and a
decimal comma (those locales use the comma as the decimal sign). Headers in the chosen language
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


def _cell(value: object, excel: bool) -> object:
    """Money (a float) as 12 or 12.50 — 12,50 for Excel; texts neutralised against formulas."""
    if isinstance(value, float):
        text = str(int(value)) if value.is_integer() else f"{value:.2f}"
        return text.replace(".", ",") if excel else text
    return escape(value)


def _csv(rows: list[list], excel: bool = False) -> str:
    out = io.StringIO()
    out.write("\ufeff")
    writer = csv.writer(out, delimiter=";" if excel else ",", lineterminator="\r\n")
    writer.writerows([_cell(cell, excel) for cell in row] for row in rows)
    return out.getvalue()


def rating_csv(results: Results, season_id: str, lang: str, excel: bool = False) -> str:
    t = translator(lang)
    data = results.rating(season_id)
    head = [t("csv.place"), t("csv.player"), t("csv.member"), t("csv.points"), t("csv.games"),
            t("csv.adjustment")] + [t("csv.after_day", n=d) for d in range(1, data["days"] + 1)]
    rows = [[r["place"], r["player"], r["member"] or "", r["points"], r["games"], r["adjustment"], *r["progression"]]
            for r in data["rating"]]
    return _csv([head, *rows], excel)


def fees_csv(seasons: Seasons, holdings: Holdings, season_id: str, lang: str, excel: bool = False) -> str:
    """One row per registration (paid or not: a column says which, the receipt column holds only
    receipts), then the totals: registrations, paid, and the sum per currency."""
    t = translator(lang)
    season = seasons.get(season_id)
    head = [t("csv.day"), t("csv.holding"), t("csv.date"), t("csv.registration"), t("csv.kind"), t("csv.team"),
            t("csv.players"), t("csv.fee_status"), t("csv.amount"), t("csv.currency"), t("csv.receipt"), t("csv.paid_at")]
    rows = []
    sums: dict[str, float] = {}
    paid = 0
    for h in seasons.holdings(season["id"]):
        for r in holdings.registrations(h["id"]):
            pay = r["payment"]
            paid_at = dt.datetime.fromtimestamp(pay["paid_at"] / 1000).strftime("%Y-%m-%d %H:%M") if pay else ""
            rows.append([h["day"], h["id"], h["date"], r["id"], t(f"kind.{r['kind']}"), r["team_name"] or "",
                         "; ".join(p["name"] for p in r["players"]),
                         t("csv.paid") if pay else t("csv.unpaid"),
                         float(pay["amount"]) if pay else "", pay["currency"] if pay else "",
                         pay["receipt"] if pay else "", paid_at])
            if pay:
                paid += 1
                sums[pay["currency"]] = sums.get(pay["currency"], 0) + pay["amount"]
    totals = [[t("csv.total"), "", "", len(rows), "", "", "", t("csv.paid_of", n=paid, total=len(rows)),
               float(amount), currency, "", ""] for currency, amount in sorted(sums.items())] or \
        [[t("csv.total"), "", "", len(rows), "", "", "", t("csv.paid_of", n=0, total=len(rows)), 0.0, "", "", ""]]
    return _csv([head, *rows, [], *totals], excel)
