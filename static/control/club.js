// The club game screen (RULES.md §5), built for speed: the club tables as a grid of large
// toggles (or a table number and Enter), «Записать» sends the whole list; the Central Table
// team, the candidates after a lost round, «Жребий» / «Посадить», the best player after a win;
// and the round controls. Which buttons work, and why not, comes from the server's own verdict
// (`state.moves`); a hotkey always asks the server, whose refusal is shown.

import { t, onLangChange } from "./i18n.js";
import { pageConfig, h, notice, refusalText, wireLanguage, safeUrl, dropPointerFocus } from "./common.js";
import { ControlConnection } from "./connection.js";
import { kindName, phaseName, describeUndo, clockText, sideName } from "./describe.js";

const cfg = pageConfig();
wireLanguage(cfg.lang);
const conn = new ControlConnection({ settleMs: cfg.settle_ms ?? 250 });
// With no game on air the server emits `state` with no payload (python-socketio sends None as no
// argument), which connection.js skips: take it as "no game", so the screen says so.
conn.socket.on("state", (s) => { if (s === undefined || s === null) conn.acceptState(null); });
const $ = (id) => document.getElementById(id);

const ENTRY_MS = 6000;

// ---- what the server allows now -------------------------------------------------------------

/** {ok, code, message} for `type` in `state`, from the server's `moves` (undo: `state.undo`). */
function move(state, type) {
  if (!state) return { ok: false, code: "no_game_on_air", message: "" };
  if (type === "undo") return state.undo ? { ok: true } : { ok: false, code: "nothing_to_undo", message: "" };
  return state.moves?.[type] || { ok: false, code: "unknown_command", message: "" };
}

/** The reason in the panel's language (the rule's code) — the server's own words go in the tooltip. */
function whyText(result) {
  if (!conn.connected) return t("why.offline");
  if (!result || result.ok) return "";
  const key = `err.${result.code}`;
  return t(key) !== key ? t(key) : result.message || t("err.refused");
}

function whyTitle(result) {
  const why = whyText(result);
  return result && !result.ok && result.message && conn.connected ? `${why} — ${result.message}` : why;
}

// ---- teams and table numbers: a team's table is its place in the game's list, from 1 ---------

const teamsOf = (state) => state?.teams || [];
const teamById = (state, id) => teamsOf(state).find((x) => x.id === id) || null;
const tableOf = (state, id) => teamsOf(state).findIndex((x) => x.id === id) + 1;
const teamName = (state, id) => teamById(state, id)?.name || id || "";
const tableLabel = (state, id) => t("club.table_team", { n: tableOf(state, id), name: teamName(state, id) });
/** The team that answers aloud this question: it is never among the club tables' answers. */
const aloudTeam = (state) => state?.round?.central_team ?? state?.central?.team ?? null;

// ---- sending -------------------------------------------------------------------------------

function setPending(id, on) {
  document.querySelectorAll(`[data-action="${id}"]`).forEach((el) => {
    el.classList.toggle("pending", on);
    if (on) el.setAttribute("aria-busy", "true");
    else el.removeAttribute("aria-busy");
  });
}

function report(answer, label) {
  if (answer.state) {
    notice("ok", t("done", { action: label }), "", { ms: 1800, code: "ok" });
    return;
  }
  const error = answer.error || {};
  if (answer.status === 409) {
    const key = `err.${error.code}`;
    notice("info", t(key) !== key ? t(key) : t("err.stale_rev"), t("stale.detail"), { ms: 6000, code: error.code });
    return;
  }
  const { title, detail } = refusalText(error);
  notice("error", `${label}: ${title}`, detail, { code: error.code });
}

/** One command for the game on screen, with `expected_rev` (connection.js); the server decides. */
async function send(id, body, label, basis) {
  if (!conn.connected) {
    notice("error", t("err.disconnected"), t("conn.lost.text"), { code: "disconnected" });
    return null;
  }
  setPending(id, true);
  try {
    const answer = await conn.command(body, basis);
    report(answer, label);
    return answer;
  } finally {
    setPending(id, false);
  }
}

// ---- buttons built once; every state only updates them ----------------------------------------

const buttons = new Map();

