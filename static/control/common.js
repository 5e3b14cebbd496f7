// Shared by every panel page: the page config, a tiny DOM builder, notices, the language
// switch, and fetch calls to the API with the CSRF header.

import { t, setLang, currentLang, currentLocale, applyI18n, onLangChange } from "./i18n.js";

export function pageConfig() {
  const el = document.getElementById("panel-config");
  return el ? JSON.parse(el.textContent) : {};
}

/** h("button", {class: "btn", onclick}, "text", child) → element. `null`/`false` children skip. */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k.startsWith("on") && typeof v === "function") el.addEventListener(k.slice(2), v);
    else if (k === "dataset") Object.assign(el.dataset, v);
    else if (k === "text") el.textContent = v;
    else el.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : String(c));
  }
  return el;
}

/** A value as a string for keyedChildren's `dataset.sig`: JSON with its keys sorted, since the
 * same item arrives from the HTTP API and from Socket.IO with its keys in different orders. */
export function signature(value) {
  return JSON.stringify(value, (_k, v) => (v && typeof v === "object" && !Array.isArray(v)
    ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, v[k]])) : v));
}

/** Make `box`'s children the `nodes`, each keyed by `dataset.key`, keeping the element already
 * there for a key: a row the pointer is on is never removed and re-added by a re-render, which
 * would cancel the click (or the double click) the operator is making on it. A kept element takes
 * the new one's attributes always, and its children only when its `dataset.sig` changed. */
export function keyedChildren(box, nodes) {
  const old = new Map([...box.children].map((el) => [el.dataset.key, el]));
  const kept = nodes.map((node) => {
    const el = old.get(node.dataset.key);
    return el && el.tagName === node.tagName ? el : null;
  });
  for (const el of box.querySelectorAll(":scope > *")) if (!kept.includes(el)) el.remove();
  nodes.forEach((node, i) => {
    let el = kept[i];
    if (!el) el = node;
    else {
      const sig = el.dataset.sig;
      for (const a of [...el.attributes]) if (!node.hasAttribute(a.name)) el.removeAttribute(a.name);
      for (const a of [...node.attributes]) if (el.getAttribute(a.name) !== a.value) el.setAttribute(a.name, a.value);
      if (sig !== node.dataset.sig) el.replaceChildren(...node.childNodes);
    }
    if (box.children[i] !== el) box.insertBefore(el, box.children[i] || null);
  });
}

// ---- names: Hebrew or Arabic ones read right to left without moving what is around them ---------

/** A name (a team's, a player's) as an isolated run: <bdi> takes its direction from its first
 * strong letter and keeps the words, numbers and punctuation beside it in their order. */
export function bdi(name) {
  return h("bdi", {}, name == null ? "" : String(name));
}

/** `t(key, {...names, ...params})` as nodes, each of `names` in a <bdi>. */
export function tNames(key, names, params = {}) {
  const keys = Object.keys(names);
  const marks = Object.fromEntries(keys.map((k, i) => [k, `\u0001${i}\u0001`]));
  return t(key, { ...params, ...marks }).split(/\u0001(\d+)\u0001/)
    .map((part, i) => (i % 2 ? bdi(names[keys[Number(part)]]) : part)).filter((x) => x !== "");
}

/** The top bar's "game title — team name", the name isolated. */
export function gameTitle(title, name) {
  return [title, name && bdi(name)].filter(Boolean).flatMap((x, i) => (i ? [" — ", x] : [x]));
}

const RTL = /[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufefc]/;

/** A name inside a text that goes to air as text (a strap's subtitle): wrapped in Unicode's
 * first-strong isolate (U+2068 … U+2069) when it holds right-to-left letters, else as it is. */
export function isolated(name) {
  return RTL.test(name) ? `\u2068${name}\u2069` : name;
}

// ---- notices: one at a time, in their own place in the top bar ---------------------------------
// The place is in the page's flow (never over a control) and keeps its height; a newer notice
// replaces the one shown, except that a passing "done" (`yields`) does not hide a refusal just shown.

const KEEP_REFUSAL_MS = 3000;  // a refusal is not replaced by a "done" sooner than this
const MOVED_ON_MS = 1500;      // nor dropped because the game moved on sooner than this

/** kind: "ok" | "info" | "error"; `why`: the reason in the panel's language, shown after the
 * title; `detail`: secondary words (a refusal's reason); `dev`: the server's English words, kept
 * in data-detail for a developer, not shown; `yields`: not shown over a
 * refusal of the last 3 s (a passing "done"). Errors stay longer (20 s),
 * but not forever, and leave as soon as the game moves on (dropStaleNotices). Returns the
 * element, or null when it was not shown. */
