"""The league's tables. Created with `CREATE TABLE IF NOT EXISTS` beside the game tables, in the
same SQLite file, through `Store.transaction()` (one writer, one lock)."""
from __future__ import annotations

from typing import Any

from ..core.store import Store

SCHEMA = (
    """CREATE TABLE IF NOT EXISTS league_members (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        name TEXT NOT NULL,
        adult INTEGER NOT NULL,            -- adulthood confirmed (seed 004: adults only)
        rating_id INTEGER,                 -- the player's id on the rating site, if known
        status TEXT NOT NULL,              -- candidate | approved | refused | ended
        status_date TEXT,
        status_reason TEXT,
        created_at INTEGER NOT NULL)""",
    """CREATE TABLE IF NOT EXISTS league_seasons (
        id TEXT PRIMARY KEY,
        n INTEGER NOT NULL UNIQUE,
        name TEXT NOT NULL,
        qualifying_days INTEGER NOT NULL,
        fee_individual REAL,
        fee_team REAL,
        currency TEXT NOT NULL,
        created_at INTEGER NOT NULL)""",
    """CREATE TABLE IF NOT EXISTS league_holdings (
        id TEXT PRIMARY KEY,               -- the club game spec's game_day
        season_id TEXT NOT NULL REFERENCES league_seasons(id),
        day INTEGER NOT NULL,              -- qualifying game day 1..N
        weekday TEXT NOT NULL,             -- sun | wed
        date TEXT NOT NULL,
        UNIQUE (season_id, day, weekday))""",
    """CREATE TABLE IF NOT EXISTS league_registrations (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        holding_id TEXT NOT NULL REFERENCES league_holdings(id),
        kind TEXT NOT NULL,                -- individual | team
        team_name TEXT,
        withdrawn INTEGER NOT NULL DEFAULT 0,
        created_at INTEGER NOT NULL)""",
    """CREATE TABLE IF NOT EXISTS league_registration_players (
        registration_id INTEGER NOT NULL REFERENCES league_registrations(id),
        member_id INTEGER NOT NULL REFERENCES league_members(id),
        position INTEGER NOT NULL,
        absent INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (registration_id, member_id))""",
    """CREATE TABLE IF NOT EXISTS league_payments (
        registration_id INTEGER PRIMARY KEY REFERENCES league_registrations(id),
        amount REAL NOT NULL,
        currency TEXT NOT NULL,
        receipt TEXT NOT NULL,
        method TEXT NOT NULL,              -- cash (seed 004: paid on site)
        paid_at INTEGER NOT NULL)""",
    """CREATE TABLE IF NOT EXISTS league_teams (
        holding_id TEXT NOT NULL REFERENCES league_holdings(id),
        id TEXT NOT NULL,                  -- the club game spec's team id
        position INTEGER NOT NULL,
        name TEXT NOT NULL,
        preformed INTEGER NOT NULL,
        PRIMARY KEY (holding_id, id))""",
    """CREATE TABLE IF NOT EXISTS league_team_players (
        holding_id TEXT NOT NULL,
        team_id TEXT NOT NULL,
        member_id INTEGER NOT NULL REFERENCES league_members(id),
        position INTEGER NOT NULL,
        filler INTEGER NOT NULL,           -- an individual added to a pre-formed team
        PRIMARY KEY (holding_id, member_id))""",
    """CREATE TABLE IF NOT EXISTS league_adjustments (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        season_id TEXT NOT NULL REFERENCES league_seasons(id),
        member_id INTEGER,
        name TEXT NOT NULL,
        points INTEGER NOT NULL,
        day INTEGER NOT NULL,
        reason TEXT NOT NULL,
        at INTEGER NOT NULL)""",
    """CREATE TABLE IF NOT EXISTS league_final_choices (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        season_id TEXT NOT NULL REFERENCES league_seasons(id),
        kind TEXT NOT NULL,                -- central_pick | central_fill | club_claims | declined
        players TEXT NOT NULL,             -- JSON [{"name", "member"}]; the latest per kind counts
        reason TEXT NOT NULL,
        at INTEGER NOT NULL)""",
    """CREATE TABLE IF NOT EXISTS league_awards (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        season_id TEXT NOT NULL REFERENCES league_seasons(id),
        kind TEXT NOT NULL,                -- crystal_sphinx
        body TEXT NOT NULL,
        reason TEXT NOT NULL,
        at INTEGER NOT NULL)""",
    """CREATE TABLE IF NOT EXISTS league_series (
        id TEXT PRIMARY KEY,
        n INTEGER NOT NULL UNIQUE,
        name TEXT NOT NULL,
        duels TEXT NOT NULL,               -- JSON [[game, game], ...]
        final TEXT NOT NULL,               -- JSON [game, ...]
        created_at INTEGER NOT NULL)""",
    """CREATE TABLE IF NOT EXISTS league_series_overrides (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        series_id TEXT NOT NULL REFERENCES league_series(id),
        scope TEXT NOT NULL,
        winner TEXT,                       -- null: the override is withdrawn
        reason TEXT NOT NULL,
        at INTEGER NOT NULL)""",
    """CREATE TABLE IF NOT EXISTS league_finish_order (
        game_id TEXT PRIMARY KEY,
        seq INTEGER NOT NULL UNIQUE,       -- larger = finished later (the series' tie-break)
        at INTEGER NOT NULL)""",
    """CREATE TABLE IF NOT EXISTS league_actions (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        at INTEGER NOT NULL,
        season_id TEXT,
        series_id TEXT,
        member_id INTEGER,
        kind TEXT NOT NULL,
        body TEXT NOT NULL,
        reason TEXT)""",
)


def ensure_schema(store: Store) -> None:
    with store.transaction() as db:
        for statement in SCHEMA:
            db.execute(statement)


def select(store: Store, columns: str, rest: str, args: tuple = ()) -> list[dict[str, Any]]:
    """Rows as dicts: `select(store, "id, name", "FROM league_members WHERE id=?", (1,))`."""
    names = [c.strip().split()[-1].split(".")[-1] for c in columns.split(",")]
    return [dict(zip(names, row)) for row in store.query(f"SELECT {columns} {rest}", args)]
