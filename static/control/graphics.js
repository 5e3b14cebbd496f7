// The graphics desk: lower-third presets (the team's players, host, sponsor) and free text,
// take/clear; what is on air; live previews of the overlays; the overlays connected now,
// each with a reload button; OBS scene switching's state in words. Graphics go through
// POST /api/graphics — one path, recorded.

import { t, onLangChange } from "./i18n.js";
import { pageConfig, h, api, apiData, notice, noticeRefusal, wireLanguage, dropPointerFocus, fmtTime, bdi, isolated } from "./common.js";
import { ControlConnection } from "./connection.js";
import { mountShowDesk } from "./showdesk.js";

const cfg = pageConfig();
wireLanguage(cfg.lang);
dropPointerFocus();
const conn = new ControlConnection({ settleMs: cfg.settle_ms ?? 250 });
const $ = (id) => document.getElementById(id);

const LOWER_THIRD = "lower-third";
// Previews only of graphics the server can render (cfg.overlays); the TV ones first. The club
// and season graphics load only when their section is opened: every preview is a live page
// with its own connection, and a tablet need not carry sixteen of them.
const AVAILABLE = cfg.overlays || [];
const PREVIEWS = ["full", "scoreboard", "timer", "table", "question", "blitz", "lower-third", "result"]
  .filter((g) => AVAILABLE.includes(g));
const MORE_PREVIEWS = AVAILABLE.filter((g) => !PREVIEWS.includes(g));
const MISSING = (cfg.graphics || []).filter((g) => !AVAILABLE.includes(g));
const OVERLAYS_POLL_MS = 5000;
const store = {
  get: (k, d = "") => localStorage.getItem(`chgk.panel.${k}`) ?? d,
  set: (k, v) => localStorage.setItem(`chgk.panel.${k}`, v),
};

/** A graphic's name in the panel's language (its file name when there is none). */
const gfxName = (name) => (t(`gname.${name}`) !== `gname.${name}` ? t(`gname.${name}`) : name);

// ---- taking graphics to air ----------------------------------------------------------------

async function graphic(action, name, data = {}) {
  const onAir = await apiData("POST", "/api/graphics", { action, graphic: name, data });
  if (!onAir) return null;
  notice("ok", t(action === "show" ? "gfx.shown" : "gfx.hidden", { name: gfxName(name) }), "", { code: "ok", ms: 1800 });
  renderOnAir(onAir);
  return onAir;
}

// What the lower-third does with long text (static/overlays/lower-third.*): two lines of at most
// 1126 px, the name at 40 px at the smallest, the title line at 28 px in capitals. Measured here
// in the graphics' face (or a wider fallback: the warning then comes a little early).
const LT_FIT = { width: 1126 * 2 * 0.95, title: "800 40px", subtitle: "600 28px", spacing: 0.06 * 28,
                 face: '"CHGK Sans", "Roboto Condensed", "Arial Narrow", sans-serif' };
const measure = document.createElement("canvas").getContext("2d");

/** Whether a strap's text will still not fit on air. */
function wontFit(title, subtitle) {
  measure.font = `${LT_FIT.title} ${LT_FIT.face}`;
  if (measure.measureText(title).width > LT_FIT.width) return true;
  measure.font = `${LT_FIT.subtitle} ${LT_FIT.face}`;
  const sub = subtitle.toUpperCase();
  return measure.measureText(sub).width + sub.length * LT_FIT.spacing > LT_FIT.width;
}

let faceLinked = null;  // the stylesheet with the graphics' face, once linked

function renderFitWarning() {
  const title = $("free-title").value.trim();
  const subtitle = $("free-subtitle").value.trim();
  const show = () => {   // the fields as they are now: a later keystroke may have changed them
    const bad = wontFit($("free-title").value.trim(), $("free-subtitle").value.trim());
    $("free-fit").hidden = !bad;
    $("free-fit").textContent = bad ? t("gfx.wont_fit") : "";
  };
  show();
  if (!faceLinked) {   // the graphics' own face, so that the desk measures what goes on air
    faceLinked = new Promise((resolve) => {
      document.head.append(h("link", { rel: "stylesheet", href: `${cfg.static || "/static/"}fonts/fonts.css`,
                                       onload: resolve, onerror: resolve }));
    });
  }
  faceLinked.then(() => Promise.all([document.fonts.load(`${LT_FIT.title} "CHGK Sans"`, title || "А"),
                                     document.fonts.load(`${LT_FIT.subtitle} "CHGK Sans"`, subtitle || "А")]))
    .then(show, () => {});
}

