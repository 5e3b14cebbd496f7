// The live page: the on-air game's table, score, timer, question, and every live action with
// its hotkey. Buttons the rules forbid now are disabled with the reason in words (rules.js);
// hotkeys always ask the server, which has the last word, and its refusal is shown.

import { t, onLangChange } from "./i18n.js";
import { pageConfig, h, notice, refusalText, wireLanguage, safeUrl, dropPointerFocus } from "./common.js";
import { ControlConnection } from "./connection.js";
import { check, eligiblePlayers, nextUnplayed, inRound, phaseOf } from "./rules.js";
import { kindName, phaseName, describeUndo, reasonText, clockText, sideName } from "./describe.js";

const cfg = pageConfig();
wireLanguage(cfg.lang);
const conn = new ControlConnection({ settleMs: cfg.settle_ms ?? 250 });
const $ = (id) => document.getElementById(id);

// ---- the live actions ------------------------------------------------------------------------
// `keys` are KeyboardEvent.code values (the physical key, whatever the keyboard layout).

const ACTIONS = [
  { id: "start_timer", body: { type: "start_timer" }, label: "act.start_timer", keys: ["Space"], key: "key.space", aria: "Space", cls: "btn-go" },
  { id: "early_answer", body: { type: "early_answer" }, label: "act.early_answer", keys: ["KeyE"], key: "E" },
  { id: "correct", body: { type: "judge", correct: true }, label: "act.correct", keys: ["Equal", "NumpadAdd"], key: "+", cls: "btn-correct" },
  { id: "incorrect", body: { type: "judge", correct: false }, label: "act.incorrect", keys: ["Minus", "NumpadSubtract"], key: "−", aria: "-", cls: "btn-incorrect" },
  { id: "pause", body: null, label: "act.pause", keys: ["KeyP"], key: "P" },
  { id: "extra_minute", body: { type: "extra_minute" }, label: "act.extra_minute", keys: ["KeyM"], key: "M" },
  { id: "club_help", body: { type: "club_help" }, label: "act.club_help", keys: ["KeyH"], key: "H" },
  { id: "request_decisive", body: { type: "request_decisive_round" }, label: "act.request_decisive", keys: ["KeyD"], key: "D" },
];
const ARIA_KEYS = { spin: "W", undo: "U Control+Z", grant: "G", refuse: "N",
                    ...Object.fromEntries(ACTIONS.map((a) => [a.id, a.aria || a.key])) };
const SPIN_KEYS = ["KeyW"];
const UNDO_KEYS = ["KeyU"];          // and Ctrl/Cmd+Z
const GRANT_KEYS = ["KeyG"];
const REFUSE_KEYS = ["KeyN"];
const SECTOR_ENTRY_MS = 5000;

/** pause and resume share one button and one key: which one applies now. */
function pauseBody(state) {
  const timer = state?.timer;
  return { type: timer && !timer.running && timer.remaining_ms > 0 ? "resume_timer" : "pause_timer" };
}

function bodyOf(action, state) {
  return action.id === "pause" ? pauseBody(state) : action.body;
}

function labelOf(action, state) {
  if (action.id === "pause") return t(pauseBody(state).type === "resume_timer" ? "act.resume" : "act.pause");
  return t(action.label);
}

const keyLabel = (k) => (k.startsWith("key.") ? t(k) : k);

// ---- sending -------------------------------------------------------------------------------

const pending = new Set();

function setPending(id, on) {
  on ? pending.add(id) : pending.delete(id);
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
    // A doubled press or a change made elsewhere a moment earlier: nothing happened, calmly.
    notice("info", t(`err.${error.code}`) !== `err.${error.code}` ? t(`err.${error.code}`) : t("err.stale_rev"),
           t("stale.detail"), { ms: 6000, code: error.code });
    return;
  }
  const { title, detail } = refusalText(error);
  notice("error", `${label}: ${title}`, detail, { code: error.code });
}

/** Sends one command for the game on screen. The server checks it; we report its answer. */
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

/** A click: only on an enabled button, and the button shows why otherwise. */
function click(id, body, label) {
  const result = check(conn.state, body.type, body);
  if (!result.ok) {
    notice("info", t("refused.local", { action: label }), reasonText(result), { code: "local" });
    return;
  }
  send(id, body, label);
}

