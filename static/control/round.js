// The round controls shared by the live page (tv games, live.js) and the club screen (club.js):
// the connection, sending a command and reporting the server's answer, action buttons that say
// why they are disabled, the score and the timer, the question card, player pickers, undo with
// its confirmation, the hotkey frame, and the page's start. Each page keeps what is its own:
// which verdicts it trusts (rules.js or the server's `state.moves`), its keys and its extras.

import { t, onLangChange } from "./i18n.js";
import { pageConfig, h, notice, dropStaleNotices, refusalText, wireLanguage, safeUrl, dropPointerFocus, bdi } from "./common.js";
import { ControlConnection } from "./connection.js";
import { kindName, phaseName, reasonText, clockText } from "./describe.js";
import { setText } from "../lib/dom.js";

export const cfg = pageConfig();
wireLanguage(cfg.lang);
export const conn = new ControlConnection({ doubleMs: cfg.double_ms ?? 400 });
export const $ = (id) => document.getElementById(id);

// ---- sending -------------------------------------------------------------------------------

function setPending(id, on) {
  document.querySelectorAll(`[data-action="${id}"]`).forEach((el) => {
    el.classList.toggle("pending", on);
    if (on) el.setAttribute("aria-busy", "true");
    else el.removeAttribute("aria-busy");
  });
}

let explain = () => "";

/** The page's own words for why a command is refused in this state (the live page: rules.js),
 * shown with a refusal in the panel's language; the server's words follow as the detail. */
export function explainRefusals(fn) {
  explain = fn;
}

function report(answer, label, body) {
  if (answer.state) {
    notice("ok", t("done", { action: label }), "", { ms: 1800, code: "ok", yields: true });
    return;
  }
  const error = answer.error || {};
  if (answer.double) {
    // The same press twice (a bounce, a double click): done once, the second one skipped.
    notice("info", t("double.title", { action: label }), t("double.detail"), { ms: 4000, code: "double_press" });
    return;
  }
  if (error.code === "after_refusal") {
    notice("info", t("err.after_refusal"), label, { ms: 6000, code: error.code, yields: true });
    return;
  }
  if (answer.status === 409) {
    // A change made elsewhere (another panel, OSC) a moment earlier: nothing happened, calmly.
    const key = `err.${error.code}`;
    notice("info", t(key) !== key ? t(key) : t("err.stale_rev"), t("stale.detail"), { ms: 6000, code: error.code });
    return;
  }
  const { title, detail, dev } = refusalText(error);
  let why = "";
  try { why = answer.status === 422 && body ? explain(body, conn.state) : ""; } catch (e) { console.error(e); }
  // the reason in the panel's words when the page knows it, else the code's title and reason
  notice("error", `${label}: ${why || title}`, why && why.toLowerCase() === detail.toLowerCase() ? "" : detail,
         { code: error.code, dev });
}

/** Sends one command for the game on screen, with `expected_rev` (connection.js); the server
 * decides, and its answer is reported. `id` marks the buttons that show it pending. */
export async function send(id, body, label, basis) {
  if (!conn.connected) {
    notice("error", t("err.disconnected"), t("conn.lost.text"), { code: "disconnected" });
    return null;
  }
  setPending(id, true);
  try {
    const answer = await conn.command(body, basis);
    report(answer, label, body);
    return answer;
  } finally {
    setPending(id, false);
  }
}

// ---- why a move is not possible now ----------------------------------------------------------
// A verdict has one of three shapes: rules.js's {ok, reason, params} (the live page), the
// server's `state.moves` entry {ok, code, message} (the club screen), or a local one
// {ok: false, local: "<i18n key>"}.

/** The reason in the panel's language ("" when allowed); offline says so first. */
export function whyText(result) {
  if (!conn.connected) return t("why.offline");
  if (!result || result.ok) return "";
  if (result.local) return t(result.local);
  if (result.reason) return reasonText(result);
  return refusalText(result).title;
}

