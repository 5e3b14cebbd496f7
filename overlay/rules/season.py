"""The club league season (RULES.md §5 rating, §6; seed 004): individual rating, best players
of the Central Table, the Final's two teams, team formation for a holding, the Final's winner.

Pure functions over small frozen records. Every administrative choice is an input
(`AdminChoice`, with its reason); where the rules leave a choice to the administration and none
is given, the result proposes one and lists what is still `pending`.
"""
from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Literal

from .errors import InputError, RuleError
from .standings import GameResult, margin

TEAM_SIZE = 6        # final teams and formed teams aim at six (seed 004)
MIN_TEAM = 4         # 4–6 players allowed when six cannot be formed
MAX_CLAIMS = 3       # extra best players may claim at most three Club team places
INVITE_EXTRA = 2     # a selection game invites two more players than the free places


# --- players ---------------------------------------------------------------------------------

@dataclass(frozen=True, eq=False)
class Player:
    """A player is the same player by member id when one is given, else by name
    (whitespace-collapsed, case-insensitive)."""

    name: str
    member_id: int | str | None = None

    def __post_init__(self) -> None:
        if not self.name.strip():
            raise InputError("season.player_name", "a player needs a name")

    @property
    def key(self) -> str:
        if self.member_id is not None:
            return f"member:{self.member_id}"
        return "name:" + " ".join(self.name.split()).casefold()

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Player) and self.key == other.key

    def __hash__(self) -> int:
        return hash(self.key)


def _distinct(players: Iterable[Player], what: str) -> tuple[Player, ...]:
    out = tuple(players)
    if len({p.key for p in out}) != len(out):
        raise InputError("season.duplicate_player", f"a player appears twice in {what}")
    return out


# --- individual rating (§5) --------------------------------------------------------------------

class Stage(StrEnum):
    QUALIFYING = "qualifying"
    FINAL = "final"


@dataclass(frozen=True)
class TeamGameRecord:
    """One team's part in one club game: its line-up and what it answered correctly
    (`central_correct` of the `correct` ones at the Central Table)."""

    game_id: str
    game_day: int
    holding: str
    stage: Stage
    team: str
    lineup: tuple[Player, ...]
    correct: int
    central_correct: int

    def __post_init__(self) -> None:
        if not 0 <= self.central_correct <= self.correct:
            raise InputError("season.record_counts",
                             f"{self.team} in {self.game_id}: need 0 <= central_correct <= correct")
        if self.game_day < 1:
            raise InputError("season.game_day", f"game day {self.game_day} is not 1 or later")
        _distinct(self.lineup, f"the line-up of {self.team} in {self.game_id}")

    @property
    def points(self) -> int:
        """What each player of the line-up gains: a Central Table answer is worth 2."""
        return self.correct + self.central_correct


@dataclass(frozen=True)
class RatingAdjustment:
    """A manual correction by the administration, recorded with its reason (§6 disputes)."""

    player: Player
    points: int
    game_day: int
    reason: str

    def __post_init__(self) -> None:
        if not self.reason.strip():
            raise InputError("season.reason", "a rating correction needs a reason")
        if self.game_day < 1:
            raise InputError("season.game_day", f"game day {self.game_day} is not 1 or later")


@dataclass(frozen=True)
class RatingRow:
    player: Player
    points: int
    games: int
    place: int                     # 1 + the number of players with more points (ties share)
    progression: tuple[int, ...]   # cumulative points after game day 1, 2, … (for a chart)
    adjustment: int = 0            # the part of `points` that comes from corrections


def rating_order(row: RatingRow) -> tuple[int, str, str]:
    """Best first; equal points are listed by name only for a stable display (not a rule)."""
    return (-row.points, row.player.name.casefold(), row.player.key)


