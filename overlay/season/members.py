"""Members of the club (seed 004): adults approved by the administration, who may refuse a
candidate or end a membership. Membership is free and open-ended; every status change carries
its date and reason."""
from __future__ import annotations

from typing import Any

from ..rules.season import Player
from . import check
from .core import Core
from .schema import select

STATUSES = ("candidate", "approved", "refused", "ended")
# status → the statuses the administration may move a member to
MOVES = {
    "candidate": {"approved", "refused"},
    "approved": {"ended"},
    "refused": {"approved"},   # a candidate refused earlier may be approved later
    "ended": {"approved"},     # a former member may be admitted again
}
COLUMNS = "id, name, adult, rating_id, status, status_date, status_reason, created_at"


def _public(row: dict) -> dict:
    return {**row, "adult": bool(row["adult"])}


def _rating_id(value: Any) -> int | None:
    if value is None:
        return None
    if isinstance(value, str) and value.strip().isascii() and value.strip().isdigit():
        value = int(value.strip())
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 10**9:
        raise check.bad("rating_id", "must be the rating site's player id (a whole number) or null", "rating_id")
    return value


def name_key(name: str) -> str:
    return " ".join(name.split()).casefold()


class Members:
    def __init__(self, core: Core) -> None:
        self.core = core

    # reading ---------------------------------------------------------------------------------

    def all(self) -> list[dict]:
        return [_public(r) for r in select(self.core.store, COLUMNS, "FROM league_members ORDER BY id")]

    def get(self, member_id: Any, *, where: str | None = None) -> dict:
        """A member by id; unknown: 404 for an id in the path, 400 for one named in a body (`where`)."""
        rows = select(self.core.store, COLUMNS, "FROM league_members WHERE id=?", (member_id,)) \
            if isinstance(member_id, int) and not isinstance(member_id, bool) else []
        if not rows:
            message = f"There is no member {member_id!r}. GET /api/members lists them."
            if where:
                raise check.InputError("unknown_member", f"{where}: {message}", member=member_id)
            raise check.NotFound("unknown_member", message, member=member_id)
        return _public(rows[0])

    def by_ids(self, ids: list[int]) -> dict[int, dict]:
        return {m["id"]: m for m in self.all() if m["id"] in set(ids)}

    def player(self, member: dict) -> Player:
        return Player(member["name"], member["id"])

    def resolve(self, name: str, among: list[dict] | None = None, everyone: list[dict] | None = None) -> Player:
        """A name from a game's line-up: the member of that name when exactly one matches (among
        `among`, e.g. the team's members, else among all members), otherwise the name itself."""
        key = name_key(name)
        if among:
            found = [m for m in among if name_key(m["name"]) == key]
            if len(found) == 1:
                return self.player(found[0])
        found = [m for m in (everyone if everyone is not None else self.all()) if name_key(m["name"]) == key]
        if len(found) == 1:
            return self.player(found[0])
        return Player(" ".join(name.split()))  # nobody, or namesakes: identified by name only

    def ref(self, value: Any, where: str) -> Player:
        """A player named in a request: a member id (number) or a name (text)."""
        if isinstance(value, int) and not isinstance(value, bool):
            return self.player(self.get(value, where=where))
        if isinstance(value, str):
            player = self.resolve(check.text(value, where))  # type: ignore[arg-type]
            if player.member_id is None:  # no phantom player: a correction or choice names a member
                raise check.rule("not_a_member", f"{where}: {player.name!r} is no member (or several members "
                                 "have that name: give the member's number).", player=player.name)
            return player
        raise check.bad(where, "must be a member id (number) or a player's name (text)", "player")

    def require_approved(self, member_ids: list[int], where: str) -> dict[int, dict]:
        found = self.by_ids(member_ids)
        for mid in member_ids:
            if mid not in found:
                raise check.InputError("unknown_member", f"{where}: there is no member {mid}. GET /api/members lists them.",
                                       member=mid)
            if found[mid]["status"] != "approved":
                raise check.rule("member_not_approved",
                                 f"{found[mid]['name']} (member {mid}) is {found[mid]['status']}, not approved: "
                                 "only approved members play.", name=found[mid]["name"], status=found[mid]["status"])
        return found

    # changing --------------------------------------------------------------------------------

    def create(self, body: Any) -> dict:
        body = check.obj(body, {"name", "adult", "rating_id"}, {"name"})
        name = check.text(body["name"], "name")
        adult = check.flag(body.get("adult", False), "adult")
        rating_id = _rating_id(body.get("rating_id"))
        core = self.core
        with core.store.transaction() as db:
            cur = db.execute("INSERT INTO league_members (name, adult, rating_id, status, created_at) "
                             "VALUES (?,?,?,?,?)", (name, int(adult), rating_id, "candidate", core.now()))
            mid = cur.lastrowid
            core.record(db, "member_created", {"name": name, "adult": adult, "rating_id": rating_id}, member=mid)
        return self.get(mid)

    def edit(self, member_id: Any, body: Any) -> dict:
        member = self.get(member_id)
        body = check.obj(body, {"name", "adult", "rating_id", "reason"}, {"reason"})
        why = check.reason(body["reason"])
        changes: dict[str, Any] = {}
        if "name" in body:
            changes["name"] = check.text(body["name"], "name")
        if "adult" in body:
            changes["adult"] = check.flag(body["adult"], "adult")
        if "rating_id" in body:
            changes["rating_id"] = _rating_id(body["rating_id"])
        changes = {k: v for k, v in changes.items() if v != member[k]}
        if not changes:
            raise check.bad("body", "changes nothing: send name, adult or rating_id with a new value", "no_change")
        if changes.get("adult") is False and member["status"] == "approved":
            raise check.rule("member_approved", "An approved member's adulthood cannot be withdrawn; end the membership instead.",
                             name=member["name"])
        core = self.core
        with core.store.transaction() as db:
            for key, value in changes.items():
                db.execute(f"UPDATE league_members SET {key}=? WHERE id=?",
                           (int(value) if isinstance(value, bool) else value, member["id"]))
            core.record(db, "member_edited",
                        {"before": {k: member[k] for k in changes}, "after": changes}, why, member=member["id"])
        core.changed(members=True)
        return self.get(member["id"])

    def set_status(self, member_id: Any, body: Any) -> dict:
        member = self.get(member_id)
        body = check.obj(body, {"status", "date", "reason"}, {"status", "date", "reason"})
        status = body["status"]
        if status not in STATUSES[1:]:
            raise check.bad("status", "must be approved, refused or ended", "status")
        when = check.date(body["date"], "date").isoformat()
        why = check.reason(body["reason"])
        if status not in MOVES[member["status"]]:
            allowed = ", ".join(sorted(MOVES[member["status"]]))
            raise check.rule("status_change", f"{member['name']} is {member['status']}: can become {allowed}, not {status}.",
                             name=member["name"], status=member["status"], to=status)
        if status == "approved" and not member["adult"]:
            raise check.rule("not_adult", f"Confirm that {member['name']} is an adult first: only adults become members.",
                             name=member["name"])
        core = self.core
        with core.store.transaction() as db:
            db.execute("UPDATE league_members SET status=?, status_date=?, status_reason=? WHERE id=?",
                       (status, when, why, member["id"]))
            core.record(db, "member_status", {"from": member["status"], "to": status, "date": when},
                        why, member=member["id"])
        return self.get(member["id"])