/** whyText, then the refusal's reason (which names the exact rule): for a tooltip. */
export function whyTitle(result) {
  const why = whyText(result);
  if (!result || result.ok || result.reason || result.local || !conn.connected) return why;
  const { detail } = refusalText(result);
  return detail ? `${why} — ${detail}` : why;
}

// ---- buttons built once; every state only updates them ----------------------------------------
// Elements are never replaced while the game runs: a state arriving between mousedown and
// mouseup must not swallow the operator's click.

const buttons = new Map();

/** Gives `btn` a label, a key and a reason line, wraps it (the wrap carries the tooltip even
 * while the button is disabled) and registers it under `id` for setButton. */
function fit(btn, id, onclick, aria, wrapClass) {
  const label = h("span", { class: "label" });
  const kbd = h("kbd", { class: "key" });
  const why = h("small", { class: "why" });
  btn.append(label, kbd, why);
  if (aria) btn.setAttribute("aria-keyshortcuts", aria);
  btn.addEventListener("click", onclick);
  const wrap = h("span", { class: wrapClass ? `act-wrap ${wrapClass}` : "act-wrap" });
  buttons.set(id, { wrap, btn, label, kbd, why });
  return wrap;
}

/** A new action button (`data-action` = id), in its wrap; `hint`: an i18n key said under its
 * label while it is enabled (the reason takes that place while it is not). */
export function actionButton(id, onclick, { cls = "", aria = null, hint = null } = {}) {
  const btn = h("button", { type: "button", class: `btn act ${cls}`, "data-action": id });
  const wrap = fit(btn, id, onclick, aria);
  // what the action is, in a few words, while it can be pressed (an i18n key)
  if (hint) buttons.get(id).hint = hint;
  wrap.append(btn);
  return wrap;
}

/** A button the template already holds becomes an action button, wrapped where it stands. */
export function adoptButton(btn, id, onclick, { aria = null, wrapClass = "" } = {}) {
  const wrap = fit(btn, id, onclick, aria, wrapClass);
  btn.replaceWith(wrap);
  wrap.append(btn);
  return wrap;
}

/** Label, key, and the verdict: a disabled button says why, in words and in its tooltip. */
export function setButton(id, label, key, result) {
  const el = buttons.get(id);
  if (!el) return;
  el.label.textContent = label;
  el.kbd.textContent = key;
  const enabled = result.ok && conn.connected;
  el.why.textContent = enabled ? (el.hint ? t(el.hint) : "") : whyText(result);
  el.why.classList.toggle("hint", enabled && !!el.hint);
  el.btn.disabled = !conn.connected || !result.ok;
  el.wrap.title = el.btn.disabled ? whyTitle(result) : `${label} (${key})`;
}

// ---- score, badges, timer ------------------------------------------------------------------

export function badge(name, text, cls = "") {
  return h("span", { class: cls ? `badge ${cls}` : "badge", "data-badge": name }, text);
}

/** The score with the experts' name, the line that ends the game, and the badges: the target,
 * then the page's own (`extra(state)` → elements). */
export function renderScore(state, expertsName, extra) {
  $("score-experts").textContent = state ? state.score.experts : "–";
  $("score-viewers").textContent = state ? state.score.viewers : "–";
  $("experts-name").textContent = expertsName;
  const fin = $("finished");
  fin.hidden = !state || state.status !== "finished";
  $("badges").replaceChildren(...(state ? [badge("target", t("badge.target", { n: state.target })), ...extra(state)] : []));
  if (!state) return;
  fin.textContent = state.status === "finished"
    // one sentence per winner: the side's word inflected in place, never a capitalised label mid-sentence
    ? t(`finished.${state.winner === "viewers" ? "viewers" : state.winner === "experts" ? "experts" : "none"}`,
        { experts: state.score.experts, viewers: state.score.viewers }) : "";
}