function actionButton(id, label, key, onclick, cls = "") {
  const lbl = h("span", { class: "label" }, label);
  const kbd = h("kbd", { class: "key" }, key);
  const why = h("small", { class: "why" });
  const btn = h("button", { type: "button", class: `btn act ${cls}`, "data-action": id }, lbl, kbd, why);
  btn.addEventListener("click", onclick);
  const wrap = h("span", { class: "act-wrap" }, btn);
  buttons.set(id, { wrap, btn, lbl, kbd, why });
  return wrap;
}

/** label, key, and the server's verdict (or a local one: {ok:false, code, local:"<i18n key>"}). */
function setButton(id, label, key, result) {
  const el = buttons.get(id);
  if (!el) return;
  const reason = result.local ? (conn.connected ? t(result.local) : t("why.offline")) : whyText(result);
  el.lbl.textContent = label;
  el.kbd.textContent = key;
  el.why.textContent = result.ok && conn.connected ? "" : reason;
  el.btn.disabled = !conn.connected || !result.ok;
  el.wrap.title = el.btn.disabled ? (result.local ? reason : whyTitle(result)) : `${label} (${key})`;
}

function pauseType(state) {
  const timer = state?.timer;
  return timer && !timer.running && timer.remaining_ms > 0 ? "resume_timer" : "pause_timer";
}

const ROUND_ACTIONS = [
  { id: "spin", type: "spin", body: () => ({ type: "spin" }), label: () => t("act.spin"), key: "W", cls: "btn-primary" },
  { id: "start_timer", type: "start_timer", body: () => ({ type: "start_timer" }), label: () => t("act.start_timer"), key: () => t("key.space"), cls: "btn-go" },
  { id: "correct", type: "judge", body: () => ({ type: "judge", correct: true }), label: () => t("act.correct"), key: "+", cls: "btn-correct" },
  { id: "incorrect", type: "judge", body: () => ({ type: "judge", correct: false }), label: () => t("act.incorrect"), key: "−", cls: "btn-incorrect" },
  { id: "pause", type: (s) => pauseType(s), body: (s) => ({ type: pauseType(s) }),
    label: (s) => t(pauseType(s) === "resume_timer" ? "act.resume" : "act.pause"), key: "P" },
];
const val = (x, s) => (typeof x === "function" ? x(s) : x);

function buildButtons() {
  const grid = $("actions");
  for (const a of ROUND_ACTIONS) {
    grid.append(actionButton(a.id, "", "", () => {
      const s = conn.state;
      send(a.id, a.body(s), val(a.label, s));
    }, a.cls || ""));
  }
  $("undo-row").append(actionButton("undo", "", "", openUndo, "btn-undo"));
  $("tables-buttons").append(
    actionButton("record", "", "", () => record(), "btn-primary record-btn"),
    actionButton("reset-draft", "", "", () => resetDraft(), "btn-quiet"));
}

// ---- the sectors: where the physical top stopped ---------------------------------------------

let sectorCount = 0;

function renderSectors(state) {
  const box = $("club-sectors");
  const sectors = state?.sectors || [];
  if (sectors.length !== sectorCount) {
    box.replaceChildren();
    for (const s of sectors) {
      const btn = h("button", { type: "button", class: "sector-chip", "data-sector": s.number },
                    h("span", { class: "num" }, String(s.number)), h("span", { class: "mark" }));
      btn.addEventListener("click", () => send(`sector-${s.number}`, { type: "spin", landed: s.number },
                                               t("act.landed", { n: s.number })));
      box.append(btn);
    }
    sectorCount = sectors.length;
  }
  const spin = move(state, "spin");
  const round = state?.round;
  sectors.forEach((s, i) => {
    const el = box.children[i];
    el.className = `sector-chip kind-${s.kind}${s.played ? ` played result-${s.result}` : ""}`
      + `${round && round.sector === s.number ? " current" : ""}`;
    el.querySelector(".mark").textContent = s.kind !== "regular" && s.kind !== "sponsor" ? t(`kind.mark.${s.kind}`) : "";
    el.disabled = !conn.connected || !spin.ok;
    const parts = [t("sector.n", { n: s.number }), kindName(s.kind)];
    if (s.played) parts.push(t("sector.played_by", { side: sideName(s.result) }));
    if (!spin.ok) parts.push(whyText(spin));
    el.title = parts.join(" · ");
    el.setAttribute("aria-label", parts.join(", "));
  });
}

// ---- score, badges, timer ------------------------------------------------------------------

