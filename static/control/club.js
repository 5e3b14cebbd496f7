// The club game screen (RULES.md §5), built for speed: the club tables as a grid of large
// toggles (or a table number and Enter), «Записать» sends the whole list; the Central Table
// team, the candidates after a lost round, «Жребий» / «Посадить», the best player after a win;
// and the round controls, shared with the live page (round.js). Which buttons work, and why
// not, comes from the server's own verdict (`state.moves`); a hotkey always asks the server,
// whose refusal is shown.

import { t } from "./i18n.js";
import { h, notice, bdi, tNames, gameTitle, fmtDay } from "./common.js";
import { fitLines } from "../lib/dom.js";
import { describeUndo, kindName, sideName } from "./describe.js";
import {
  cfg, conn, $, send, whyText, whyTitle, actionButton, setButton, badge, renderScore, renderTimer, pauseType,
  renderQuestion, pickerBox, playerRow, markPlayers, undoControl, keyHelp, listenKeys, switchedGame, start,
} from "./round.js";

// With no game on air the server emits `state` with no payload (python-socketio sends None as no
// argument), which connection.js skips: take it as "no game", so the screen says so.
conn.socket.on("state", (s) => { if (s === undefined || s === null) conn.acceptState(null); });

const ENTRY_MS = 6000;

// ---- what the server allows now -------------------------------------------------------------

/** {ok, code, message} for `type` in `state`, from the server's `moves` (undo: `state.undo`). */
function move(state, type) {
  if (!state) return { ok: false, code: "no_game_on_air", message: "" };
  if (type === "undo") return state.undo ? { ok: true } : { ok: false, code: "nothing_to_undo", message: "" };
  return state.moves?.[type] || { ok: false, code: "unknown_command", message: "" };
}

// ---- teams and table numbers: a team's table is its place in the game's list, from 1 ---------

const teamsOf = (state) => state?.teams || [];
const teamById = (state, id) => teamsOf(state).find((x) => x.id === id) || null;
const tableOf = (state, id) => teamsOf(state).findIndex((x) => x.id === id) + 1;
const teamName = (state, id) => teamById(state, id)?.name || id || "";
const tableLabel = (state, id) => t("club.table_team", { n: tableOf(state, id), name: teamName(state, id) });
/** The team that answers aloud this question: it is never among the club tables' answers. */
const aloudTeam = (state) => state?.round?.central_team ?? state?.central?.team ?? null;

// ---- the round's buttons ---------------------------------------------------------------------

const ROUND_ACTIONS = [
  { id: "spin", type: "spin", body: () => ({ type: "spin" }), label: () => t("act.spin"), key: "W", cls: "btn-primary" },
  { id: "start_timer", type: "start_timer", body: () => ({ type: "start_timer" }), label: () => t("act.start_timer"), key: () => t("key.space"), cls: "btn-go" },
  { id: "correct", type: "judge", body: () => ({ type: "judge", correct: true }), label: () => t("act.correct"), key: "+", cls: "btn-correct" },
  { id: "incorrect", type: "judge", body: () => ({ type: "judge", correct: false }), label: () => t("act.incorrect"), key: "−", cls: "btn-incorrect" },
  { id: "pause", type: (s) => pauseType(s), body: (s) => ({ type: pauseType(s) }),
    label: (s) => t(pauseType(s) === "resume_timer" ? "act.resume" : "act.pause"), key: "P" },
];
const val = (x, s) => (typeof x === "function" ? x(s) : x);

/** describe.js's words, with the team's name where the event names a team by id. */
function undoText(state) {
  const undo = state?.undo;
  if (!undo) return "";
  const first = undo.first || {};
  return describeUndo(first.team ? { ...undo, first: { ...first, team: teamName(state, first.team) } } : undo, state);
}

const undo = undoControl({ verdict: (state) => move(state, "undo"), describe: undoText });