/** The timer as the server keeps it (ends_at in server time), ten times a second. */
export function renderTimer() {
  const state = conn.state;
  const timer = state?.timer;
  const box = $("timer");
  // Runs ten times a second: only what changed is written, so a panel whose clock stands still
  // (no minute running) is not laid out and painted again each time (a tablet's battery).
  if (!timer) {
    setData(box, "state", "idle");
    setText($("timer-kind"), state?.round && state.round.phase !== "closed" ? phaseName(state.round.phase) : "");
    setText($("timer-digits"), "–:––");
    setTransform($("timer-fill"), "scaleX(0)");
    return;
  }
  const left = timer.running ? Math.max(0, timer.ends_at - conn.clock.now()) : timer.remaining_ms;
  setData(box, "state", !timer.running ? (left > 0 ? "paused" : "done") : left <= 10_000 ? "warning" : "running");
  const kind = t(`timer.${timer.kind === "blitz" && state.round?.kind === "superblitz" ? "superblitz" : timer.kind}`);
  setText($("timer-kind"), timer.running ? kind : left > 0 ? `${kind} · ${t("timer.paused")}` : `${kind} · ${t("timer.up")}`);
  setText($("timer-digits"), clockText(left));
  setTransform($("timer-fill"), `scaleX(${timer.duration_ms ? Math.min(1, left / timer.duration_ms) : 0})`);
}

function setData(el, key, value) {
  if (el.dataset[key] !== value) el.dataset[key] = value;
}

const transforms = new WeakMap(); // what was written (the style reads back re-serialised)

function setTransform(el, value) {
  if (transforms.get(el) === value) return;
  transforms.set(el, value);
  el.style.transform = value;
}

/** pause and resume share one button and one key: which one applies now. */
export function pauseType(state) {
  const timer = state?.timer;
  return timer && !timer.running && timer.remaining_ms > 0 ? "resume_timer" : "pause_timer";
}

// ---- the question (operator only) -------------------------------------------------------------

const small = (text) => h("p", { class: "q-small" }, text);

/** The round's question in #question: its head, then `afterHead(round, state)`, the text, media,
 * answer, variants and comment, then `afterComment(round, state)` (lists of elements). With no
 * round, the `before` hint. */
export function renderQuestion(state, { before, afterHead = () => [], afterComment = () => [] }) {
  const box = $("question");
  const round = state?.round;
  box.replaceChildren();
  if (!round) {
    box.append(h("p", { class: "muted" }, state ? t(before) : ""));
    return;
  }
  const head = [t("sector.n", { n: round.sector }), kindName(round.kind)];
  if (round.landed !== round.sector) head.push(t("q.landed", { n: round.landed }));
  if (round.questions > 1) head.push(t("q.of", { i: round.question + 1, n: round.questions }));
  head.push(phaseName(round.phase));
  const media = (round.media || []).map((m) => {
    const href = safeUrl(m);
    return href ? h("a", { href, target: "_blank", rel: "noopener noreferrer", class: "q-media" }, m)
                : h("span", { class: "q-media" }, m);
  });
  box.append(...[
    h("div", { class: "q-head" }, head.join(" · ")),
    ...afterHead(round, state),
    round.text ? h("p", { class: "q-text", id: "q-text" }, round.text) : h("p", { class: "q-text paper" }, t("q.paper")),
    ...media,
    round.answer ? h("p", { class: "q-answer", id: "q-answer" }, h("span", { class: "lbl" }, t("q.answer")), " ", round.answer) : null,
    round.accepted?.length ? small(`${t("q.accepted")}: ${round.accepted.join("; ")}`) : null,
    round.rejected?.length ? small(`${t("q.rejected")}: ${round.rejected.join("; ")}`) : null,
    round.comment ? small(`${t("q.comment")}: ${round.comment}`) : null,
    ...afterComment(round, state),
  ].filter(Boolean));
}

// ---- player pickers --------------------------------------------------------------------------

