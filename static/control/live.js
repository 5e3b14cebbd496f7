// The live page: the on-air game's table, score, timer, question, and every live action with
// its hotkey. Buttons the rules forbid now are disabled with the reason in words (rules.js);
// hotkeys always ask the server, which has the last word, and its refusal is shown. What the
// club screen shares (sending, buttons, score, timer, question, undo, the key frame) is in
// round.js.

import { t, tn, currentLocale } from "./i18n.js";
import { formatMoney } from "../lib/i18n.js";
import { h, notice, safeUrl, tNames, gameTitle } from "./common.js";
import { check, eligiblePlayers, nextUnplayed } from "./rules.js";
import { kindName, describeUndo, reasonText, sideName } from "./describe.js";
import {
  cfg, conn, $, send, whyText, actionButton, adoptButton, setButton, badge, renderScore, renderTimer,
  pauseType, renderQuestion, pickerBox, playerRow, markPlayers, undoControl, keyHelp, listenKeys, switchedGame, start,
  explainRefusals,
} from "./round.js";

// ---- the live actions ------------------------------------------------------------------------
// `keys` are KeyboardEvent.code values (the physical key, whatever the keyboard layout).

const ACTIONS = [
  { id: "start_timer", body: { type: "start_timer" }, label: "act.start_timer", keys: ["Space"], key: "key.space", aria: "Space", cls: "btn-go" },
  { id: "early_answer", body: { type: "early_answer" }, label: "act.early_answer", keys: ["KeyE"], key: "E", hint: "hint.early_answer" },
  { id: "correct", body: { type: "judge", correct: true }, label: "act.correct", keys: ["Equal", "NumpadAdd"], key: "+", cls: "btn-correct" },
  { id: "incorrect", body: { type: "judge", correct: false }, label: "act.incorrect", keys: ["Minus", "NumpadSubtract"], key: "−", aria: "-", cls: "btn-incorrect" },
  { id: "pause", body: null, label: "act.pause", keys: ["KeyP"], key: "P" },
  { id: "extra_minute", body: { type: "extra_minute" }, label: "act.extra_minute", keys: ["KeyM"], key: "M" },
  { id: "club_help", body: { type: "club_help" }, label: "act.club_help", keys: ["KeyH"], key: "H" },
  { id: "request_decisive", body: { type: "request_decisive_round" }, label: "act.request_decisive", keys: ["KeyD"], key: "D",
    said: "ev.decisive_requested" },  // what was done, in a notice: not the button's question
];
const ARIA_KEYS = { spin: "W", undo: "U Control+Z", grant: "G", refuse: "N",
                    ...Object.fromEntries(ACTIONS.map((a) => [a.id, a.aria || a.key])) };
const SPIN_KEYS = ["KeyW"];
const UNDO_KEYS = ["KeyU"];          // and Ctrl/Cmd+Z
const GRANT_KEYS = ["KeyG"];
const REFUSE_KEYS = ["KeyN"];
const SECTOR_ENTRY_MS = 5000;

function bodyOf(action, state) {
  return action.id === "pause" ? { type: pauseType(state) } : action.body;
}

function labelOf(action, state) {
  if (action.id === "pause") return t(pauseType(state) === "resume_timer" ? "act.resume" : "act.pause");
  // a blitz question's timer is not the minute: say what Space starts
  const kind = state?.round?.phase !== "closed" ? state?.round?.kind : null;
  if (action.id === "start_timer" && (kind === "blitz" || kind === "superblitz")) {
    return tn("act.start_blitz", Math.round((state.timers?.blitz ?? 20000) / 1000));
  }
  return t(action.label);
}

/** The words a notice says the action in: «Выполнено: Просьба о решающем раунде», not the
 * button's «Решающий раунд?». */
function saidOf(action, state) {
  return action.said ? t(action.said) : labelOf(action, state);
}

const keyLabel = (k) => (k.startsWith("key.") ? t(k) : k);

/** A click: only on an enabled button, and the button shows why otherwise. */
function click(id, body, label) {
  const result = check(conn.state, body.type, body);
  if (!result.ok) {
    notice("info", t("refused.local", { action: label }), reasonText(result), { code: "local" });
    return;
  }
  send(id, body, label);
}

