// On-air words come from the server's gettext catalogs (keys under `air.` in
// overlay/i18n/locales/*.po); the page carries its language's catalog inline (#i18n-air), so a
// reloaded overlay shows its words at once. `t(key, vars)` fills {name} placeholders,
// `t.n(key, n, vars)` picks the plural form for n (Intl.PluralRules; {n} is n in the locale's digits).

const EMPTY = { lang: "ru", locale: "ru-RU", messages: {} };

function inlineCatalog() {
  const el = typeof document !== "undefined" ? document.getElementById("i18n-air") : null;
  try {
    return el ? JSON.parse(el.textContent) : EMPTY;
  } catch {
    return EMPTY;
  }
}

/** Returns a translator for the page's catalog (`lang` is the language the page asked for). */
export function translator(lang, catalog = inlineCatalog()) {
  const table = catalog.messages || {};
  const locale = catalog.locale || lang || "ru";
  const rules = new Intl.PluralRules(locale);
  const numbers = new Intl.NumberFormat(locale);  // one formatter, not one per word drawn
  const fill = (s, vars) => s.replace(/\{(\w+)\}/g, (_, k) => (vars[k] ?? ""));
  const t = (key, vars = {}) => {
    let s = table[key] ?? key;
    if (typeof s === "object") s = s.other ?? key;
    return fill(s, vars);
  };
  t.n = (key, n, vars = {}) => {
    const forms = table[key];
    if (forms === undefined) return key;
    const s = typeof forms === "string" ? forms : forms[rules.select(n)] ?? forms.other;
    return fill(s, { n: numbers.format(n), ...vars });
  };
  t.lang = catalog.lang || "ru";
  t.locale = locale;
  t.number = (n) => numbers.format(n);
  t.money = (amount, currency) => formatMoney(amount, currency, locale);
  return t;
}

export function formatMoney(amount, currency, locale) {
  if (amount == null) return "";
  if (!currency) return new Intl.NumberFormat(locale).format(amount);
  try {
    return new Intl.NumberFormat(locale, {
      style: "currency", currency, currencyDisplay: "narrowSymbol", maximumFractionDigits: 0,
    }).format(amount);
  } catch {
    // Not an ISO 4217 code (e.g. "книги"): print it after the number.
    return `${new Intl.NumberFormat(locale).format(amount)} ${currency}`;
  }
}