def individual_rating(records: Iterable[TeamGameRecord], game_days: int | None = None,
                      adjustments: Iterable[RatingAdjustment] = ()) -> tuple[RatingRow, ...]:
    """The season's individual rating over qualifying games, best first."""
    qualifying = [r for r in records if r.stage is Stage.QUALIFYING]
    adjustments = tuple(adjustments)
    days = max([r.game_day for r in qualifying] + [a.game_day for a in adjustments], default=0)
    if game_days is not None:
        if days > game_days:
            raise InputError("season.game_day", f"game day {days} beyond the season's {game_days}")
        days = game_days

    day_of_game: dict[str, int] = {}
    seen_teams: set[tuple[str, str]] = set()
    seen_players: set[tuple[str, str]] = set()
    names: dict[str, Player] = {}
    per_day: dict[str, list[int]] = defaultdict(lambda: [0] * days)
    games: dict[str, int] = defaultdict(int)
    adjusted: dict[str, int] = defaultdict(int)

    for r in qualifying:
        if day_of_game.setdefault(r.game_id, r.game_day) != r.game_day:
            raise InputError("season.game_day", f"game {r.game_id} is on two game days")
        if (r.game_id, r.team) in seen_teams:
            raise InputError("season.team_twice", f"{r.team} recorded twice in {r.game_id}", team=r.team, game=r.game_id)
        seen_teams.add((r.game_id, r.team))
        for p in r.lineup:
            if (r.game_id, p.key) in seen_players:
                raise InputError("season.player_twice", f"{p.name} in two teams of {r.game_id}", name=p.name, game=r.game_id)
            seen_players.add((r.game_id, p.key))
            names.setdefault(p.key, p)
            per_day[p.key][r.game_day - 1] += r.points
            games[p.key] += 1
    for a in adjustments:
        names.setdefault(a.player.key, a.player)
        per_day[a.player.key][a.game_day - 1] += a.points
        adjusted[a.player.key] += a.points

    rows = []
    for key, player in names.items():
        cumulative, total = [], 0
        for gained in per_day[key]:
            total += gained
            cumulative.append(total)
        rows.append(RatingRow(player, total, games[key], 0, tuple(cumulative), adjusted[key]))
    rows.sort(key=rating_order)
    placed: list[RatingRow] = []
    for i, r in enumerate(rows):
        place = placed[-1].place if placed and placed[-1].points == r.points else i + 1
        placed.append(RatingRow(r.player, r.points, r.games, place, r.progression, r.adjustment))
    return tuple(placed)


# --- best players of the Central Table (§5) ----------------------------------------------------

@dataclass(frozen=True)
class BestPlayerNamed:
    """The host named `player` best player of the Central Table in game `game_id`."""

    game_id: str
    game_day: int
    stage: Stage
    player: Player


@dataclass(frozen=True)
class BestPlayerRow:
    player: Player
    times: int
    games: tuple[str, ...]


def best_players(named: Iterable[BestPlayerNamed]) -> tuple[BestPlayerRow, ...]:
    """Every player named best in a qualifying game this season, in order of first naming."""
    games_seen: set[str] = set()
    by_player: dict[str, tuple[Player, list[str]]] = {}
    ordered = sorted((n for n in named if n.stage is Stage.QUALIFYING), key=lambda n: n.game_day)
    for n in ordered:
        if n.game_id in games_seen:
            raise InputError("season.best_twice", f"two best players named in {n.game_id}")
        games_seen.add(n.game_id)
        by_player.setdefault(n.player.key, (n.player, []))[1].append(n.game_id)
    return tuple(BestPlayerRow(p, len(g), tuple(g)) for p, g in by_player.values())


# --- the Final's teams (§6) --------------------------------------------------------------------

@dataclass(frozen=True)
class AdminChoice:
    """Players named by the administration (or, for declines, players who refused), with why."""

    players: tuple[Player, ...]
    reason: str

    def __post_init__(self) -> None:
        if not self.reason.strip():
            raise InputError("season.reason", "an administrative choice needs a reason")
        _distinct(self.players, "an administrative choice")


class Basis(StrEnum):
    """Which rule put a player in a final team."""

    BEST_PLAYER = "best_player"      # named best player; six or fewer, so all of them
    ADMIN_PICK = "admin_pick"        # more than six best players: the administration's six
    PROPOSED_PICK = "proposed_pick"  # …no pick yet: the six highest-rated, to be confirmed
    ADMIN_FILL = "admin_fill"        # fewer than six: the administration filled the place
    PROPOSED_FILL = "proposed_fill"  # …no fill yet: highest-rated others, to be confirmed
    CLAIM = "claim"                  # an extra best player's claimed Club team place
    RATING = "rating"                # highest-rated not in the Central Table team
    TIE_DECISION = "tie_decision"    # equal points at the Club team's cut: the administration's decision


class Pending(StrEnum):
    """What the administration still has to decide before the teams are final."""

    CENTRAL_PICK = "central_table_pick"
    CENTRAL_FILL = "central_table_fill"
    RATING_TIE_CLUB = "rating_tie_club"      # the Club team's rating cut splits equal points
    RATING_TIE_INVITE = "rating_tie_invite"  # the invite list's cut splits equal points


@dataclass(frozen=True)
class Member:
    player: Player
    rule: Basis
    points: int


@dataclass(frozen=True)
class FinalTeams:
    central_table: tuple[Member, ...]
    club: tuple[Member, ...]
    free_places: int                 # Club team places left for a selection game
    invite: tuple[Player, ...]       # invited to that selection game, by rating
    declined: tuple[Player, ...]
    pending: tuple[Pending, ...]


def _cut_splits_tie(points: dict[str, int], ordered: Sequence[Player], cut: int) -> bool:
    return 0 < cut < len(ordered) and points[ordered[cut - 1].key] == points[ordered[cut].key]