function renderScore(state) {
  $("score-experts").textContent = state ? state.score.experts : "–";
  $("score-viewers").textContent = state ? state.score.viewers : "–";
  const central = state?.central?.team;
  $("experts-name").textContent = central ? teamName(state, central) : t("side.experts");
  const badges = $("badges");
  badges.replaceChildren();
  const fin = $("finished");
  fin.hidden = !state || state.status !== "finished";
  if (!state) return;
  badges.append(h("span", { class: "badge", "data-badge": "target" }, t("badge.target", { n: state.target })));
  if (state.game_day) badges.append(h("span", { class: "badge", "data-badge": "game_day" }, t("club.badge.day", { day: state.game_day })));
  const lost = teamsOf(state).filter((x) => x.lost_round).length;
  badges.append(h("span", { class: "badge", "data-badge": "lost" }, t("club.badge.lost", { n: lost, of: teamsOf(state).length })));
  fin.textContent = state.status === "finished"
    ? t("finished", { side: sideName(state.winner), experts: state.score.experts, viewers: state.score.viewers }) : "";
}

function renderTimer() {
  const state = conn.state;
  const timer = state?.timer;
  const box = $("timer");
  if (!timer) {
    box.dataset.state = "idle";
    $("timer-kind").textContent = state?.round && state.round.phase !== "closed" ? phaseName(state.round.phase) : "";
    $("timer-digits").textContent = "–:––";
    $("timer-fill").style.transform = "scaleX(0)";
    return;
  }
  const left = timer.running ? Math.max(0, timer.ends_at - conn.clock.now()) : timer.remaining_ms;
  box.dataset.state = !timer.running ? (left > 0 ? "paused" : "done") : left <= 10_000 ? "warning" : "running";
  const kind = t(`timer.${timer.kind}`);
  $("timer-kind").textContent = timer.running ? kind : left > 0 ? `${kind} · ${t("timer.paused")}` : `${kind} · ${t("timer.up")}`;
  $("timer-digits").textContent = clockText(left);
  $("timer-fill").style.transform = `scaleX(${timer.duration_ms ? Math.min(1, left / timer.duration_ms) : 0})`;
}

// ---- the question (operator only) -------------------------------------------------------------

function renderQuestion(state) {
  const box = $("question");
  const round = state?.round;
  box.replaceChildren();
  if (!round) {
    box.append(h("p", { class: "muted" }, state ? t("club.before_spin") : ""));
    return;
  }
  const head = [t("sector.n", { n: round.sector }), kindName(round.kind)];
  if (round.landed !== round.sector) head.push(t("q.landed", { n: round.landed }));
  if (round.questions > 1) head.push(t("q.of", { i: round.question + 1, n: round.questions }));
  head.push(phaseName(round.phase));
  box.append(h("div", { class: "q-head" }, head.join(" · ")));
  if (round.central_team) box.append(h("p", { class: "q-small" }, t("club.q.aloud", { team: tableLabel(state, round.central_team) })));
  if (round.text) box.append(h("p", { class: "q-text", id: "q-text" }, round.text));
  else box.append(h("p", { class: "q-text paper" }, t("q.paper")));
  (round.media || []).forEach((m) => {
    const href = safeUrl(m);
    box.append(href ? h("a", { href, target: "_blank", rel: "noopener noreferrer", class: "q-media" }, m)
                    : h("span", { class: "q-media" }, m));
  });
  if (round.answer) box.append(h("p", { class: "q-answer", id: "q-answer" }, h("span", { class: "lbl" }, t("q.answer")), " ", round.answer));
  if (round.accepted?.length) box.append(h("p", { class: "q-small" }, `${t("q.accepted")}: ${round.accepted.join("; ")}`));
  if (round.rejected?.length) box.append(h("p", { class: "q-small" }, `${t("q.rejected")}: ${round.rejected.join("; ")}`));
  if (round.comment) box.append(h("p", { class: "q-small" }, `${t("q.comment")}: ${round.comment}`));
  if (round.author) {
    const who = [round.author.name, round.author.city].filter(Boolean).join(", ");
    if (who) box.append(h("p", { class: "q-small" }, t("q.author", { who })));
  }
}

// ---- the Central Table: who sits, candidates, draw / seat, best player -------------------------

let chosen = null;          // the candidate the operator picked for «Посадить»
let centralKey = "";

function candidatesNow(state) {
  return state?.central && !state.central.team && move(state, "seat_team").ok ? [...state.central.candidates] : [];
}