// ---- building the page once; every state only updates it --------------------------------------
// Elements are never replaced while the game runs: a state arriving between mousedown and
// mouseup must not swallow the operator's click.

const actionEls = new Map();

function actionButton(id, onclick, cls = "") {
  const label = h("span", { class: "label" });
  const kbd = h("kbd", { class: "key" });
  const why = h("small", { class: "why" });
  const btn = h("button", { type: "button", class: `btn act ${cls}`, "data-action": id,
                            "aria-keyshortcuts": ARIA_KEYS[id] || null }, label, kbd, why);
  btn.addEventListener("click", onclick);
  const wrap = h("span", { class: "act-wrap" }, btn);
  actionEls.set(id, { wrap, btn, label, kbd, why });
  return wrap;
}

function setButton(id, text, key, result) {
  const el = actionEls.get(id);
  if (!el) return;
  const offline = !conn.connected;
  const reason = offline ? t("why.offline") : reasonText(result);
  el.label.textContent = text;
  el.kbd.textContent = key;
  el.why.textContent = result.ok && !offline ? "" : reason;
  el.btn.disabled = offline || !result.ok;
  el.wrap.title = el.btn.disabled ? reason : `${text} (${key})`;
}

function buildActions() {
  const grid = $("actions");
  for (const a of ACTIONS) {
    grid.append(actionButton(a.id, () => click(a.id, bodyOf(a, conn.state), labelOf(a, conn.state)), a.cls || ""));
  }
  const spin = $("btn-spin");
  const spinLabel = h("span", { class: "label" });
  const spinKbd = h("kbd", { class: "key" });
  const spinWhy = h("small", { class: "why" });
  spin.append(spinLabel, spinKbd, spinWhy);
  spin.setAttribute("aria-keyshortcuts", ARIA_KEYS.spin);
  spin.addEventListener("click", () => click("spin", { type: "spin" }, t("act.spin")));
  const spinWrap = h("span", { class: "act-wrap spin-wrap" });
  spin.replaceWith(spinWrap);
  spinWrap.append(spin);
  actionEls.set("spin", { wrap: spinWrap, btn: spin, label: spinLabel, kbd: spinKbd, why: spinWhy });

  const undo = $("btn-undo");
  const undoLabel = h("span", { class: "label" });
  const undoKbd = h("kbd", { class: "key" });
  const undoWhy = h("small", { class: "why" });
  undo.append(undoLabel, undoKbd, undoWhy);
  undo.setAttribute("aria-keyshortcuts", ARIA_KEYS.undo);
  undo.addEventListener("click", openUndo);
  const undoWrap = h("span", { class: "act-wrap undo-wrap" });
  undo.replaceWith(undoWrap);
  undoWrap.append(undo);
  actionEls.set("undo", { wrap: undoWrap, btn: undo, label: undoLabel, kbd: undoKbd, why: undoWhy });
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
    if (!spin.ok) parts.push(offline ? t("why.offline") : reasonText(spin));
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

// ---- score, badges, timer ------------------------------------------------------------------

function renderScore(state) {
  $("score-experts").textContent = state ? state.score.experts : "–";
  $("score-viewers").textContent = state ? state.score.viewers : "–";
  $("experts-name").textContent = state?.experts?.name || t("side.experts");
  const badges = $("badges");
  badges.replaceChildren();
  $("finished").hidden = !state || state.status !== "finished";
  if (!state) return;
  badges.append(h("span", { class: "badge", "data-badge": "target" }, t("badge.target", { n: state.target })));
  if (state.rules === "tv") {
    badges.append(h("span", { class: `badge${state.extra_minutes ? " on" : ""}`, "data-badge": "extra" },
                    t("badge.extra", { n: state.extra_minutes || 0 })));
    badges.append(h("span", { class: `badge${state.club_help?.available ? " on" : " off"}`, "data-badge": "club_help" },
                    t(state.club_help?.available ? "badge.club_help" : "badge.club_help_used")));
  }
  if (state.decisive?.requested) badges.append(h("span", { class: "badge warn", "data-badge": "decisive" }, t("badge.decisive_requested")));
  if (state.decisive?.active) {
    badges.append(h("span", { class: "badge warn", "data-badge": "decisive" },
                    t("badge.decisive_active", { players: state.decisive.players.join(", ") })));
  }
  const fin = $("finished");
  fin.hidden = state.status !== "finished";
  fin.textContent = state.status === "finished"
    ? t("finished", { side: sideName(state.winner), experts: state.score.experts, viewers: state.score.viewers }) : "";
}

function renderTimer() {
  const state = conn.state;
  const timer = state?.timer;
  const box = $("timer");
  if (!timer) {
    box.dataset.state = "idle";
    $("timer-kind").textContent = state?.round && inRound(state) ? phaseName(phaseOf(state)) : "";
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

// ---- the question --------------------------------------------------------------------------

function renderQuestion(state) {
  const box = $("question");
  const round = state?.round;
  box.replaceChildren();
  if (!round) {
    box.append(h("p", { class: "muted" }, state ? t("q.before_spin") : ""));
    return;
  }
  const head = [t("sector.n", { n: round.sector }), kindName(round.kind)];
  if (round.landed !== round.sector) head.push(t("q.landed", { n: round.landed }));
  if (round.questions > 1) head.push(t("q.of", { i: round.question + 1, n: round.questions }));
  head.push(phaseName(round.phase));
  box.append(h("div", { class: "q-head" }, head.join(" · ")));
  if (round.questions > 1) {
    const marks = h("div", { class: "marks" });
    for (let i = 0; i < round.questions; i++) {
      const r = round.results[i];
      marks.append(h("span", { class: `mark-dot ${r || (i === round.question && round.phase !== "closed" ? "now" : "")}`,
                               title: r ? t(`result.${r}`) : "" }, r === "correct" ? "✓" : r === "incorrect" ? "✗" : String(i + 1)));
    }
    box.append(marks);
  }
  if (round.kind === "superblitz") {
    box.append(h("p", { class: "q-player" }, round.player ? t("q.player", { player: round.player }) : t("q.no_player")));
  }
  if (round.early) box.append(h("p", { class: "q-flag" }, t("q.early")));
  if (round.text) box.append(h("p", { class: "q-text", id: "q-text" }, round.text));
  else box.append(h("p", { class: "q-text paper" }, t("q.paper")));
  (round.media || []).forEach((m) => {
    const href = safeUrl(m);
    box.append(href ? h("a", { href, target: "_blank", rel: "noopener noreferrer", class: "q-media" }, m)
                    : h("span", { class: "q-media" }, m));
  });
  if (round.answer) {
    box.append(h("p", { class: "q-answer", id: "q-answer" }, h("span", { class: "lbl" }, t("q.answer")), " ", round.answer));
  }
  if (round.accepted?.length) box.append(h("p", { class: "q-small" }, `${t("q.accepted")}: ${round.accepted.join("; ")}`));
  if (round.rejected?.length) box.append(h("p", { class: "q-small" }, `${t("q.rejected")}: ${round.rejected.join("; ")}`));
  if (round.comment) box.append(h("p", { class: "q-small" }, `${t("q.comment")}: ${round.comment}`));
  if (round.source) box.append(h("p", { class: "q-small" }, `${t("q.source")}: ${round.source}`));
  if (round.author || round.prize) {
    const who = round.author ? [round.author.name, round.author.city].filter(Boolean).join(", ") : "";
    const prize = round.prize ? `${round.prize.amount} ${round.prize.currency}` : "";
    box.append(h("div", { class: "q-author" },
                 safeUrl(round.author?.photo) ? h("img", { src: safeUrl(round.author.photo), alt: "", class: "q-photo" }) : null,
                 h("span", {}, who ? t("q.author", { who }) : ""),
                 prize ? h("span", { class: "q-prize" }, t("q.prize", { prize })) : null));
  }
}

// ---- the contextual picker: superblitz player, the host's decision on the decisive round ------

let decisivePick = [];
let pickerKey = "";

function pickerMode(state) {
  if (!state || state.status === "finished") return null;
  if (state.decisive?.requested) return "decisive";
  const r = state.round;
  if (r && r.kind === "superblitz" && r.phase === "reading" && r.question === 0 && !state.timer) return "superblitz";
  return null;
}

function renderPicker(state) {
  const box = $("picker");
  const mode = pickerMode(state);
  if (!mode) {
    box.hidden = true;
    box.replaceChildren();
    pickerKey = "";
    decisivePick = [];
    return;
  }
  box.hidden = false;
  const players = mode === "decisive" ? [...(state.experts?.players || [])] : eligiblePlayers(state);
  const key = `${mode}|${players.join("|")}|${t("lang.code")}`;
  if (key !== pickerKey) {
    pickerKey = key;
    box.replaceChildren();
    box.dataset.mode = mode;
    box.append(h("p", { class: "picker-title" }, t(mode === "decisive" ? "pick.decisive" : "pick.superblitz")));
    const row = h("div", { class: "picker-players" });
    players.forEach((p, i) => {
      const btn = h("button", { type: "button", class: "btn player", "data-player": p },
                    h("span", { class: "label" }, p), i < 9 ? h("kbd", { class: "key" }, `⇧${i + 1}`) : null);
      btn.addEventListener("click", () => pickPlayer(p));
      row.append(btn);
    });
    box.append(row);
    if (mode === "decisive") {
      const grant = actionButton("grant", () => decideDecisive(true), "btn-correct");
      const refuse = actionButton("refuse", () => decideDecisive(false), "btn-incorrect");
      box.append(h("div", { class: "picker-actions" }, grant, refuse));
    }
  }
  box.querySelectorAll(".player").forEach((btn) => {
    const p = btn.dataset.player;
    const chosen = mode === "decisive" ? decisivePick.includes(p) : state.round?.player === p;
    btn.classList.toggle("chosen", chosen);
    btn.setAttribute("aria-pressed", chosen ? "true" : "false");
    btn.disabled = !conn.connected;
  });
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

// ---- undo: says what it reverts, and asks once more ----------------------------------------

let confirmBasis = null;

function renderUndo(state) {
  const result = check(state, "undo");
  const what = describeUndo(state?.undo);
  setButton("undo", what ? t("act.undo_what", { what }) : t("act.undo"), t("key.undo"), result);
  const box = $("confirm");
  if (!box.hidden && confirmBasis && (!state || state.id !== confirmBasis.id || state.rev !== confirmBasis.rev)) {
    closeUndo();
    notice("info", t("undo.changed"), "", { code: "local" });
  }
}

function openUndo() {
  const state = conn.state;
  const result = check(state, "undo");
  if (!result.ok) {
    notice("info", t("refused.local", { action: t("act.undo") }), reasonText(result), { code: "local" });
    return;
  }
  if (!$("confirm").hidden) return;
  confirmBasis = { id: state.id, rev: state.rev };
  const what = describeUndo(state.undo);
  const yes = h("button", { type: "button", class: "btn btn-danger", id: "undo-yes" },
                h("span", { class: "label" }, t("undo.yes")), h("kbd", { class: "key" }, "Enter"));
  const cancel = h("button", { type: "button", class: "btn", id: "undo-no" },
                   h("span", { class: "label" }, t("undo.no")), h("kbd", { class: "key" }, "Esc"));
  yes.addEventListener("click", confirmUndo);
  cancel.addEventListener("click", closeUndo);
  const box = $("confirm");
  box.replaceChildren(h("p", { class: "confirm-text", id: "undo-what" }, t("undo.confirm", { what })),
                      h("div", { class: "confirm-actions" }, yes, cancel));
  box.hidden = false;
}

function closeUndo() {
  $("confirm").hidden = true;
  $("confirm").replaceChildren();
  confirmBasis = null;
}

function confirmUndo() {
  const basis = confirmBasis;
  if (!basis) return;
  const what = describeUndo(conn.state?.undo);
  closeUndo();
  // Based on the state the operator confirmed: if it changed meanwhile, the server says 409.
  send("undo", { type: "undo" }, t("act.undo_what", { what }), basis);
}

// ---- hotkeys -------------------------------------------------------------------------------

function hotkeyHelp() {
  const rows = [
    ["0–9, Enter", t("keys.sector")], ["W", t("act.spin")],
    ...ACTIONS.map((a) => [a.id === "pause" ? "P" : keyLabel(a.key), a.id === "pause" ? t("keys.pause") : t(a.label)]),
    ["⇧1…⇧9", t("keys.players")], ["G / N", t("keys.decisive")],
    [t("key.undo"), t("act.undo")], ["Esc", t("keys.escape")],
  ];
  $("keys-list").replaceChildren(...rows.flatMap(([k, v]) => [h("dt", {}, h("kbd", {}, k)), h("dd", {}, v)]));
}

function typing(target) {
  return target instanceof HTMLElement
    && (target.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName));
}

/** A hotkey asks the server even when the button is disabled: the server decides, and its
 * refusal is shown — a button wrongly disabled by this page never locks the operator out. */
function hotkey(action) {
  const state = conn.state;
  const body = bodyOf(action, state);
  send(action.id, body, labelOf(action, state));
}

/** Enter/Space on a control the keyboard user focused with Tab press that control. */
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
  if (e.repeat) {                 // a held key: never a second command
    if (!mod) handled();
    return;
  }
  const confirmOpen = !$("confirm").hidden;
  if (code === "Escape") {
    if (confirmOpen) closeUndo();
    entry = "";
    renderEntry();
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
    submitEntry();
    return;
  }
  const digit = /^(Digit|Numpad)(\d)$/.exec(code);
  if (digit) {
    handled();
    if (e.shiftKey && digit[1] === "Digit") {
      const mode = pickerMode(conn.state);
      const players = mode === "decisive" ? (conn.state.experts?.players || []) : eligiblePlayers(conn.state);
      const p = players[Number(digit[2]) - 1];
      if (mode && p) pickPlayer(p);
      return;
    }
    return typeDigit(digit[2]);
  }
  if (e.shiftKey) return;
  if (SPIN_KEYS.includes(code)) {
    handled();
    return send("spin", { type: "spin" }, t("act.spin"));
  }
  if (UNDO_KEYS.includes(code)) {
    handled();
    return openUndo();
  }
  if (GRANT_KEYS.includes(code) && pickerMode(conn.state) === "decisive") {
    handled();
    return decideDecisive(true);
  }
  if (REFUSE_KEYS.includes(code) && pickerMode(conn.state) === "decisive") {
    handled();
    return decideDecisive(false);
  }
  const action = ACTIONS.find((a) => a.keys.includes(code));
  if (action) {
    handled();
    hotkey(action);
  }
}

document.addEventListener("keydown", onKey);
dropPointerFocus();

// ---- rendering -----------------------------------------------------------------------------

function render(state, prev) {
  $("no-game").hidden = state !== null;
  $("live").dataset.hasGame = state ? "1" : "0";
  $("game-title").textContent = state ? [state.title, state.experts?.name].filter(Boolean).join(" — ") : "";
  if (prev && state && prev.id !== state.id) {
    notice("info", t("live.switched", { title: state.title || state.id }), "", { code: "local" });
    decisivePick = [];
  }
  renderWheel(state);
  renderScore(state);
  renderQuestion(state);
  for (const a of ACTIONS) {
    const body = bodyOf(a, state);
    setButton(a.id, labelOf(a, state), keyLabel(a.key), check(state, body.type, body));
  }
  renderPicker(state);
  renderUndo(state);
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

// The rev the next press is based on, for the operator's eye and for tests: it follows the
// newest state once that has been on screen for the settle time.
let basisTimer = null;
function showBasis() {
  const b = conn.basis.basis();
  document.body.dataset.basisRev = b ? String(b.rev) : "";
  clearTimeout(basisTimer);
  const wait = conn.basis.pendingMs();
  if (wait > 0) basisTimer = setTimeout(showBasis, wait + 5);
}

buildActions();
hotkeyHelp();
renderEntry();
conn.on("state", (state, prev) => {
  render(state, prev);
  showBasis();
});
conn.on("status", () => {
  if (conn.state !== undefined) render(conn.state, conn.state);
  else renderWheel(null);
});
onLangChange(() => {
  pickerKey = "";
  hotkeyHelp();
  renderEntry();
  if (conn.state !== undefined) render(conn.state, conn.state);
});
setInterval(renderTimer, 100);

// For scripts and diagnostics in the browser console.
window.chgkPanel = { conn, send: (body) => send(body.type, body, body.type) };
