"""The state of one game, built from its spec and folded from its events."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .spec import DEFAULT_SPIN


@dataclass
class Sector:
    number: int
    kind: str
    questions: list[dict]
    played: bool = False
    result: str | None = None  # "experts" | "viewers"


@dataclass
class Timer:
    kind: str  # "minute" | "blitz" | "extra_minute" | "club_help"
    duration_ms: int
    remaining_ms: int
    running: bool
    ends_at: int | None  # server epoch ms while running


@dataclass
class Round:
    sector: int
    landed: int
    kind: str
    questions: int
    phase: str = "reading"  # reading | discussion | answer | club_help | closed
    question: int = 0
    results: list[str] = field(default_factory=list)
    early: bool = False
    player: str | None = None
    extra_used: bool = False
    judged: bool = False  # the current question has its verdict
    central_team: str | None = None  # club: who sat at the Central Table for this round
    club_correct: list[str] | None = None  # club: teams that wrote a correct answer
    # When the top was spun and when its arrow stops (server epoch ms); None in games recorded
    # before the reveal waited for the top: revealed already.
    spun_at: int | None = None
    reveal_at: int | None = None


@dataclass
class Team:
    id: str
    name: str
    players: list[str]
    lost_round: bool = False
    correct: int = 0
    central_correct: int = 0


@dataclass
class Game:
    id: str
    rules: str
    title: str
    target: int
    timers: dict[str, int]
    sectors: list[Sector]
    experts: dict[str, Any] | None
    status: str = "playing"
    score: dict[str, int] = field(default_factory=lambda: {"experts": 0, "viewers": 0})
    winner: str | None = None
    round: Round | None = None
    timer: Timer | None = None
    extra_minutes: int = 0
    club_help_used: bool = False
    decisive: dict[str, Any] = field(
        default_factory=lambda: {"requested": False, "active": False, "players": [], "before": None})
    prizes: list[dict] = field(default_factory=list)
    # club game (RULES.md §5)
    teams: list[Team] = field(default_factory=list)
    game_day: str | None = None
    central_team: str | None = None
    seated: list[str] = field(default_factory=list)
    left_team: str | None = None  # the team that just lost its round: never a candidate for that seat
    best_player: str | None = None
    meta: dict[str, Any] = field(default_factory=dict)  # season, stage, final_team
    spin: dict[str, int] = field(default_factory=lambda: dict(DEFAULT_SPIN))  # the top's timings

    @property
    def phase(self) -> str | None:
        return self.round.phase if self.round else None

    @property
    def in_round(self) -> bool:
        return self.round is not None and self.round.phase != "closed"

    def sector(self, number: int) -> Sector:
        return self.sectors[number - 1]

    def team(self, team_id: str) -> Team | None:
        return next((t for t in self.teams if t.id == team_id), None)

    def current_question(self) -> dict | None:
        if self.round is None:
            return None
        questions = self.sector(self.round.sector).questions
        return questions[self.round.question] if self.round.question < len(questions) else None


def new_game(game_id: str, spec: dict) -> Game:
    """The state before any event, from a spec already checked by `parse_spec`."""
    lost = set(spec.get("lost_before", []))
    return Game(
        id=game_id,
        rules=spec["rules"],
        title=spec["title"],
        target=spec["target"],
        timers=dict(spec["timers"]),
        # a spec stored before games had their own top's timings has none: the default's
        spin=dict(spec.get("spin") or DEFAULT_SPIN),
        sectors=[Sector(s["number"], s["kind"], s["questions"]) for s in spec["sectors"]],
        # the member ids stay in the spec (the league reads them there), not in the shown state
        experts={k: v for k, v in spec["experts"].items() if k != "members"} if spec.get("experts") else None,
        teams=[Team(t["id"], t["name"], list(t["players"]), lost_round=t["id"] in lost)
               for t in spec.get("teams", [])],
        game_day=spec.get("game_day"),
        meta={k: spec[k] for k in ("season", "stage", "final_team") if k in spec},
    )
