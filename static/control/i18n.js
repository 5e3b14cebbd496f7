// The panel's words come from the server's gettext catalogs (overlay/i18n/locales/*.po): the page
// carries its default language's catalog inline (#i18n-panel); the other languages are fetched
// from /i18n/<lang>.json (revalidated, usually 304) before the page's modules run, so the first
// word is already in the operator's language and switching is immediate.
// t(key, {param}) fills {param} placeholders; tn(key, n, {param}) picks the plural form for n
// (Intl.PluralRules); a missing key shows itself.
// Templates mark texts with data-i18n (textContent), data-i18n-title, -aria-label, -placeholder.

const STORE_KEY = "chgk.panel.lang";
const catalogs = {};
const listeners = [];

function inline() {
  const el = document.getElementById("i18n-panel");
  return el ? JSON.parse(el.textContent) : { lang: "ru", locale: "ru-RU", langs: ["ru"], messages: {} };
}

const first = inline();
catalogs[first.lang] = first;
export const LANGS = first.langs || [first.lang];

async function load(code) {
  if (catalogs[code]) return catalogs[code];
  const r = await fetch(`/i18n/${encodeURIComponent(code)}.json?scope=panel`, { credentials: "same-origin" });
  if (!r.ok) throw new Error(`catalog ${code}: HTTP ${r.status}`);
  catalogs[code] = await r.json();
  return catalogs[code];
}

function saved() {
  try { return localStorage.getItem(STORE_KEY); } catch { return null; }
}

await Promise.all(LANGS.map((code) => load(code).catch(() => null)));  // offline: what we have
let lang = catalogs[saved()] ? saved() : first.lang;
let plural = new Intl.PluralRules(catalogs[lang].locale);

/** The panel language: the operator's saved choice, else the server's default. */
export function currentLang(fallback) {
  if (fallback === undefined) return lang;
  const choice = saved();
  return LANGS.includes(choice) && catalogs[choice] ? choice : LANGS.includes(fallback) ? fallback : "ru";
}

/** The BCP 47 tag of the panel language (numbers, money, times). */
export function currentLocale() {
  return catalogs[lang]?.locale || lang;
}

/** Switches the panel language (one whose catalog is loaded); listeners run at once. */
export function setLang(next, { save = true } = {}) {
  if (!LANGS.includes(next) || !catalogs[next]) return;
  const changed = next !== lang;
  lang = next;
  plural = new Intl.PluralRules(catalogs[next].locale);
  document.documentElement.lang = next;
  if (save) {
    try { localStorage.setItem(STORE_KEY, next); } catch { /* private mode: the choice lasts this page */ }
  }
  if (changed) listeners.forEach((fn) => fn(next));
}

export function onLangChange(fn) {
  listeners.push(fn);
}

function fill(text, params) {
  if (!params) return text;
  return text.replace(/\{(\w+)\}/g, (m, name) => (name in params ? String(params[name]) : m));
}

function lookup(key) {
  return catalogs[lang]?.messages[key] ?? catalogs.ru?.messages[key];
}

export function t(key, params) {
  let text = lookup(key) ?? key;
  if (typeof text === "object") text = text.other ?? Object.values(text).pop();
  return fill(text, params);
}

/** The message `key` in the plural form for `n` ({n} is filled with n). */
export function tn(key, n, params = {}) {
  const forms = lookup(key);
  if (forms === undefined) return key;
  const text = typeof forms === "string" ? forms : forms[plural.select(n)] ?? forms.other;
  return fill(text, { n, ...params });
}

/** Translates the marked elements under `root`. */
export function applyI18n(root) {
  root.querySelectorAll("[data-i18n]").forEach((el) => { el.textContent = t(el.dataset.i18n); });
  root.querySelectorAll("[data-i18n-title]").forEach((el) => { el.title = t(el.dataset.i18nTitle); });
  root.querySelectorAll("[data-i18n-aria-label]").forEach((el) => el.setAttribute("aria-label", t(el.dataset.i18nAriaLabel)));
  root.querySelectorAll("[data-i18n-placeholder]").forEach((el) => { el.placeholder = t(el.dataset.i18nPlaceholder); });
}