const undo = undoControl({ verdict: (state) => check(state, "undo"), describe: (state) => describeUndo(state?.undo, state) });

function buildActions() {
  const grid = $("actions");
  for (const a of ACTIONS) {
    grid.append(actionButton(a.id, () => click(a.id, bodyOf(a, conn.state), saidOf(a, conn.state)),
                             { cls: a.cls || "", aria: ARIA_KEYS[a.id], hint: a.hint }));
  }
  adoptButton($("btn-spin"), "spin", () => click("spin", { type: "spin" }, t("act.spin")),
              { aria: ARIA_KEYS.spin, wrapClass: "spin-wrap" });
  adoptButton($("btn-undo"), "undo", undo.open, { aria: ARIA_KEYS.undo, wrapClass: "undo-wrap" });
}

// ---- the table -----------------------------------------------------------------------------

let wheelCount = 0;
const sectorEls = [];

function buildWheel(n) {
  const wheel = $("wheel");
  sectorEls.splice(0).forEach((el) => el.remove());
  for (let i = 1; i <= n; i++) {
    const angle = ((i - 1) / n) * 2 * Math.PI;
    const btn = h("button", { type: "button", class: "sector", "data-sector": i,
                              style: `left:${50 + 41 * Math.sin(angle)}%;top:${50 - 41 * Math.cos(angle)}%` },
                  h("span", { class: "num" }, String(i)), h("span", { class: "mark" }));
    btn.addEventListener("click", () => click(`sector-${i}`, { type: "spin", landed: i }, t("act.landed", { n: i })));
    wheel.append(btn);
    sectorEls.push(btn);
  }
  wheelCount = n;
}

const KIND_MARK = { blitz: "kind.mark.blitz", superblitz: "kind.mark.superblitz", sponsor: "kind.mark.sponsor" };

function renderWheel(state) {
  const sectors = state?.sectors || [];
  if (sectors.length !== wheelCount) buildWheel(sectors.length);
  const spin = check(state, "spin");
  const offline = !conn.connected;
  const round = state?.round;
  sectors.forEach((s, i) => {
    const el = sectorEls[i];
    el.className = `sector kind-${s.kind}${s.played ? ` played result-${s.result}` : ""}`
      + `${round && round.sector === s.number ? " current" : ""}`
      + `${round && round.landed === s.number && round.landed !== round.sector ? " landed" : ""}`;
    el.querySelector(".mark").textContent = KIND_MARK[s.kind] ? t(KIND_MARK[s.kind]) : "";
    el.disabled = offline || !spin.ok;
    const parts = [t("sector.n", { n: s.number }), kindName(s.kind)];
    if (s.played) {
      parts.push(t("sector.played_by", { side: sideName(s.result) }));
      const next = nextUnplayed(sectors, s.number);
      if (next) parts.push(t("sector.goes_to", { n: next }));
    }
    if (!spin.ok) parts.push(whyText(spin));
    el.title = parts.join(" · ");
    el.setAttribute("aria-label", parts.join(", "));
  });
  setButton("spin", t("act.spin"), "W", spin);
}

// ---- sector entry by digits: "1", "3", Enter → the top stopped at 13 ---------------------------

let entry = "";
let entryTimer = null;

function renderEntry() {
  const el = $("sector-entry");
  if (!entry) {
    el.textContent = t("entry.hint");
    el.classList.remove("active");
    return;
  }
  el.textContent = t("entry.typed", { n: entry });
  el.classList.add("active");
}

function typeDigit(d) {
  const n = conn.state?.sectors?.length || 13;
  const next = entry.length >= 2 ? d : entry + d;
  if (Number(next) > n || next === "0" || next === "00") {
    entry = Number(d) >= 1 && Number(d) <= n ? d : "";
    if (!entry) notice("info", t("entry.bad", { n }), "", { code: "local" });
  } else entry = next;
  clearTimeout(entryTimer);
  entryTimer = setTimeout(() => { entry = ""; renderEntry(); }, SECTOR_ENTRY_MS);
  renderEntry();
}

function submitEntry() {
  if (!entry) return false;
  const n = Number(entry);
  entry = "";
  clearTimeout(entryTimer);
  renderEntry();
  send(`sector-${n}`, { type: "spin", landed: n }, t("act.landed", { n }));
  return true;
}

// ---- score and badges: the tv game's own ----------------------------------------------------