function renderCentral(state) {
  const body = $("central-body");
  const actions = $("central-actions");
  const central = state?.central;
  const candidates = candidatesNow(state);
  if (chosen && !candidates.includes(chosen)) chosen = null;
  if (!chosen && candidates.length === 1) chosen = candidates[0];
  const key = JSON.stringify([state?.id, central, candidates, chosen, teamsOf(state).map((x) => [x.id, x.name, x.lost_round]), t("lang.code")]);
  if (key !== centralKey) {
    centralKey = key;
    body.replaceChildren();
    if (central?.team) {
      const team = teamById(state, central.team);
      body.append(h("div", { class: "central-team", id: "central-team", "data-team": central.team },
                    h("span", { class: "table-no" }, String(tableOf(state, central.team))),
                    h("strong", { class: "central-name" }, team?.name || central.team)),
                  h("ul", { class: "central-players", id: "central-players" },
                    ...(team?.players || []).map((p) => h("li", {}, p))));
    } else if (state?.rules === "club") {
      body.append(h("p", { class: "central-free" }, t("club.seat_free")));
      if (central?.left) body.append(h("p", { class: "muted", id: "central-left" }, t("club.left", { team: tableLabel(state, central.left) })));
      if (candidates.length) {
        body.append(h("p", { class: "picker-title" }, t(candidates.length === 1 ? "club.one_candidate" : "club.candidates", { n: candidates.length })));
        const row = h("div", { class: "candidates", id: "candidates" });
        for (const id of candidates) {
          const btn = h("button", { type: "button", class: `btn candidate${id === chosen ? " chosen" : ""}`, "data-team": id,
                                    "aria-pressed": id === chosen ? "true" : "false" },
                        h("span", { class: "table-no" }, String(tableOf(state, id))), h("span", { class: "label" }, teamName(state, id)));
          btn.addEventListener("click", () => { chosen = id; renderCentral(conn.state); });
          row.append(btn);
        }
        body.append(row);
      } else {
        const why = move(state, "seat_team");
        body.append(h("p", { class: "why-line", id: "seat-why" }, whyText(why)));
      }
    }
    if (central?.seated?.length) {
      body.append(h("p", { class: "muted seated-line" }, t("club.seated", { teams: central.seated.map((id) => teamName(state, id)).join(" → ") })));
    }
  }
  if (!actions.children.length) {
    actions.append(actionButton("draw", "", "D", () => draw()),
                   actionButton("seat", "", "S", () => seatChosen(), "btn-primary"));
  }
  const seat = move(state, "seat_team");
  actions.hidden = !state || state.rules !== "club" || !!central?.team;
  setButton("draw", t("club.draw"), "D", seat);
  setButton("seat", chosen ? t("club.seat_team", { team: teamName(state, chosen) }) : t("club.seat"), "S",
            !seat.ok ? seat : chosen ? seat : { ok: false, local: "club.why.choose" });
  renderBestPicker(state);
}

function draw() {
  send("draw", { type: "seat_team" }, t("club.draw"));
}

function seatChosen() {
  if (!chosen) {
    notice("info", t("club.why.choose"), "", { code: "local" });
    return;
  }
  seat(chosen);
}

function seat(id) {
  send("seat", { type: "seat_team", team: id }, t("club.seat_team", { team: teamName(conn.state, id) }));
}

let bestKey = "";

function bestMode(state) {
  return !!state && state.rules === "club" && state.status === "finished" && state.winner === "experts";
}

function renderBestPicker(state) {
  const box = $("best-picker");
  if (!bestMode(state)) {
    box.hidden = true;
    box.replaceChildren();
    bestKey = "";
    return;
  }
  box.hidden = false;
  const players = state.central?.players || [];
  const key = `${players.join("|")}|${t("lang.code")}`;
  if (key !== bestKey) {
    bestKey = key;
    box.replaceChildren(h("p", { class: "picker-title" }, t("club.best.pick")));
    const row = h("div", { class: "picker-players" });
    players.forEach((p, i) => {
      const btn = h("button", { type: "button", class: "btn player", "data-player": p, "data-action": "best_player" },
                    h("span", { class: "label" }, p), i < 9 ? h("kbd", { class: "key" }, `⇧${i + 1}`) : null);
      btn.addEventListener("click", () => pickBest(p));
      row.append(btn);
    });
    box.append(row, h("p", { class: "muted", id: "best-now" }));
  }
  const ok = move(state, "best_player");
  box.querySelectorAll(".player").forEach((btn) => {
    const mine = state.best_player === btn.dataset.player;
    btn.classList.toggle("chosen", mine);
    btn.setAttribute("aria-pressed", mine ? "true" : "false");
    btn.disabled = !conn.connected || !ok.ok;
    btn.title = ok.ok ? "" : whyTitle(ok);
  });
  $("best-now").textContent = state.best_player ? t("club.best.named", { player: state.best_player }) : t("club.best.none");
}