function durationMs() {
  const s = Number($("free-duration").value);
  return Number.isFinite(s) && s > 0 ? Math.min(3_600_000, Math.max(500, Math.round(s * 1000))) : null;
}

function takeLowerThird(title, subtitle) {
  if (!title) {
    notice("info", t("gfx.need_title"), "", { code: "local" });
    return;
  }
  const data = { title };
  if (subtitle) data.subtitle = subtitle;
  const ms = durationMs();
  if (ms) data.duration_ms = ms;
  graphic("show", LOWER_THIRD, data);
}

// ---- presets -------------------------------------------------------------------------------

/** The experts on air: the tv game's team, or the team at the club game's Central Table. */
function expertsTeam(state) {
  if (state?.rules !== "club") return state?.experts;
  return (state.teams || []).find((x) => x.id === state.central?.team);
}

function presets(state) {
  const list = [];
  const team = expertsTeam(state);
  if (team?.name) list.push({ title: team.name, subtitle: t("gfx.sub.team") });
  for (const p of team?.players || []) {
    list.push({ title: p, subtitle: p === team.captain ? t("gfx.sub.captain", { team: isolated(team.name) })
                                                       : t("gfx.sub.player", { team: isolated(team.name) }) });
  }
  const host = $("host-name").value.trim();
  if (host) list.push({ title: host, subtitle: t("gfx.sub.host") });
  const sponsor = $("sponsor-name").value.trim();
  if (sponsor) list.push({ title: sponsor, subtitle: t("gfx.sub.sponsor") });
  return list;
}

function renderPresets() {
  const box = $("presets");
  const list = presets(conn.state);
  box.replaceChildren(...list.map((p) => h("button", {
    type: "button", class: "btn preset", "data-title": p.title,
    onclick: () => takeLowerThird(p.title, p.subtitle),
  }, h("strong", {}, bdi(p.title)), h("small", {}, p.subtitle))));
  if (!list.length) {
    const why = !conn.state ? "gfx.no_presets" : conn.state.rules === "club" ? "gfx.no_presets_club" : "gfx.no_presets_game";
    box.append(h("p", { class: "muted", "data-why": why }, t(why)));
  }
}

// ---- on air --------------------------------------------------------------------------------

let lastPayload = null;

function renderOnAir(payload) {
  if (payload) lastPayload = payload;
  const p = lastPayload;
  const list = $("on-air-list");
  list.replaceChildren();
  if (!p) return;
  const shown = Object.entries(p.graphics || {});
  for (const [name, item] of shown) {
    const d = item.data || {};
    const words = [d.title, d.subtitle, d.text].filter(Boolean).join(" — ");
    const until = item.expires_at ? t("gfx.until", { time: fmtTime(item.expires_at) }) : t("gfx.manual");
    list.append(h("li", { class: "on-air-item", "data-graphic": name },
                  h("strong", {}, gfxName(name)), words ? h("span", {}, ` ${words}`) : null,
                  h("small", { class: "muted" }, ` · ${until}`),
                  h("button", { type: "button", class: "btn btn-danger btn-small", onclick: () => graphic("hide", name) }, t("gfx.clear_one"))));
  }
  // a strap taken out is gone, not "hidden": only the graphics that stay on their page are
  for (const name of (p.hidden || []).filter((n) => n !== LOWER_THIRD)) {
    list.append(h("li", { class: "on-air-item hidden-item", "data-graphic": name },
                  h("strong", {}, gfxName(name)), h("small", { class: "muted" }, ` · ${t("gfx.is_hidden")}`),
                  h("button", { type: "button", class: "btn btn-small", onclick: () => graphic("show", name) }, t("gfx.show_again"))));
  }
  if (!list.children.length) list.append(h("li", { class: "muted" }, t("gfx.nothing_on_air")));
  document.querySelectorAll(".preview-card").forEach((card) => {
    const name = card.dataset.graphic;
    card.classList.toggle("is-hidden", (p.hidden || []).includes(name));
    card.classList.toggle("is-shown", name in (p.graphics || {}));
  });
}