function tvBadges(state) {
  const out = [];
  if (state.rules === "tv") {
    out.push(badge("extra", tn("badge.extra", state.extra_minutes || 0), state.extra_minutes ? "on" : ""));
    out.push(badge("club_help", t(state.club_help?.available ? "badge.club_help" : "badge.club_help_used"),
                   state.club_help?.available ? "on" : "off"));
  }
  if (state.decisive?.requested) out.push(badge("decisive", t("badge.decisive_requested"), "warn"));
  if (state.decisive?.active) {
    out.push(badge("decisive", t("badge.decisive_active", { players: state.decisive.players.join(", ") }), "warn"));
  }
  return out;
}

// ---- the question: the blitz marks, the superblitz player, early answer, source, viewer ------

function questionHead(round) {
  const out = [];
  if (round.questions > 1) {
    const marks = h("div", { class: "marks" });
    for (let i = 0; i < round.questions; i++) {
      const r = round.results[i];
      marks.append(h("span", { class: `mark-dot ${r || (i === round.question && round.phase !== "closed" ? "now" : "")}`,
                               title: r ? t(`result.${r}`) : "" }, r === "correct" ? "✓" : r === "incorrect" ? "✗" : String(i + 1)));
    }
    out.push(marks);
  }
  if (round.kind === "superblitz") {
    out.push(h("p", { class: "q-player" }, ...(round.player ? tNames("q.player", { player: round.player }) : [t("q.no_player")])));
  }
  if (round.early) out.push(h("p", { class: "q-flag" }, t("q.early")));
  return out;
}

function questionTail(round) {
  const out = [];
  if (round.source) out.push(h("p", { class: "q-small" }, `${t("q.source")}: ${round.source}`));
  if (round.author || round.prize) {
    const who = round.author ? [round.author.name, round.author.city].filter(Boolean).join(", ") : "";
    // money as the graphics print it («1 000 ₴»)
    const prize = round.prize ? formatMoney(round.prize.amount, round.prize.currency, currentLocale()) : "";
    const photo = safeUrl(round.author?.photo);
    out.push(h("div", { class: "q-author" },
               photo ? h("img", { src: photo, alt: "", class: "q-photo" }) : null,
               h("span", {}, who ? t("q.author", { who }) : ""),
               prize ? h("span", { class: "q-prize" }, t("q.prize", { prize })) : null));
  }
  return out;
}

// ---- the contextual picker: superblitz player, the host's decision on the decisive round ------

let decisivePick = [];
const picker = pickerBox("picker");

function pickerMode(state) {
  if (!state || state.status === "finished") return null;
  if (state.decisive?.requested) return "decisive";
  const r = state.round;
  if (r && r.kind === "superblitz" && r.phase === "reading" && r.question === 0 && !state.timer) return "superblitz";
  return null;
}

function renderPicker(state) {
  const mode = pickerMode(state);
  const players = !mode ? null : mode === "decisive" ? [...(state.experts?.players || [])] : eligiblePlayers(state);
  const box = picker.render(players, mode, () => [
    h("p", { class: "picker-title" }, t(mode === "decisive" ? "pick.decisive" : "pick.superblitz")),
    playerRow(players, pickPlayer, { keys: true }),
    mode === "decisive" ? h("div", { class: "picker-actions" },
      actionButton("grant", () => decideDecisive(true), { cls: "btn-correct", aria: ARIA_KEYS.grant }),
      actionButton("refuse", () => decideDecisive(false), { cls: "btn-incorrect", aria: ARIA_KEYS.refuse })) : null,
  ]);
  $("actions").hidden = !!box;
  if (!box) {
    decisivePick = [];
    return;
  }
  box.dataset.mode = mode;
  markPlayers(box, (p) => (mode === "decisive" ? decisivePick.includes(p) : state.round?.player === p), conn.connected);
  if (mode === "decisive") {
    setButton("grant", t("act.grant", { n: decisivePick.length }), "G",
              check(state, "decide_decisive_round", { granted: true, players: decisivePick }));
    setButton("refuse", t("act.refuse"), "N", check(state, "decide_decisive_round", { granted: false }));
  }
}