function pickBest(player) {
  send("best_player", { type: "best_player", player }, t("club.best.act", { player }));
}

// ---- the superblitz (if the club plays one): the captain names the player ----------------------

let sbKey = "";

function superblitzMode(state) {
  const r = state?.round;
  return !!r && state.status === "playing" && r.kind === "superblitz" && r.phase === "reading" && r.question === 0 && !state.timer;
}

function renderSuperblitz(state) {
  const box = $("sb-picker");
  if (!superblitzMode(state)) {
    box.hidden = true;
    box.replaceChildren();
    sbKey = "";
    return;
  }
  box.hidden = false;
  const players = teamById(state, state.round.central_team || state.central?.team)?.players || [];
  const key = `${players.join("|")}|${t("lang.code")}`;
  if (key !== sbKey) {
    sbKey = key;
    const row = h("div", { class: "picker-players" });
    players.forEach((p) => {
      const btn = h("button", { type: "button", class: "btn player", "data-player": p, "data-action": "choose_player" },
                    h("span", { class: "label" }, p));
      btn.addEventListener("click", () => send("choose_player", { type: "choose_player", player: p }, t("act.choose_player", { player: p })));
      row.append(btn);
    });
    box.replaceChildren(h("p", { class: "picker-title" }, t("pick.superblitz")), row);
  }
  const ok = move(state, "choose_player");
  box.querySelectorAll(".player").forEach((btn) => {
    const mine = state.round.player === btn.dataset.player;
    btn.classList.toggle("chosen", mine);
    btn.setAttribute("aria-pressed", mine ? "true" : "false");
    btn.disabled = !conn.connected || !ok.ok;
  });
}

// ---- the club tables: a draft of marks, sent whole by «Записать» -----------------------------

let draft = new Set();
let edited = false;          // the operator changed the draft since it last matched the record
let draftRound = "";
const tileEls = new Map();
let tilesKey = "";

function recorded(state) {
  const list = state?.round?.club_correct;
  return Array.isArray(list) ? list : null;
}

function sameSet(set, list) {
  return set.size === list.length && list.every((x) => set.has(x));
}

/** The draft follows the record unless the operator is editing it; a new round starts afresh. */
function syncDraft(state) {
  const r = state?.round;
  const key = r ? `${state.id}|${r.sector}|${r.landed}` : "";
  const rec = recorded(state) || [];
  if (key !== draftRound) {
    draftRound = key;
    draft = new Set(rec);
    edited = false;
  } else if (!edited) {
    draft = new Set(rec);
  } else if (sameSet(draft, rec) && recorded(state)) {
    edited = false;
  }
  const aloud = aloudTeam(state);
  if (aloud) draft.delete(aloud);
}

/** The draft is not what the server has: nothing recorded yet, or marks changed since. */
function unsaved(state) {
  const rec = recorded(state);
  return rec === null || !sameSet(draft, rec);
}

function buildTiles(state) {
  const grid = $("table-grid");
  grid.replaceChildren();
  tileEls.clear();
  teamsOf(state).forEach((team, i) => {
    const no = h("span", { class: "table-no" }, String(i + 1));
    const name = h("span", { class: "tile-name" }, team.name);
    const flags = h("span", { class: "tile-flags" });
    const tile = h("button", { type: "button", class: "table-tile", "data-team": team.id, "data-table": i + 1,
                               "aria-pressed": "false" }, no, name, flags);
    tile.addEventListener("click", () => toggle(team.id));
    grid.append(tile);
    tileEls.set(team.id, { tile, flags });
  });
}