def propose_final_teams(rating: Sequence[RatingRow], best: Sequence[Player], *,
                        central_pick: AdminChoice | None = None,
                        central_fill: AdminChoice | None = None,
                        club_claims: AdminChoice | None = None,
                        declined: AdminChoice | None = None,
                        club_tie: AdminChoice | None = None) -> FinalTeams:
    """The Central Table team and the Club team for the Final, by §6.

    `rating`: the season's rating; `best`: the season's best players of the Central Table.
    `central_pick`: the administration's six when more than six best players are available;
    `central_fill`: the players it adds when fewer than six are; `club_claims`: the extra best
    players (at most three) given Club team places; `declined`: players who refused the Final.
    A player entitled to a Club team place who declines leaves the place free for a selection
    game (it is not filled from the rating). `club_tie`: when the Club team's cut splits equal
    points, the tied players the administration gives the remaining places (§6 Disputes)."""
    best = _distinct(best, "the best players")
    points = {r.player.key: r.points for r in rating}
    by_rating = [r.player for r in sorted(rating, key=rating_order)]
    out = {p.key for p in declined.players} if declined else set()
    pending: list[Pending] = []

    def rated(players: Iterable[Player]) -> list[Player]:  # highest-rated first, stable
        return sorted(players, key=lambda p: -points.get(p.key, 0))

    def members(players: Iterable[Player], rule: Basis) -> list[Member]:
        return [Member(p, rule, points.get(p.key, 0)) for p in players]

    available = [p for p in best if p.key not in out]
    best_keys = {p.key for p in best}

    # Central Table team
    if len(available) > TEAM_SIZE:
        if central_fill is not None:
            raise RuleError("season.central_fill", "the administration fills only when fewer than six", variant="not_needed")
        if central_pick is None:
            if club_claims is not None:
                raise RuleError("season.claims_before_pick",
                                "Club team claims follow the administration's Central Table pick")
            central = members(rated(available)[:TEAM_SIZE], Basis.PROPOSED_PICK)
            pending.append(Pending.CENTRAL_PICK)
        else:
            picked = central_pick.players
            if len(picked) != TEAM_SIZE:
                raise RuleError("season.central_pick", "the administration picks exactly six", variant="six")
            for p in picked:
                if p.key not in best_keys:
                    raise RuleError("season.central_pick", f"{p.name} was never named best player", variant="not_best", name=p.name)
                if p.key in out:
                    raise RuleError("season.central_pick", f"{p.name} declined the Final", variant="declined", name=p.name)
            central = members(picked, Basis.ADMIN_PICK)
    else:
        if central_pick is not None:
            raise RuleError("season.central_pick", "the administration picks only when more than six", variant="not_needed")
        central = members(available, Basis.BEST_PLAYER)
        need = TEAM_SIZE - len(available)
        if central_fill is not None:
            if len(central_fill.players) != need:
                raise RuleError("season.central_fill", f"the Central Table team needs {need} more", variant="need", n=need)
            for p in central_fill.players:
                if p.key in best_keys or p.key in out:
                    raise RuleError("season.central_fill",
                                    f"{p.name} is a best player or declined the Final", variant="best", name=p.name)
            central += members(central_fill.players, Basis.ADMIN_FILL)
        elif need:
            others = [p for p in by_rating if p.key not in best_keys and p.key not in out]
            central += members(others[:need], Basis.PROPOSED_FILL)
            pending.append(Pending.CENTRAL_FILL)
    central_keys = {m.player.key for m in central}

    # Club team: claimants, then the highest-rated of the rest
    extras = {p.key for p in available} - central_keys
    claims = club_claims.players if club_claims else ()
    if len(claims) > MAX_CLAIMS:
        raise RuleError("season.claims", f"at most {MAX_CLAIMS} extra best players claim places", variant="many", n=MAX_CLAIMS)
    for p in claims:
        if p.key not in extras:
            raise RuleError("season.claims", f"{p.name} is not an available extra best player", variant="not_extra", name=p.name)
    claim_keys = {p.key for p in claims}
    pool = [p for p in by_rating if p.key not in central_keys and p.key not in claim_keys]
    places = TEAM_SIZE - len(claims)
    entitled = pool[:places]
    decided: list[Player] = []
    if _cut_splits_tie(points, pool, places):
        if club_tie is None:
            pending.append(Pending.RATING_TIE_CLUB)
        else:
            edge = points[pool[places - 1].key]
            above = [p for p in entitled if points[p.key] > edge]
            tied = [p for p in pool if points[p.key] == edge]
            need = places - len(above)
            names = ", ".join(p.name for p in tied)
            if len(club_tie.players) != need:
                raise RuleError("season.club_tie_count",
                                f"the tie at the Club team's cut leaves {need} place(s) among {names}",
                                n=need, players=names)
            for p in club_tie.players:
                if p.key not in {t.key for t in tied}:
                    raise RuleError("season.club_tie_not_tied",
                                    f"{p.name} is not among the tied players ({names})", player=p.name, players=names)
            decided = list(club_tie.players)
            entitled = above + decided
            pool = entitled + [p for p in pool if p.key not in {e.key for e in entitled}]
    elif club_tie is not None and club_tie.players:
        raise RuleError("season.club_tie_none", "the Club team's cut splits no equal points: nothing to decide")
    decided_keys = {p.key for p in decided}
    club = members(claims, Basis.CLAIM) + members(
        (p for p in entitled if p.key not in out and p.key not in decided_keys), Basis.RATING) + members(
        (p for p in decided if p.key not in out), Basis.TIE_DECISION)

    # Declined places: a selection game for the next players by rating
    free = TEAM_SIZE - len(club)
    invite: list[Player] = []
    if free:
        rest = [p for p in pool[places:] if p.key not in out]
        invite = rest[:free + INVITE_EXTRA]
        if _cut_splits_tie(points, rest, free + INVITE_EXTRA):
            pending.append(Pending.RATING_TIE_INVITE)
    return FinalTeams(tuple(central), tuple(club), free, tuple(invite),
                      declined.players if declined else (), tuple(pending))