/** A picker box (#id) that is shown while there are `players` to pick from (null: hidden and
 * emptied). Its content, `build()` → elements, is built again only when the players, the
 * `mode` or the language change: a state arriving mid-click must not replace the buttons.
 * render() returns the box while shown, else null. */
export function pickerBox(id) {
  let key = "";
  return {
    render(players, mode, build) {
      const box = $(id);
      if (!players) {
        box.hidden = true;
        box.replaceChildren();
        key = "";
        return null;
      }
      box.hidden = false;
      const next = `${mode}|${players.join("|")}|${t("lang.code")}`;
      if (next !== key) {
        key = next;
        box.replaceChildren(...build().filter(Boolean));
      }
      return box;
    },
  };
}

/** A row of player buttons; `keys` puts ⇧1…⇧9 on the first nine, `action` marks them pending. */
export function playerRow(players, onPick, { keys = false, action = null } = {}) {
  const row = h("div", { class: "picker-players" });
  players.forEach((p, i) => {
    const btn = h("button", { type: "button", class: "btn player", "data-player": p, "data-action": action },
                  h("span", { class: "label" }, bdi(p)), keys && i < 9 ? h("kbd", { class: "key" }, `⇧${i + 1}`) : null);
    btn.addEventListener("click", () => onPick(p));
    row.append(btn);
  });
  return row;
}

/** Marks the chosen players of a picker; its buttons work only while `enabled`. A `title`
 * (also "") replaces each button's tooltip. */
export function markPlayers(box, isChosen, enabled, title) {
  box.querySelectorAll(".player").forEach((btn) => {
    const chosen = isChosen(btn.dataset.player);
    btn.classList.toggle("chosen", chosen);
    btn.setAttribute("aria-pressed", chosen ? "true" : "false");
    btn.disabled = !enabled;
    if (title !== undefined) btn.title = title;
  });
}

// ---- undo: says what it reverts, and asks once more ----------------------------------------

/** The undo button (registered as "undo") and its confirmation in #confirm. `verdict(state)`:
 * may the last command be undone now; `describe(state)`: what it reverts, in words. */
export function undoControl({ verdict, describe }) {
  let basis = null;
  const box = () => $("confirm");

  function render(state) {
    const what = describe(state);
    setButton("undo", what ? t("act.undo_what", { what }) : t("act.undo"), t("key.undo"), verdict(state));
    // Open while what it reverts stays the same: the clock's time-up (reverted with the command
    // before it) changes the rev but not that; any other change closes it.
    if (!box().hidden && basis && (!state || state.id !== basis.id || JSON.stringify(state.undo?.first ?? null) !== basis.undo)) {
      close();
      notice("info", t("undo.changed"), "", { code: "local" });
    }
  }

  function open() {
    const state = conn.state;
    const result = verdict(state);
    if (!result.ok) {
      notice("info", t("refused.local", { action: t("act.undo") }), whyText(result), { code: "local" });
      return;
    }
    if (!box().hidden) return;
    basis = { id: state.id, rev: state.rev, undo: JSON.stringify(state.undo?.first ?? null) };
    const yes = h("button", { type: "button", class: "btn btn-danger", id: "undo-yes" },
                  h("span", { class: "label" }, t("undo.yes")), h("kbd", { class: "key" }, "Enter"));
    const cancel = h("button", { type: "button", class: "btn", id: "undo-no" },
                     h("span", { class: "label" }, t("undo.no")), h("kbd", { class: "key" }, "Esc"));
    yes.addEventListener("click", confirm);
    cancel.addEventListener("click", close);
    box().replaceChildren(h("p", { class: "confirm-text", id: "undo-what" }, t("undo.confirm", { what: describe(state) })),
                          h("div", { class: "confirm-actions" }, yes, cancel));
    box().hidden = false;
    box().parentElement.classList.add("confirming");   // the confirmation takes the undo button's place
  }

  function close() {
    box().hidden = true;
    box().parentElement.classList.remove("confirming");
    box().replaceChildren();
    basis = null;
  }

  function confirm() {
    const confirmed = basis;
    if (!confirmed) return;
    const what = describe(conn.state);
    close();
    // Based on the state the operator confirmed: if it changed meanwhile, the server says 409.
    send("undo", { type: "undo" }, t("act.undo_what", { what }), confirmed);
  }

  return { render, open, close, confirm, isOpen: () => !box().hidden };
}