function renderTables(state) {
  const key = JSON.stringify(teamsOf(state).map((x) => [x.id, x.name]));
  if (key !== tilesKey) {
    tilesKey = key;
    buildTiles(state);
  }
  syncDraft(state);
  const can = move(state, "club_answers");
  const aloud = aloudTeam(state);
  const candidates = new Set(candidatesNow(state));
  const rec = recorded(state);
  for (const team of teamsOf(state)) {
    const el = tileEls.get(team.id);
    if (!el) continue;
    const marked = draft.has(team.id);
    const wasRecorded = !!rec && rec.includes(team.id);
    const isAloud = team.id === aloud;
    el.tile.className = "table-tile"
      + (marked ? " is-marked" : "") + (wasRecorded ? " is-recorded" : "")
      + (marked !== wasRecorded && (rec || marked) ? " is-changed" : "")
      + (isAloud ? " is-aloud" : "") + (team.lost_round ? " is-lost" : "")
      + (candidates.has(team.id) ? " is-candidate" : "") + (team.id === chosen ? " is-chosen" : "");
    el.tile.setAttribute("aria-pressed", marked ? "true" : "false");
    el.tile.disabled = !conn.connected || !can.ok || isAloud;
    const flags = [];
    if (isAloud) flags.push(t("club.flag.central"));
    if (candidates.has(team.id)) flags.push(t("club.flag.candidate"));
    if (team.lost_round) flags.push(t("club.flag.lost"));
    flags.push(t("club.flag.correct", { n: team.correct, c: team.central_correct }));
    el.flags.textContent = flags.join(" · ");
    el.tile.title = isAloud ? t("err.central_table_answers_aloud") : !can.ok ? whyTitle(can) : "";
  }
  // what the server has recorded for this question
  const box = $("recorded");
  if (!state?.round) box.textContent = "";
  else if (!rec) box.textContent = t("club.rec.none");
  else if (!rec.length) box.textContent = t("club.rec.nobody");
  else box.textContent = t("club.rec.list", { n: rec.length, tables: rec.map((id) => tableLabel(state, id)).join(", ") });
  box.classList.toggle("unsaved", !!state?.round && unsaved(state));
  if (state?.round && unsaved(state) && rec) box.textContent += ` ${t("club.rec.unsaved")}`;
  setButton("record", t("club.record", { n: draft.size }), "Enter / R", can);
  setButton("reset-draft", t("club.reset"), "Esc", edited ? can : { ok: false, local: "club.why.no_edits" });
}

function toggle(id) {
  const state = conn.state;
  if (!state || !teamById(state, id)) return;
  if (id === aloudTeam(state)) {
    notice("info", t("err.central_table_answers_aloud"), "", { code: "local" });
    return;
  }
  const can = move(state, "club_answers");
  if (!can.ok) {
    notice("info", t("refused.local", { action: t("club.mark") }), whyText(can), { code: "local" });
    return;
  }
  if (draft.has(id)) draft.delete(id);
  else draft.add(id);
  edited = true;
  renderTables(state);
}

function resetDraft() {
  edited = false;
  draft = new Set(recorded(conn.state) || []);
  renderTables(conn.state);
}

async function record() {
  const state = conn.state;
  if (!state) return;
  const aloud = aloudTeam(state);
  const list = teamsOf(state).map((x) => x.id).filter((id) => draft.has(id) && id !== aloud);
  const answer = await send("record", { type: "club_answers", correct: list }, t("club.record_done", { n: list.length }));
  if (answer?.state) {
    edited = false;
    render(conn.state, conn.state);
  }
}

// ---- table number entry: digits, then Enter (mark) / S (seat) / L (the top stopped here) -------

let entry = "";
let entryTimer = null;

function renderEntry() {
  const el = $("table-entry");
  if (!entry) {
    el.textContent = t("club.entry.hint");
    el.classList.remove("active");
    return;
  }
  const n = Number(entry);
  const team = teamsOf(conn.state)[n - 1];
  el.textContent = team ? t("club.entry.typed", { n, name: team.name }) : t("club.entry.sector_only", { n });
  el.classList.add("active");
}

function typeDigit(d) {
  entry = entry.length >= 2 ? d : entry + d;
  if (entry === "0" || entry === "00") entry = "";
  clearTimeout(entryTimer);
  entryTimer = setTimeout(clearEntry, ENTRY_MS);
  renderEntry();
}

function clearEntry() {
  entry = "";
  clearTimeout(entryTimer);
  renderEntry();
}

function takeEntry() {
  const n = Number(entry);
  clearEntry();
  return n;
}