# --- team formation for a holding (§6) ---------------------------------------------------------

@dataclass(frozen=True)
class TeamRegistration:
    """A pre-formed team that registered with the team fee: its players, and who is absent."""

    name: str
    players: tuple[Player, ...]
    absent: tuple[Player, ...] = ()

    def __post_init__(self) -> None:
        _distinct(self.players, f"team {self.name}")
        if len(self.players) > TEAM_SIZE:
            raise InputError("season.team_size", f"team {self.name} has more than six players", team=self.name)
        if not {p.key for p in self.absent} <= {p.key for p in self.players}:
            raise InputError("season.absent", f"an absentee is not a player of {self.name}")

    @property
    def present(self) -> tuple[Player, ...]:
        gone = {p.key for p in self.absent}
        return tuple(p for p in self.players if p.key not in gone)


@dataclass(frozen=True)
class FormedTeam:
    players: tuple[Player, ...]
    name: str | None = None          # the pre-formed team's name; None: formed from individuals
    fillers: tuple[Player, ...] = ()  # individuals added to a pre-formed team

    @property
    def preformed(self) -> bool:
        return self.name is not None


@dataclass(frozen=True)
class Formation:
    teams: tuple[FormedTeam, ...]
    unplaced: tuple[Player, ...]   # individuals no team could take (fewer than four left)
    short: tuple[str, ...]         # pre-formed teams still below four players


def _balanced_sizes(n: int) -> list[int]:
    """Fewest teams of at most six for n players, sizes differing by at most one, each at
    least four; players that do not fit (n in 1–3, or the seventh of seven) are left over."""
    teams = -(-n // TEAM_SIZE)
    while teams and n // teams < MIN_TEAM:
        teams -= 1
    if not teams:
        return []
    placed = min(n, teams * TEAM_SIZE)
    return [placed // teams + (i < placed % teams) for i in range(teams)]


def form_teams(teams: Sequence[TeamRegistration], individuals: Sequence[Player]) -> Formation:
    """Teams for one holding, in registration order. Pre-formed teams keep their present
    players and are filled up to six from individuals (earliest registered first); the other
    individuals form teams of six where possible, four to six, sizes balanced."""
    individuals = _distinct(individuals, "the individual registrations")
    in_teams = [p for t in teams for p in t.players]
    _distinct(in_teams, "the team registrations")
    if {p.key for p in in_teams} & {p.key for p in individuals}:
        raise InputError("season.registered_twice", "a team's player also registered individually")

    queue = list(individuals)
    formed: list[FormedTeam] = []
    short: list[str] = []
    for t in teams:
        take = max(0, TEAM_SIZE - len(t.present))
        fillers, queue = queue[:take], queue[take:]
        formed.append(FormedTeam(t.present + tuple(fillers), t.name, tuple(fillers)))
        if len(formed[-1].players) < MIN_TEAM:
            short.append(t.name)
    for size in _balanced_sizes(len(queue)):
        formed.append(FormedTeam(tuple(queue[:size])))
        queue = queue[size:]
    return Formation(tuple(formed), tuple(queue), tuple(short))


# --- the Final's winner (§6) -------------------------------------------------------------------

FinalWinner = Literal["club", "central_table"]


def final_outcome(club_result: GameResult | None,
                  central_result: GameResult | None) -> FinalWinner | None:
    """The Club team plays first, the Central Table team second; the larger margin wins and
    equal scores go to the second team. None until both games are finished."""
    if club_result is None or central_result is None:
        return None
    if not (club_result.finished and central_result.finished):
        return None
    return "club" if margin(club_result) > margin(central_result) else "central_table"