// ---- connected overlays --------------------------------------------------------------------

const isPreview = (o) => /[?&]preview=1/.test(o.page || "");

function overlayRow(o) {
  return h("tr", { "data-sid": o.sid, "data-kind": isPreview(o) ? "preview" : "source" },
    h("td", {}, gfxName(o.graphic || "?"),
      // long-polling (a proxy or firewall that blocks websockets): every change reaches it later
      o.transport === "polling" ? h("small", { class: "polling-tag", title: t("gfx.polling_hint") }, ` (${t("gfx.polling_tag")})`) : null),
    h("td", { class: "page-cell", title: o.page }, o.page),
    h("td", {}, fmtTime(o.since)),
    h("td", {}, h("button", { type: "button", class: "btn btn-small", onclick: () => reloadOverlay(o) }, t("gfx.reload"))));
}

/** The overlays connected now: the sources OBS (or anyone) has open, then this panel's own
 * previews, each group under its own heading. */
async function loadOverlays() {
  const r = await api("GET", "/api/overlays");
  const body = $("overlays-body");
  if (!r.ok) return;
  const rows = (r.data.overlays || []).sort((a, b) => gfxName(a.graphic).localeCompare(gfxName(b.graphic)));
  const sources = rows.filter((o) => !isPreview(o));
  const previews = rows.filter(isPreview);
  const head = (key, n, group) => h("tr", { class: "group-row", "data-group": group },
                                    h("th", { colspan: 4 }, `${t(key)} · ${n}`));
  body.replaceChildren(
    head("gfx.sources", sources.length, "sources"),
    ...(sources.length ? sources.map(overlayRow) : [h("tr", {}, h("td", { colspan: 4, class: "muted" }, t("gfx.no_sources")))]),
    ...(previews.length ? [head("gfx.ours", previews.length, "previews"), ...previews.map(overlayRow)] : []));
}

async function reloadOverlay(o) {
  const r = await api("POST", `/api/overlays/${encodeURIComponent(o.sid)}/reload`);
  if (r.ok) notice("ok", t("gfx.reloaded", { name: gfxName(o.graphic) }), "", { code: "ok" });
  else {
    noticeRefusal(r.data?.error);
  }
  setTimeout(loadOverlays, 1500);
}

// ---- OBS scene switching (GET /api/obs) ----------------------------------------------------------

let lastObs = null;

async function loadObs() {
  const r = await api("GET", "/api/obs");
  if (r.ok) renderObs(r.data);
}

// The state in the operator's words; the server's own sentence (what exactly failed) beneath.
function renderObs(s) {
  if (s) lastObs = s;
  s = lastObs;
  if (!s) return;
  $("obs-card").dataset.state = s.state;
  const url = s.url || "";
  let line = "";
  if (s.config?.error) line = t("obs.config_error");
  else if (s.state === "off") line = t("obs.off");
  else if (s.state === "connecting") line = t("obs.connecting", { url });
  else if (s.state === "connected") line = t("obs.connected", { url, version: s.obs_websocket_version || "5" });
  else if (s.state === "away") line = t("obs.away", { url });
  else if (s.state === "auth_failed") line = t(s.password_set ? "obs.auth_failed" : "obs.no_password");
  $("obs-state").textContent = line;
  const detail = [];
  if (s.config?.error) detail.push(s.config.error);
  else if (s.last_error) detail.push(`OBS: ${s.last_error}`);
  if (s.last_switch) detail.push(t("obs.last_switch", { scene: s.last_switch.scene, time: fmtTime(s.last_switch.at) }));
  $("obs-detail").textContent = detail.join(" · ");
}