function teamAtEntry() {
  const n = takeEntry();
  const team = teamsOf(conn.state)[n - 1];
  if (!team) notice("info", t("club.entry.bad", { n, max: teamsOf(conn.state).length }), "", { code: "local" });
  return team || null;
}

// ---- undo: says what it reverts, and asks once more ----------------------------------------

/** describe.js's words, with the team's name where the event names a team by id. */
function undoText(state) {
  const undo = state?.undo;
  if (!undo) return "";
  const first = undo.first || {};
  return describeUndo(first.team ? { ...undo, first: { ...first, team: teamName(state, first.team) } } : undo);
}

let confirmBasis = null;

function renderUndo(state) {
  const what = undoText(state);
  setButton("undo", what ? t("act.undo_what", { what }) : t("act.undo"), t("key.undo"), move(state, "undo"));
  if (!$("confirm").hidden && confirmBasis && (!state || state.id !== confirmBasis.id || state.rev !== confirmBasis.rev)) {
    closeUndo();
    notice("info", t("undo.changed"), "", { code: "local" });
  }
}

function openUndo() {
  const state = conn.state;
  const ok = move(state, "undo");
  if (!ok.ok) {
    notice("info", t("refused.local", { action: t("act.undo") }), whyText(ok), { code: "local" });
    return;
  }
  if (!$("confirm").hidden) return;
  confirmBasis = { id: state.id, rev: state.rev };
  const yes = h("button", { type: "button", class: "btn btn-danger", id: "undo-yes" },
                h("span", { class: "label" }, t("undo.yes")), h("kbd", { class: "key" }, "Enter"));
  const cancel = h("button", { type: "button", class: "btn", id: "undo-no" },
                   h("span", { class: "label" }, t("undo.no")), h("kbd", { class: "key" }, "Esc"));
  yes.addEventListener("click", confirmUndo);
  cancel.addEventListener("click", closeUndo);
  $("confirm").replaceChildren(h("p", { class: "confirm-text", id: "undo-what" }, t("undo.confirm", { what: undoText(state) })),
                               h("div", { class: "confirm-actions" }, yes, cancel));
  $("confirm").hidden = false;
}

function closeUndo() {
  $("confirm").hidden = true;
  $("confirm").replaceChildren();
  confirmBasis = null;
}

function confirmUndo() {
  const basis = confirmBasis;
  if (!basis) return;
  const what = undoText(conn.state);
  closeUndo();
  send("undo", { type: "undo" }, t("act.undo_what", { what }), basis);
}

// ---- hotkeys -------------------------------------------------------------------------------

function hotkeyHelp() {
  const rows = [
    [t("club.keys.digits"), t("club.keys.mark")], ["Enter", t("club.keys.record")], ["R", t("club.record_short")],
    [t("club.keys.digits_s"), t("club.keys.seat")], ["D", t("club.draw")],
    [t("club.keys.digits_l"), t("keys.sector")], ["W", t("act.spin")],
    [t("key.space"), t("act.start_timer")], ["+", t("act.correct")], ["−", t("act.incorrect")],
    ["P", t("keys.pause")], ["⇧1…⇧9", t("club.keys.best")], [t("key.undo"), t("act.undo")], ["Esc", t("keys.escape")],
  ];
  $("keys-list").replaceChildren(...rows.flatMap(([k, v]) => [h("dt", {}, h("kbd", {}, k)), h("dd", {}, v)]));
}

function typing(target) {
  return target instanceof HTMLElement
    && (target.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName));
}

function pressesFocused(e) {
  const el = document.activeElement;
  return ["Enter", "NumpadEnter", "Space"].includes(e.code)
    && el instanceof HTMLElement && el.matches("button, summary, a[href]");
}