export function notice(kind, title, detail = "", { sticky = false, ms = kind === "error" ? 20000 : 4000, code = "", why = "",
                                                  yields = false, dev = "" } = {}) {
  const box = document.getElementById("notices");
  if (!box) return null;
  const now = performance.now();
  const current = box.firstElementChild;
  if (yields && current && current.dataset.kind !== "ok" && now - Number(current.dataset.at) < KEEP_REFUSAL_MS) {
    return null;
  }
  const close = h("button", { type: "button", class: "notice-close", "aria-label": t("notice.close"),
                             onclick: () => el.remove() }, "×");
  const el = h("div", { class: `notice notice-${kind}`, role: kind === "error" ? "alert" : "status",
                        "data-code": code || null, "data-kind": kind, "data-detail": dev || null, "data-at": String(now),
                        "data-rev": document.body.dataset.rev || "",
                        "data-rundown-rev": document.body.dataset.rundownRev || "",
                        title: [why ? `${title} — ${why}` : title, detail].filter(Boolean).join("\n") },
               h("div", { class: "notice-line" }, h("strong", { class: "notice-title" }, title),
                 why ? h("span", { class: "notice-why" }, why) : null),
               detail ? h("span", { class: "notice-detail" }, detail) : null, close);
  box.replaceChildren(el);
  if (!sticky) setTimeout(() => el.remove(), ms);
  return el;
}

/** The game has moved on to `rev`: a notice shown at an earlier rev leaves (once it has been
 * readable for a moment) — an old refusal left on screen would mislead later. `which`: the rev
 * the notice recorded, the game's (`rev`) or the rundown's on the desk (`rundownRev`). */
export function dropStaleNotices(rev, which = "rev") {
  const box = document.getElementById("notices");
  if (!box || !Number.isFinite(rev)) return;
  for (const el of [...box.children]) {
    const at = Number(el.dataset[which]);
    if (!el.dataset[which] || !Number.isFinite(at) || at >= rev) continue;
    const age = performance.now() - Number(el.dataset.at);
    if (age >= MOVED_ON_MS) el.remove();
    else setTimeout(() => el.remove(), MOVED_ON_MS - age);
  }
}

// A refusal's params in the panel's words: a phase, a command, a graphic by their catalog names.
const PARAM_WORDS = {
  phase: (v) => t(`phase.${v ?? "none"}`),
  command: (v) => word(`act.${v}`, v),
  graphic: (v) => word(`gname.${v}`, v),
};
// a refusal's `field` is a game's field ({{captain}}) only in these refusals: said as a word
const GAME_FIELD_CODES = new Set(["game_field_missing"]);

function word(key, fallback) {
  const text = t(key);
  return text !== key ? text : fallback;
}

/** A field's words: the catalog's label for it (`fld.<name>`; a row's column by its own name). */
export function fieldLabel(name, prop) {
  const key = `fld.${String(name).split(".").pop()}`;
  const said = t(key);
  return said !== key ? said : prop?.label || name;
}

/** A graphic's data refused (overlay/schema): its catalog key and parameters in the page's
 * language — the field by its label, the list row — or "" for any other refusal. */
export function dataWords(error) {
  const key = error?.key;
  if (typeof key !== "string" || !key.startsWith("data.")) return "";
  const p = { ...(error.params || {}) };
  if (p.field) p.field = fieldLabel(p.field);
  if (p.fields) p.fields = String(p.fields).split(", ").map((f) => fieldLabel(f)).join(", ");
  const said = t(`data.${key.slice(5)}`, p);
  return p.row ? `${t("data.in_row", { row: p.row })}: ${said}` : said;
}

function fits(key, params) {
  const text = t(key);
  return text !== key && [...text.matchAll(/\{(\w+)\}/g)].every((m) => m[1] in params);
}

/** The words for a refusal, all from the catalogs: the title is its `code`'s (`err.<code>`), the
 * detail its reason's (`refusal.<params.reason>`, `why.<params.reason>`, else `refusal.<code>`)
 * with the params filled in. The server's English `message` is the developer's: it goes to the
 * console and the notice's data-detail, never onto the page. */