function buildButtons() {
  const grid = $("actions");
  for (const a of ROUND_ACTIONS) {
    grid.append(actionButton(a.id, () => {
      const s = conn.state;
      send(a.id, a.body(s), val(a.label, s));
    }, { cls: a.cls || "" }));
  }
  $("undo-row").append(actionButton("undo", undo.open, { cls: "btn-undo" }));
  $("tables-buttons").append(
    actionButton("record", () => record(), { cls: "btn-primary record-btn" }),
    actionButton("reset-draft", () => resetDraft(), { cls: "btn-quiet" }));
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

// ---- score and badges: the club game's own ----------------------------------------------------

function clubBadges(state) {
  const lost = teamsOf(state).filter((x) => x.lost_round).length;
  return [
    state.game_day ? badge("game_day", t("club.badge.day", { day: fmtDay(state.game_day) })) : null,
    badge("lost", t("club.badge.lost", { n: lost, of: teamsOf(state).length })),
  ].filter(Boolean);
}

function expertsName(state) {
  const central = state?.central?.team;
  return central ? teamName(state, central) : t("side.experts");
}

// ---- the question (operator only): who answers it aloud, who sent it ---------------------------

function questionHead(round, state) {
  return round.central_team ? [h("p", { class: "q-small" }, t("club.q.aloud", { team: tableLabel(state, round.central_team) }))] : [];
}

function questionTail(round) {
  const who = round.author ? [round.author.name, round.author.city].filter(Boolean).join(", ") : "";
  return who ? [h("p", { class: "q-small" }, t("q.author", { who }))] : [];
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
                    h("strong", { class: "central-name" }, bdi(team?.name || central.team))),
                  h("ul", { class: "central-players", id: "central-players" },
                    ...(team?.players || []).map((p) => h("li", {}, bdi(p)))));
    } else if (state?.rules === "club") {
      body.append(h("p", { class: "central-free" }, t("club.seat_free")));
      if (central?.left) body.append(h("p", { class: "muted", id: "central-left" }, t("club.left", { team: tableLabel(state, central.left) })));
      if (candidates.length) {
        body.append(h("p", { class: "picker-title" }, t(candidates.length === 1 ? "club.one_candidate" : "club.candidates", { n: candidates.length })));
        const row = h("div", { class: "candidates", id: "candidates" });
        for (const id of candidates) {
          // a candidate card has the table tile's layout (panel.css), number then name
          const btn = h("button", { type: "button", class: `candidate${id === chosen ? " chosen" : ""}`, "data-team": id,
                                    "aria-pressed": id === chosen ? "true" : "false" },
                        h("span", { class: "table-no" }, String(tableOf(state, id))), h("span", { class: "tile-name" }, bdi(teamName(state, id))));
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
    actions.append(actionButton("draw", () => draw()),
                   actionButton("seat", () => seatChosen(), { cls: "btn-primary" }));
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

const bestPicker = pickerBox("best-picker");

function bestMode(state) {
  return !!state && state.rules === "club" && state.status === "finished" && state.winner === "experts";
}

function renderBestPicker(state) {
  const players = bestMode(state) ? state.central?.players || [] : null;
  const box = bestPicker.render(players, "best", () => [
    h("p", { class: "picker-title" }, t("club.best.pick")),
    playerRow(players, pickBest, { keys: true, action: "best_player" }),
    h("p", { class: "muted", id: "best-now" }),
  ]);
  if (!box) return;
  const ok = move(state, "best_player");
  markPlayers(box, (p) => state.best_player === p, conn.connected && ok.ok, ok.ok ? "" : whyTitle(ok));
  $("best-now").textContent = state.best_player ? t("club.best.named", { player: state.best_player }) : t("club.best.none");
}

function pickBest(player) {
  send("best_player", { type: "best_player", player }, t("club.best.act", { player }));
}

// ---- the superblitz (if the club plays one): the captain names the player ----------------------

const sbPicker = pickerBox("sb-picker");

function superblitzMode(state) {
  const r = state?.round;
  return !!r && state.status === "playing" && r.kind === "superblitz" && r.phase === "reading" && r.question === 0 && !state.timer;
}

function renderSuperblitz(state) {
  const players = superblitzMode(state) ? teamById(state, state.round.central_team || state.central?.team)?.players || [] : null;
  const choose = (player) => send("choose_player", { type: "choose_player", player }, t("act.choose_player", { player }));
  const box = sbPicker.render(players, "superblitz", () => [
    h("p", { class: "picker-title" }, t("pick.superblitz")),
    playerRow(players, choose, { action: "choose_player" }),
  ]);
  if (!box) return;
  const ok = move(state, "choose_player");
  markPlayers(box, (p) => state.round.player === p, conn.connected && ok.ok);
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
    const name = h("span", { class: "tile-name" }, bdi(team.name));
    const flags = h("span", { class: "tile-flags" });
    const tile = h("button", { type: "button", class: "table-tile", "data-team": team.id, "data-table": i + 1,
                               "aria-pressed": "false" }, no, name, flags);
    tile.addEventListener("click", () => toggle(team.id));
    grid.append(tile);
    tileEls.set(team.id, { tile, flags });
  });
}

/** Team names on tiles break between words, never inside one: a long word shrinks the name a
 * little first, and only a word too long even then may break. */
function fitNames() {
  for (const name of document.querySelectorAll(".tile-name:not([data-fit])")) {
    if (fitLines(name, 16, 11, 3) === "over") name.style.overflowWrap = "anywhere";
  }
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
  el.replaceChildren(...(team ? tNames("club.entry.typed", { name: team.name }, { n }) : [t("club.entry.sector_only", { n })]));
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

// ---- hotkeys -------------------------------------------------------------------------------

function hotkeyHelp() {
  keyHelp([
    [t("club.keys.digits"), t("club.keys.mark")], ["Enter", t("club.keys.record")], ["R", t("club.record_short")],
    [t("club.keys.digits_s"), t("club.keys.seat")], ["D", t("club.draw")],
    [t("club.keys.digits_l"), t("keys.sector")], ["W", t("act.spin")],
    [t("key.space"), t("act.start_timer")], ["+", t("act.correct")], ["−", t("act.incorrect")],
    ["P", t("keys.pause")], ["⇧1…⇧9", t("club.keys.best")], [t("key.undo"), t("act.undo")], ["Esc", t("keys.escape")],
  ]);
}

/** The club screen's keys, after the shared frame (round.js). */
function press(code, shift) {
  if (code === "Backspace") {
    return () => {
      entry = entry.slice(0, -1);
      renderEntry();
    };
  }
  if (shift) return null;
  const state = conn.state;
  return {
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
    KeyU: () => undo.open(),
  }[code];
}

listenKeys(undo, {
  escape(confirmWasOpen) {
    if (!confirmWasOpen && !entry && edited) resetDraft();
    clearEntry();
  },
  enter() {
    if (entry) {
      const team = teamAtEntry();
      if (team) toggle(team.id);
      return;
    }
    const state = conn.state;
    if (state?.round && unsaved(state)) record();
  },
  digit: typeDigit,
  shiftDigit(n) {
    const state = conn.state;
    const p = (state?.central?.players || [])[n - 1];
    if (bestMode(state) && p) pickBest(p);
  },
  press,
});

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
  $("game-title").replaceChildren(...(club ? gameTitle(state.title, state.central?.team ? teamName(state, state.central.team) : "") : []));
  if (switchedGame(state, prev)) chosen = null;
  renderScore(gameState, expertsName(gameState), clubBadges);
  renderSectors(gameState);
  renderQuestion(gameState, { before: "club.before_spin", afterHead: questionHead, afterComment: questionTail });
  for (const a of ROUND_ACTIONS) setButton(a.id, val(a.label, gameState), val(a.key, gameState), move(gameState, val(a.type, gameState)));
  renderCentral(gameState);
  renderSuperblitz(gameState);
  renderTables(gameState);
  fitNames();
  undo.render(gameState);
  renderTimer();
}

buildButtons();
hotkeyHelp();
renderEntry();
start({
  render,
  onLang() {
    centralKey = "";
    hotkeyHelp();
    renderEntry();
  },
});