function pickPlayer(player) {
  const state = conn.state;
  const mode = pickerMode(state);
  if (mode === "decisive") {
    decisivePick = decisivePick.includes(player)
      ? decisivePick.filter((p) => p !== player)
      : decisivePick.length < 3 ? [...decisivePick, player] : decisivePick;
    renderPicker(state);
  } else if (mode === "superblitz") {
    send("choose_player", { type: "choose_player", player }, t("act.choose_player", { player }));
  }
}

function decideDecisive(granted) {
  const body = granted ? { type: "decide_decisive_round", granted: true, players: [...decisivePick] }
                       : { type: "decide_decisive_round", granted: false };
  send(granted ? "grant" : "refuse", body, t(granted ? "act.grant_short" : "act.refuse"));
}

// ---- hotkeys -------------------------------------------------------------------------------

function hotkeyHelp() {
  keyHelp([
    ["0–9, Enter", t("keys.sector")], ["W", t("act.spin")],
    ...ACTIONS.map((a) => [a.id === "pause" ? "P" : keyLabel(a.key), a.id === "pause" ? t("keys.pause") : t(a.label)]),
    ["⇧1…⇧9", t("keys.players")], ["G / N", t("keys.decisive")],
    [t("key.undo"), t("act.undo")], ["Esc", t("keys.escape")],
  ]);
}

/** The live page's keys, after the shared frame (round.js): a hotkey always asks the server. */
function press(code, shift) {
  if (shift) return null;
  if (SPIN_KEYS.includes(code)) return () => send("spin", { type: "spin" }, t("act.spin"));
  if (UNDO_KEYS.includes(code)) return undo.open;
  const decisive = pickerMode(conn.state) === "decisive";
  if (GRANT_KEYS.includes(code) && decisive) return () => decideDecisive(true);
  if (REFUSE_KEYS.includes(code) && decisive) return () => decideDecisive(false);
  const action = ACTIONS.find((a) => a.keys.includes(code));
  if (!action) return null;
  return () => send(action.id, bodyOf(action, conn.state), saidOf(action, conn.state));
}

listenKeys(undo, {
  escape() {
    entry = "";
    renderEntry();
  },
  enter: submitEntry,
  digit: typeDigit,
  shiftDigit(n) {
    const mode = pickerMode(conn.state);
    const players = mode === "decisive" ? (conn.state.experts?.players || []) : eligiblePlayers(conn.state);
    const p = players[n - 1];
    if (mode && p) pickPlayer(p);
  },
  press,
});

// ---- rendering -----------------------------------------------------------------------------

function render(state, prev) {
  $("no-game").hidden = state !== null;
  $("live").dataset.hasGame = state ? "1" : "0";
  $("game-title").replaceChildren(...(state ? gameTitle(state.title, state.experts?.name) : []));
  if (switchedGame(state, prev)) decisivePick = [];
  renderWheel(state);
  renderScore(state, state?.experts?.name || t("side.experts"), tvBadges);
  renderQuestion(state, { before: "q.before_spin", afterHead: questionHead, afterComment: questionTail });
  for (const a of ACTIONS) {
    const body = bodyOf(a, state);
    setButton(a.id, labelOf(a, state), keyLabel(a.key), check(state, body.type, body));
  }
  renderPicker(state);
  undo.render(state);
  renderTimer();
  renderClubLink(state);
}

/** A club game is run from its own screen (club.js): say so, with the link, while one is on air. */
function renderClubLink(state) {
  let box = $("club-link");
  if (!box) {
    box = h("section", { class: "card club-link", id: "club-link", role: "note" },
            h("span", { class: "club-link-text" }), " ", h("a", { href: cfg.urls?.club || "/control/club", class: "btn btn-primary" }));
    $("live").prepend(box);
  }
  box.hidden = !state || state.rules !== "club";
  box.querySelector(".club-link-text").textContent = t("live.club_screen");
  box.querySelector("a").textContent = t("live.club_screen.link");
}

explainRefusals((body, state) => {
  const result = check(state, body.type, body);
  return result.ok ? "" : reasonText(result);
});
buildActions();
hotkeyHelp();
renderEntry();
start({
  render,
  idle: () => renderWheel(null),
  onLang() {
    hotkeyHelp();
    renderEntry();
  },
});

// For scripts and diagnostics in the browser console.
window.chgkPanel = { conn, send: (body) => send(body.type, body, body.type) };