function onKey(e) {
  if (e.isComposing || typing(e.target) || pressesFocused(e)) return;
  const code = e.code;
  const mod = e.ctrlKey || e.metaKey || e.altKey;
  const handled = () => e.preventDefault();
  if (e.repeat) {
    if (!mod) handled();
    return;
  }
  const state = conn.state;
  const confirmOpen = !$("confirm").hidden;
  if (code === "Escape") {
    if (confirmOpen) closeUndo();
    else if (!entry && edited) resetDraft();
    clearEntry();
    return handled();
  }
  if ((e.ctrlKey || e.metaKey) && !e.altKey && code === "KeyZ") {
    handled();
    return openUndo();
  }
  if (mod) return;
  if (code === "Enter" || code === "NumpadEnter") {
    handled();
    if (confirmOpen) return confirmUndo();
    if (entry) {
      const team = teamAtEntry();
      if (team) toggle(team.id);
      return;
    }
    if (state?.round && unsaved(state)) record();
    return;
  }
  if (code === "Backspace") {
    handled();
    entry = entry.slice(0, -1);
    return renderEntry();
  }
  const digit = /^(Digit|Numpad)(\d)$/.exec(code);
  if (digit) {
    handled();
    if (e.shiftKey && digit[1] === "Digit") {
      const p = (state?.central?.players || [])[Number(digit[2]) - 1];
      if (bestMode(state) && p) pickBest(p);
      return;
    }
    return typeDigit(digit[2]);
  }
  if (e.shiftKey) return;
  const pressed = {
    KeyS: () => {
      if (!entry) return seatChosen();
      const team = teamAtEntry();
      if (team) seat(team.id);
    },
    KeyL: () => {
      const n = takeEntry();
      if (n) send(`sector-${n}`, { type: "spin", landed: n }, t("act.landed", { n }));
    },
    KeyD: () => draw(),
    KeyR: () => record(),
    KeyW: () => send("spin", { type: "spin" }, t("act.spin")),
    Space: () => send("start_timer", { type: "start_timer" }, t("act.start_timer")),
    Equal: () => send("correct", { type: "judge", correct: true }, t("act.correct")),
    NumpadAdd: () => send("correct", { type: "judge", correct: true }, t("act.correct")),
    Minus: () => send("incorrect", { type: "judge", correct: false }, t("act.incorrect")),
    NumpadSubtract: () => send("incorrect", { type: "judge", correct: false }, t("act.incorrect")),
    KeyP: () => send("pause", { type: pauseType(state) }, t(pauseType(state) === "resume_timer" ? "act.resume" : "act.pause")),
    KeyU: () => openUndo(),
  }[code];
  if (pressed) {
    handled();
    pressed();
  }
}

document.addEventListener("keydown", onKey);
dropPointerFocus();

// ---- rendering -----------------------------------------------------------------------------

function render(state, prev) {
  const club = state?.rules === "club";
  $("club-empty").hidden = club;
  $("club").dataset.hasGame = club ? "1" : "0";
  if (state && !club) {
    $("club-empty-title").textContent = t("club.tv_on_air");
    $("club-empty-hint").replaceChildren(h("a", { href: cfg.urls?.panel || "/control/" }, t("club.tv_on_air.hint")));
  } else if (!state) {
    $("club-empty-title").textContent = t("club.no_game");
    $("club-empty-hint").replaceChildren(h("a", { href: cfg.urls?.setup || "/control/setup" }, t("club.no_game.hint")));
  }
  const gameState = club ? state : null;
  $("game-title").textContent = club ? [state.title, state.central?.team ? teamName(state, state.central.team) : ""].filter(Boolean).join(" — ") : "";
  if (prev && state && prev.id !== state.id) {
    notice("info", t("live.switched", { title: state.title || state.id }), "", { code: "local" });
    chosen = null;
  }
  renderScore(gameState);
  renderSectors(gameState);
  renderQuestion(gameState);
  for (const a of ROUND_ACTIONS) setButton(a.id, val(a.label, gameState), val(a.key, gameState), move(gameState, val(a.type, gameState)));
  renderCentral(gameState);
  renderSuperblitz(gameState);
  renderTables(gameState);
  renderUndo(gameState);
  renderTimer();
}

let basisTimer = null;
function showBasis() {
  const b = conn.basis.basis();
  document.body.dataset.basisRev = b ? String(b.rev) : "";
  clearTimeout(basisTimer);
  const wait = conn.basis.pendingMs();
  if (wait > 0) basisTimer = setTimeout(showBasis, wait + 5);
}

buildButtons();
hotkeyHelp();
renderEntry();
conn.on("state", (state, prev) => {
  render(state, prev);
  showBasis();
});
conn.on("status", () => {
  if (conn.state !== undefined) render(conn.state, conn.state);
});
onLangChange(() => {
  centralKey = "";
  bestKey = "";
  sbKey = "";
  hotkeyHelp();
  renderEntry();
  if (conn.state !== undefined) render(conn.state, conn.state);
});
setInterval(renderTimer, 100);
