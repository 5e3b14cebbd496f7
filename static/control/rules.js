// What the rules allow right now, computed from the operator state — a mirror of the server's
// MOVES table (overlay/rules/game.py) and handlers (tv.py), RULES.md §2–3. It only decides
// which buttons are enabled and why; the server decides for real, and when it refuses, the
// panel shows the server's message.
//
// check(state, type, fields) → {ok: true} | {ok: false, reason: "<i18n key>", params: {...}}

const BOTH = ["tv", "club"];
const TV = ["tv"];
const NO_ROUND = [null, "closed"];
const MULTI = ["blitz", "superblitz"];

const MOVES = {
  spin: { rules: BOTH, phases: NO_ROUND },
  start_timer: { rules: BOTH, phases: ["reading"] },
  pause_timer: { rules: BOTH, phases: ["discussion", "club_help"] },
  resume_timer: { rules: BOTH, phases: ["discussion", "club_help"] },
  early_answer: { rules: TV, phases: ["reading"] },
  extra_minute: { rules: TV, phases: ["discussion", "answer"] },
  club_help: { rules: TV, phases: ["answer"] },
  judge: { rules: BOTH, phases: ["discussion", "answer", "club_help"] },
  choose_player: { rules: BOTH, phases: ["reading"] },
  request_decisive_round: { rules: TV, phases: NO_ROUND },
  decide_decisive_round: { rules: TV, phases: NO_ROUND },
};

const no = (reason, params = {}) => ({ ok: false, reason, params });
const YES = { ok: true };

export function phaseOf(state) {
  return state?.round ? state.round.phase : null;
}

export function inRound(state) {
  return !!state?.round && state.round.phase !== "closed";
}

export function singleQuestion(state) {
  return !!state?.round && !MULTI.includes(state.round.kind);
}

/** Players who may be named now (superblitz): the decisive three, the Central Table team, or the team. */
export function eligiblePlayers(state) {
  if (!state) return [];
  if (state.decisive?.active) return [...state.decisive.players];
  if (state.rules === "club") {
    const team = (state.teams || []).find((x) => x.id === state.central?.team);
    return team ? [...team.players] : [];
  }
  return [...(state.experts?.players || [])];
}

function phaseError(state, move) {
  const phase = phaseOf(state);
  const noRoundMove = move.phases.every((p) => NO_ROUND.includes(p));
  if (noRoundMove && inRound(state)) return no("why.round_in_progress", { phase });
  if (!inRound(state) && !move.phases.includes(null) && !move.phases.includes("closed")) {
    return no(phase === null ? "why.no_round_yet" : "why.no_round");
  }
  return no("why.wrong_phase", { phase });
}

const HANDLERS = {
  spin(s) {
    if (s.decisive?.requested) return no("why.decisive_waits");
    if (s.rules === "club" && !s.central?.team) return no("why.central_empty");
    if (s.sectors.every((x) => x.played)) return no("why.table_exhausted");
    return YES;
  },
  start_timer(s) {
    if (s.round.kind === "superblitz" && !s.round.player) return no("why.player_not_chosen");
    return YES;
  },
  pause_timer(s) {
    return s.timer && s.timer.running ? YES : no("why.timer_not_running");
  },
  resume_timer(s) {
    return s.timer && !s.timer.running && s.timer.remaining_ms > 0 ? YES : no("why.timer_not_paused");
  },
  early_answer(s) {
    return singleQuestion(s) ? YES : no("why.multi_question");
  },
  extra_minute(s) {
    if (!singleQuestion(s)) return no("why.multi_question");
    if (s.decisive?.active) return no("why.decisive_active");
    if (s.round.judged) return no("why.judged");
    if (s.round.extra_used) return no("why.extra_used");
    if ((s.extra_minutes || 0) < 1) return no("why.no_extra_minute");
    return YES;
  },
  club_help(s) {
    if (!singleQuestion(s)) return no("why.multi_question");
    if (s.decisive?.active) return no("why.decisive_active");
    if (s.club_help?.used) return no("why.club_help_used");
    if (s.score.experts >= s.score.viewers) return no("why.not_behind");
    return YES;
  },
  judge() {
    return YES;
  },
  choose_player(s, f) {
    if (s.round.kind !== "superblitz") return no("why.not_superblitz");
    if (s.round.question !== 0 || s.timer) return no("why.player_choice_closed");
    const allowed = eligiblePlayers(s);
    if (f.player !== undefined && allowed.length && !allowed.includes(f.player)) {
      return no("why.unknown_player", { player: f.player });
    }
    return YES;
  },
  request_decisive_round(s) {
    if (s.decisive?.active) return no("why.decisive_running");
    if (s.decisive?.requested) return no("why.decisive_waits");
    if (s.score.experts !== s.target - 1) return no("why.decisive_score", { n: s.target - 1 });
    return YES;
  },
  decide_decisive_round(s, f) {
    if (!s.decisive?.requested) return no("why.no_decisive_request");
    if (f.granted) {
      const players = f.players || [];
      if (players.length !== 3 || new Set(players).size !== 3) return no("why.three_players");
      const known = s.experts?.players || [];
      const stranger = players.find((p) => known.length && !known.includes(p));
      if (stranger) return no("why.unknown_player", { player: stranger });
    }
    return YES;
  },
};

/** May `type` (with `fields`) be played now? */
export function check(state, type, fields = {}) {
  if (!state) return no("why.no_game");
  if (type === "undo") return state.undo ? YES : no("why.nothing_to_undo");
  const move = MOVES[type];
  if (!move) return no("why.unknown");
  if (!move.rules.includes(state.rules)) return no("why.tv_only");
  if (state.status === "finished") return no("why.game_over");
  if (!move.phases.includes(phaseOf(state))) return phaseError(state, move);
  return HANDLERS[type](state, fields);
}

/** The sector a spin landing on `landed` would play: the first unplayed one clockwise. */
export function nextUnplayed(sectors, landed) {
  const n = sectors.length;
  for (let step = 0; step < n; step++) {
    const number = ((landed - 1 + step) % n) + 1;
    if (!sectors[number - 1].played) return number;
  }
  return null;
}
