// The graphics desk: lower-third presets (the team's players, host, sponsor) and free text,
// take/clear; what is on air; live previews of the overlays; the overlays connected now,
// each with a reload button. Graphics go through POST /api/graphics — one path, recorded.

import { t, onLangChange } from "./i18n.js";
import { pageConfig, h, api, apiData, notice, noticeRefusal, wireLanguage, dropPointerFocus, fmtTime } from "./common.js";
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

// ---- taking graphics to air ----------------------------------------------------------------

async function graphic(action, name, data = {}) {
  const onAir = await apiData("POST", "/api/graphics", { action, graphic: name, data });
  if (!onAir) return null;
  notice("ok", t(action === "show" ? "gfx.shown" : "gfx.hidden", { name }), "", { code: "ok", ms: 1800 });
  renderOnAir(onAir);
  return onAir;
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

function presets(state) {
  const list = [];
  const team = state?.experts;
  if (team?.name) list.push({ title: team.name, subtitle: t("gfx.sub.team") });
  for (const p of team?.players || []) {
    list.push({ title: p, subtitle: p === team.captain ? t("gfx.sub.captain", { team: team.name })
                                                       : t("gfx.sub.player", { team: team.name }) });
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
  }, h("strong", {}, p.title), h("small", {}, p.subtitle))));
  if (!list.length) box.append(h("p", { class: "muted" }, t("gfx.no_presets")));
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
                  h("strong", {}, name), words ? h("span", {}, ` ${words}`) : null,
                  h("small", { class: "muted" }, ` · ${until}`),
                  h("button", { type: "button", class: "btn btn-danger btn-small", onclick: () => graphic("hide", name) }, t("gfx.clear_one"))));
  }
  for (const name of p.hidden || []) {
    list.append(h("li", { class: "on-air-item hidden-item", "data-graphic": name },
                  h("strong", {}, name), h("small", { class: "muted" }, ` · ${t("gfx.is_hidden")}`),
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

async function loadOverlays() {
  const r = await api("GET", "/api/overlays");
  const body = $("overlays-body");
  if (!r.ok) return;
  const rows = (r.data.overlays || []).sort((a, b) => a.graphic.localeCompare(b.graphic));
  body.replaceChildren(...rows.map((o) => h("tr", { "data-sid": o.sid },
    h("td", {}, o.graphic || "?", /[?&]preview=1/.test(o.page) ? h("small", { class: "muted" }, ` (${t("gfx.preview_tag")})`) : null,
      // long-polling (a proxy or firewall that blocks websockets): every change reaches it later
      o.transport === "polling" ? h("small", { class: "polling-tag", title: t("gfx.polling_hint") }, ` (${t("gfx.polling_tag")})`) : null),
    h("td", { class: "page-cell" }, o.page),
    h("td", {}, fmtTime(o.since)),
    h("td", {}, h("button", { type: "button", class: "btn btn-small", onclick: () => reloadOverlay(o) }, t("gfx.reload"))))));
  if (!rows.length) body.append(h("tr", {}, h("td", { colspan: 4, class: "muted" }, t("gfx.no_overlays"))));
}

async function reloadOverlay(o) {
  const r = await api("POST", `/api/overlays/${encodeURIComponent(o.sid)}/reload`);
  if (r.ok) notice("ok", t("gfx.reloaded", { name: o.graphic }), "", { code: "ok" });
  else {
    noticeRefusal(r.data?.error);
  }
  setTimeout(loadOverlays, 1500);
}

// ---- previews ------------------------------------------------------------------------------

const scaler = new ResizeObserver((entries) => {
  for (const e of entries) e.target.style.setProperty("--scale", String(e.contentRect.width / 1920));
});

function previewCard(name) {
  const frame = h("iframe", { src: `/overlays/${name}?preview=1&lang=${encodeURIComponent(document.documentElement.lang || "ru")}`,
                              title: name, loading: "lazy", tabindex: "-1" });
  const screen = h("div", { class: "preview-screen" }, frame);
  scaler.observe(screen);
  return h("figure", { class: "preview-card", "data-graphic": name }, screen,
           h("figcaption", {}, h("a", { href: `/overlays/${name}`, target: "_blank", rel: "noopener" }, name),
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
$("overlays-refresh").addEventListener("click", loadOverlays);
$("previews-on").checked = store.get("previews", "1") === "1";
$("previews-on").addEventListener("change", () => { store.set("previews", $("previews-on").checked ? "1" : "0"); renderPreviews(); });

conn.on("state", (state, prev) => {
  if (!prev || !state || prev.id !== state.id || prev.rev === undefined) renderPresets();
});
conn.on("graphics", (payload) => renderOnAir(payload));
renderPresets();
renderPreviews();
loadOverlays();
mountShowDesk(graphic);  // slate, ticker, credits, bug (static/control/showdesk.js)
setInterval(() => { if (!document.hidden) loadOverlays(); }, OVERLAYS_POLL_MS);
onLangChange(() => { renderPresets(); renderOnAir(); renderPreviews(); loadOverlays(); });