async function reloadObs() {
  const r = await api("POST", "/api/obs/reload");
  if (r.ok) {
    notice("ok", t("obs.reloaded"), "", { code: "ok", ms: 1800 });
    renderObs(r.data);
  } else {
    noticeRefusal(r.data?.error);
    loadObs();
  }
}

// ---- previews ------------------------------------------------------------------------------

const scaler = new ResizeObserver((entries) => {
  for (const e of entries) e.target.style.setProperty("--scale", String(e.contentRect.width / 1920));
});

function previewCard(name) {
  const frame = h("iframe", { src: `/overlays/${name}?preview=1&lang=${encodeURIComponent(document.documentElement.lang || "ru")}`,
                              title: gfxName(name), loading: "lazy", tabindex: "-1" });
  const screen = h("div", { class: "preview-screen" }, frame);
  scaler.observe(screen);
  return h("figure", { class: "preview-card", "data-graphic": name }, screen,
           h("figcaption", {}, h("a", { href: `/overlays/${name}`, target: "_blank", rel: "noopener", title: `/overlays/${name}` }, gfxName(name)),
             h("span", { class: "row" },
               h("button", { type: "button", class: "btn btn-small", onclick: () => graphic("show", name) }, t("gfx.show")),
               h("button", { type: "button", class: "btn btn-small", onclick: () => graphic("hide", name) }, t("gfx.hide")))));
}

function renderPreviews() {
  const on = $("previews-on").checked;
  const box = $("previews");
  box.replaceChildren();
  if (!on) return;
  box.append(...PREVIEWS.map(previewCard));
  if (MORE_PREVIEWS.length) {
    const more = h("div", { class: "previews" });
    const det = h("details", { class: "more-previews", id: "more-previews" },
                  h("summary", {}, t("gfx.more_previews", { n: MORE_PREVIEWS.length })), more);
    det.addEventListener("toggle", () => {
      more.replaceChildren(...(det.open ? MORE_PREVIEWS.map(previewCard) : []));
      if (det.open && lastPayload) renderOnAir();
    });
    box.append(det);
  }
  if (MISSING.length) box.append(h("p", { class: "muted missing-previews" }, t("gfx.missing", { names: MISSING.join(", ") })));
  if (lastPayload) renderOnAir();
  setTimeout(loadOverlays, 2500); // the previews say hello once loaded: list them too
}

// ---- wiring --------------------------------------------------------------------------------

$("host-name").value = store.get("host");
$("sponsor-name").value = store.get("sponsor");
for (const [id, key] of [["host-name", "host"], ["sponsor-name", "sponsor"]]) {
  $(id).addEventListener("input", () => { store.set(key, $(id).value); renderPresets(); });
}
$("free-form").addEventListener("submit", (e) => {
  e.preventDefault();
  takeLowerThird($("free-title").value.trim(), $("free-subtitle").value.trim());
});
$("lt-clear").addEventListener("click", () => graphic("hide", LOWER_THIRD));
for (const id of ["free-title", "free-subtitle"]) $(id).addEventListener("input", renderFitWarning);
$("overlays-refresh").addEventListener("click", loadOverlays);
$("obs-reload").addEventListener("click", reloadObs);
$("previews-on").checked = store.get("previews", "1") === "1";
$("previews-on").addEventListener("change", () => { store.set("previews", $("previews-on").checked ? "1" : "0"); renderPreviews(); });

conn.on("state", (state, prev) => {
  if (!prev || !state || prev.id !== state.id || prev.rev === undefined
      || prev.central?.team !== state.central?.team) renderPresets();
});
conn.on("graphics", (payload) => renderOnAir(payload));
renderPresets();
renderPreviews();
loadOverlays();
mountShowDesk(graphic);  // slate, ticker, credits, bug (static/control/showdesk.js)
loadObs();
setInterval(() => { if (!document.hidden) { loadOverlays(); loadObs(); } }, OVERLAYS_POLL_MS);
onLangChange(() => { renderPresets(); renderOnAir(); renderPreviews(); loadOverlays(); renderObs(); renderFitWarning(); });