// ---- hotkeys -------------------------------------------------------------------------------

/** The hotkey list in #keys-list: rows of [key, what it does]. */
export function keyHelp(rows) {
  $("keys-list").replaceChildren(...rows.flatMap(([k, v]) => [h("dt", {}, h("kbd", {}, k)), h("dd", {}, v)]));
}

function typing(target) {
  return target instanceof HTMLElement
    && (target.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName));
}

/** Enter/Space on a control the keyboard user focused with Tab press that control. */
function pressesFocused(e) {
  const el = document.activeElement;
  return ["Enter", "NumpadEnter", "Space"].includes(e.code)
    && el instanceof HTMLElement && el.matches("button, summary, a[href]");
}

/**
 * The keyboard frame: never while typing, never twice for a held key; Esc closes the undo
 * confirmation, Ctrl/Cmd+Z opens it and Enter confirms it. The page's own keys:
 * escape(confirmWasOpen), enter(), digit(d), shiftDigit(n) (⇧1…⇧9), and press(code, shift)
 * → the handler of any other key, or nothing. A hotkey asks the server even when its button
 * is disabled: the server decides, and its refusal is shown.
 */
export function listenKeys(undo, { escape, enter, digit, shiftDigit, press }) {
  document.addEventListener("keydown", (e) => {
    if (e.isComposing || typing(e.target) || pressesFocused(e)) return;
    const code = e.code;
    const mod = e.ctrlKey || e.metaKey || e.altKey;
    if (e.repeat) {               // a held key: never a second command
      if (!mod) e.preventDefault();
      return;
    }
    if (code === "Escape") {
      e.preventDefault();
      const wasOpen = undo.isOpen();
      if (wasOpen) undo.close();
      escape(wasOpen);
      return;
    }
    if ((e.ctrlKey || e.metaKey) && !e.altKey && code === "KeyZ") {
      e.preventDefault();
      undo.open();
      return;
    }
    if (mod) return;
    if (code === "Enter" || code === "NumpadEnter") {
      e.preventDefault();
      if (undo.isOpen()) undo.confirm();
      else enter();
      return;
    }
    const d = /^(Digit|Numpad)(\d)$/.exec(code);
    if (d) {
      e.preventDefault();
      if (e.shiftKey && d[1] === "Digit") shiftDigit(Number(d[2]));
      else digit(d[2]);
      return;
    }
    const handler = press(code, e.shiftKey);
    if (handler) {
      e.preventDefault();
      handler();
    }
  });
}

// ---- the page's start ----------------------------------------------------------------------

/** Another game went on air: say so (true), so the page can drop what it picked for the old one. */
export function switchedGame(state, prev) {
  if (!prev || !state || prev.id === state.id) return false;
  notice("info", t("live.switched", { title: state.title || state.id }), "", { code: "local" });
  return true;
}

/** Runs the page: `render(state, prev)` on each state, on a change of the link (`idle()` while
 * no state has come yet) and of the language (after `onLang()`); the timer ten times a second. */
export function start({ render, idle = () => {}, onLang = () => {} }) {
  dropPointerFocus();
  conn.on("state", (state, prev) => {
    render(state, prev);
    if (state && prev && state.id === prev.id && state.rev > prev.rev) dropStaleNotices(state.rev);
  });
  conn.on("status", () => {
    if (conn.state !== undefined) render(conn.state, conn.state);
    else idle();
  });
  onLangChange(() => {
    onLang();
    if (conn.state !== undefined) render(conn.state, conn.state);
  });
  setInterval(renderTimer, 100);
}