export function refusalText(error) {
  const code = error?.code || "error";
  const raw = error?.params && typeof error.params === "object" ? error.params : {};
  const params = Object.fromEntries(Object.entries(raw).map(([k, v]) => [k, PARAM_WORDS[k] ? PARAM_WORDS[k](v) : v]));
  if (GAME_FIELD_CODES.has(code) && typeof raw.field === "string") params.field = word(`gamefield.${raw.field}`, raw.field);
  const title = fits(`err.${code}`, params) ? t(`err.${code}`, params) : t("err.refused");
  const reason = typeof raw.reason === "string" ? raw.reason : "";
  const key = [reason && `refusal.${reason}`, reason && `why.${reason}`, `refusal.${code}`].find((k) => k && fits(k, params));
  // a graphic's data (overlay/schema) has its own words, else the reason's
  let detail = dataWords(error) || (key ? t(key, params) : "");
  if (detail.toLowerCase() === title.toLowerCase()) detail = "";
  const dev = error?.message || "";
  if (dev) console.info(`refused (${code}): ${dev}`);
  return { title, detail, dev };
}

/** A refused call as an error notice in the panel's words (refusalText). Returns those words
 * ({title, detail}) for a page that also shows them in place. */
export function noticeRefusal(error) {
  const words = refusalText(error);
  notice("error", words.title, words.detail, { code: error?.code, dev: words.dev });
  return words;
}

// ---- language -----------------------------------------------------------------------------

export function wireLanguage(defaultLang) {
  setLang(currentLang(defaultLang), { save: false });
  const select = document.getElementById("lang-select");
  if (select) {
    select.value = currentLang(defaultLang);
    select.addEventListener("change", () => {
      setLang(select.value);
      select.blur(); // give the keyboard back to the hotkeys
    });
  }
  applyI18n(document);
  onLangChange(() => applyI18n(document));
}

// ---- API ----------------------------------------------------------------------------------

/** fetch with the session cookie. Resolves to {ok, status, data}: the JSON answer, or an error
 * body in the API's shape when there is none (status 0: the network failed). */
export async function request(path, init = {}) {
  try {
    const r = await fetch(path, { credentials: "same-origin", ...init });
    let data = null;
    try { data = await r.json(); } catch { data = null; }
    if (!r.ok && !data?.error) data = { error: { code: `http_${r.status}`, message: r.statusText } };
    return { ok: r.ok, status: r.status, data };
  } catch (e) {
    return { ok: false, status: 0, data: { error: { code: "network", message: String(e?.message || e) } } };
  }
}

/** The headers of a call to the API: JSON answers, and the CSRF token on every change. */
export function apiHeaders(method, contentType) {
  const headers = { Accept: "application/json" };
  if (contentType) headers["Content-Type"] = contentType;
  if (method !== "GET") headers["X-CSRF-Token"] = pageConfig().csrf || "";
  return headers;
}

/** A JSON endpoint with the session cookie and the CSRF header: request()'s {ok, status, data}. */
export function api(method, path, body) {
  return request(path, { method, headers: apiHeaders(method, body === undefined ? null : "application/json"),
                         body: body === undefined ? undefined : JSON.stringify(body) });
}

/** api() for a page that needs the answer: its data, or null once a refusal has been shown. */
export async function apiData(method, path, body) {
  const r = await api(method, path, body);
  if (r.ok) return r.data;
  noticeRefusal(r.data?.error);
  return null;
}

/** Only http(s) and same-site addresses become links or images: a question pack must not be
 * able to put a `javascript:` link in front of the operator. */
export function safeUrl(value) {
  if (typeof value !== "string" || !value.trim()) return null;
  try {
    const url = new URL(String(value), location.href);
    return url.protocol === "http:" || url.protocol === "https:" ? url.href : null;
  } catch {
    return null;
  }
}

/** A pointer click leaves no focus behind, so Space and Enter keep reaching the hotkeys; a
 * keyboard user's focus (Tab) stays, and Enter/Space then press the focused control. */
export function dropPointerFocus() {
  document.addEventListener("click", (e) => {
    const el = e.target instanceof Element ? e.target.closest("button, summary, a") : null;
    if (el && e.detail > 0) el.blur();
  });
}

/** A game day («2026-12-02-wed», the league's id of the day) as a date in the panel's
 * language («ср, 2 декабря»); an id that is not a date is the organisers' own word. */
export function fmtDay(day) {
  const m = /^(\d{4})-(\d{2})-(\d{2})/.exec(day || "");
  if (!m) return day || "";
  return new Intl.DateTimeFormat(currentLocale(), { weekday: "short", day: "numeric", month: "long", timeZone: "UTC" })
    .format(new Date(Date.UTC(+m[1], +m[2] - 1, +m[3])));
}

export function fmtTime(ms) {
  if (!Number.isFinite(ms)) return "";
  return new Date(ms).toLocaleTimeString(currentLang(), { hour: "2-digit", minute: "2-digit", second: "2-digit" });
}
