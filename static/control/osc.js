// The OSC page (docs/OSC.md): where cues go (targets, with the last cues sent and any error),
// what comes in (counters, refusals), the osc.toml editor (checked by the server on PUT: a bad
// file is refused with its place and the running configuration stays), a preset picker that
// writes a target into the text, and a «Проверить» (fire) button per event.

import { t, tn, onLangChange } from "./i18n.js";
import { pageConfig, h, api, notice, refusalText, wireLanguage, dropPointerFocus, fmtTime } from "./common.js";
import { ControlConnection } from "./connection.js";

const cfg = pageConfig();
wireLanguage(cfg.lang);
dropPointerFocus();
new ControlConnection({ doubleMs: cfg.double_ms ?? 400 });  // the connection dot and banner
const $ = (id) => document.getElementById(id);

const POLL_MS = 1500;
const PRESET_PORTS = { companion: 12321, qlab: 53000, atemosc: 3333, generic: 9000 };

let catalogue = null;
let status = null;
let edited = false;         // the editor holds text the server has not seen

// ---- status: targets and inbound, polled ----------------------------------------------------

function fmtArgs(args) {
  return (args || []).map((a) => (typeof a === "string" ? JSON.stringify(a) : String(a))).join(" ");
}

function targetCard(tg) {
  const state = !tg.enabled ? "off" : tg.last_error && (!tg.last_sent_at || tg.last_error_at >= tg.last_sent_at) ? "error" : "ok";
  const head = h("div", { class: "target-head" },
                 h("strong", { class: "target-name" }, tg.name),
                 h("span", { class: "muted" }, `${tg.host}:${tg.port}`),
                 h("span", { class: `badge${state === "error" ? " warn" : state === "ok" ? " on" : " off"}` },
                   t(`osc.target.${state}`)),
                 h("span", { class: "badge" }, tg.origin === "--osc-target" ? t("osc.origin.cli") : t("osc.origin.file")),
                 ...(tg.presets || []).map((p) => h("span", { class: "badge" }, p)));
  const counts = h("p", { class: "target-counts" },
                   t("osc.target.counts", { sent: tg.sent, errors: tg.errors, cues: tg.cues }),
                   tg.last_sent_at ? ` · ${t("osc.target.last_sent", { time: fmtTime(tg.last_sent_at) })}` : "");
  const err = tg.last_error
    ? h("p", { class: "target-error" }, `${t("osc.target.last_error", { time: fmtTime(tg.last_error_at) })}: ${tg.last_error}`) : null;
  const rows = (tg.recent || []).map((m) => h("tr", { class: m.error ? "has-error" : "", "data-event": m.event },
    h("td", {}, fmtTime(m.at)), h("td", {}, m.event || ""), h("td", { class: "mono" }, m.address),
    h("td", { class: "mono" }, fmtArgs(m.args)), h("td", { class: "err-cell" }, m.error || "")));
  const recent = rows.length
    ? h("div", { class: "recent-wrap" }, h("table", { class: "recent" },
        h("thead", {}, h("tr", {}, ...["osc.col.time", "osc.col.event", "osc.col.address", "osc.col.args", "osc.col.error"].map((k) => h("th", {}, t(k))))),
        h("tbody", {}, ...rows)))
    : h("p", { class: "muted" }, t("osc.target.nothing_sent"));
  const replies = (tg.replies || []).length
    ? h("p", { class: "muted" }, `${t("osc.target.replies")}: ${tg.replies.map((r) => `${r.address} ${fmtArgs(r.args)}`).join("; ")}`) : null;
  return h("article", { class: `target target-${state}`, "data-target": tg.name }, head, counts, err, recent, replies);
}

function renderTargets() {
  const box = $("targets");
  const targets = status?.targets || [];
  const surfaces = status?.surfaces || [];
  box.replaceChildren(...targets.map(targetCard));
  if (!targets.length) box.append(h("p", { class: "muted" }, t("osc.no_targets")));
  if (surfaces.length) {
    box.append(h("h3", { class: "sub-h" }, t("osc.surfaces")),
               ...surfaces.map((s) => h("p", { class: "surface", "data-surface": s.address },
                 h("strong", {}, s.address), ` · ${t("osc.target.counts", { sent: s.sent, errors: s.errors, cues: 0 })}`,
                 s.since ? ` · ${t("osc.since", { time: fmtTime(s.since) })}` : "")));
  }
}

function entryList(items, cls) {
  if (!items?.length) return h("p", { class: "muted" }, t("osc.none"));
  return h("ul", { class: `entries ${cls}` }, ...items.map((e) => h("li", {},
    h("span", { class: "muted" }, `${fmtTime(e.at)} · ${e.sender} · `), h("span", { class: "mono" }, e.address),
    e.args ? h("span", { class: "mono" }, ` ${fmtArgs(e.args)}`) : null,
    e.code ? h("strong", { title: e.code }, ` — ${refusalText(e).title}`) : null,
    e.message ? h("span", { class: "mono" }, `: ${e.message}`) : null)));
}

function renderInbound() {
  const box = $("inbound");
  const l = status?.listen;
  box.replaceChildren();
  if (!l) return;
  const where = l.address ? (l.listening ? t("osc.listen.on", { address: l.address }) : t("osc.listen.down", { address: l.address }))
                          : t("osc.listen.off");
  box.append(h("p", { class: `listen-line${l.error ? " target-error" : ""}`, id: "listen-line" }, where, l.error ? ` — ${l.error}` : ""));
  box.append(h("p", { class: "muted" }, t("osc.allow", { list: (l.allow || []).join(", ") || "—" })));
  const counters = h("dl", { class: "counters", id: "osc-counters" });
  const order = ["datagrams", "messages", "accepted", "ignored", "refused"];
  const entries = Object.entries(l.counters || {}).sort(([a], [b]) => (order.indexOf(a) + 1 || 99) - (order.indexOf(b) + 1 || 99));
  for (const [k, v] of entries) {
    counters.append(h("div", { "data-counter": k }, h("dt", {}, t(`osc.counter.${k}`) !== `osc.counter.${k}` ? t(`osc.counter.${k}`) : k), h("dd", {}, String(v))));
  }
  box.append(counters);
  const reasons = Object.entries(l.reasons || {});
  if (reasons.length) {
    box.append(h("p", { class: "reasons" }, `${t("osc.reasons")}: `,
                 ...reasons.map(([k, v]) => h("span", { class: "badge", "data-reason": k }, `${k} ×${v}`))));
  }
  box.append(h("h3", { class: "sub-h" }, t("osc.last_errors")), entryList(l.last_errors, "errors-list"));
  box.append(h("h3", { class: "sub-h" }, t("osc.last_accepted")), entryList(l.last_accepted, "accepted-list"));
}

let lastStatusText = "";
let polling = false;

async function poll() {
  if (polling || document.hidden) return;
  polling = true;
  try {
    const r = await api("GET", "/api/osc/status");
    if (!r.ok) {
      showUnavailable(r.data?.error);
      return;
    }
    $("osc-unavailable").hidden = true;
    $("osc-updated").textContent = t("osc.updated", { time: fmtTime(Date.now()) });
    const text = JSON.stringify(r.data);
    if (text === lastStatusText) return;
    lastStatusText = text;
    status = r.data;
    renderTargets();
    renderInbound();
    renderConfigState(status.config);
  } finally {
    polling = false;
  }
}

function showUnavailable(error) {
  $("osc-unavailable").hidden = false;
  const { title, detail } = refusalText(error);
  $("osc-unavailable-text").textContent = `${title}${detail ? ` — ${detail}` : ""}`;
}

// ---- osc.toml ------------------------------------------------------------------------------

function renderConfigState(config) {
  if (!config) return;
  $("config-path").textContent = `${config.path || ""}${config.exists ? "" : ` (${t("osc.file_missing")})`}`;
  const parts = [];
  if (config.loaded_at) parts.push(t("osc.loaded_at", { time: fmtTime(config.loaded_at) }));
  parts.push(tn("osc.cue_count", config.cues ?? 0));
  if (config.restart_needed) parts.push(t("osc.restart_needed"));
  if (config.error) parts.push(t("osc.file_error", { error: config.error }));
  if (edited) parts.push(t("osc.edited"));
  $("config-state").textContent = parts.join(" · ");
}

async function loadConfig({ force = false } = {}) {
  const r = await api("GET", "/api/osc/config");
  if (!r.ok) {
    showUnavailable(r.data?.error);
    return;
  }
  if (force || !edited) {
    $("config-text").value = r.data.toml || "";
    edited = false;
  }
  renderConfigState(r.data);
}

/** Where the server's message points: a line ("at line 3"), or a place such as
 * `cues.spin[1].args[0]` / `targets.qlab.port` / `listen.allow`, looked up in the text. */
function locate(message, text) {
  const lines = text.split("\n");
  const at = /at line (\d+)/.exec(message);
  if (at) return Number(at[1]);
  const place = /^([A-Za-z_][\w-]*(?:\.[\w-]+|\[\d+\])*)\s*:/.exec(message)?.[1];
  if (!place) return null;
  const steps = place.match(/[\w-]+|\[\d+\]/g) || [];
  let header = null;
  let index = 0;
  let key = null;
  if (steps[0] === "cues" && steps[1]) {
    header = new RegExp(`^\\s*\\[\\[\\s*cues\\.${steps[1]}\\s*\\]\\]`);
    index = steps[2]?.startsWith("[") ? Number(steps[2].slice(1, -1)) : 0;
    key = steps.find((s, i) => i > 2 && !s.startsWith("[")) || null;
  } else if (steps[0] === "targets" && steps[1]) {
    header = new RegExp(`^\\s*\\[\\s*targets\\.${steps[1]}\\s*\\]`);
    key = steps[2] && !steps[2].startsWith("[") ? steps[2] : null;
  } else if (steps[0] === "listen") {
    header = /^\s*\[\s*listen\s*\]/;
    key = steps[1] || null;
  }
  if (!header) return null;
  let seen = -1;
  for (let i = 0; i < lines.length; i++) {
    if (!header.test(lines[i])) continue;
    seen += 1;
    if (seen !== index) continue;
    if (!key) return i + 1;
    for (let j = i + 1; j < lines.length && !/^\s*\[/.test(lines[j]); j++) {
      if (new RegExp(`^\\s*${key}\\s*=`).test(lines[j])) return j + 1;
    }
    return i + 1;
  }
  return null;
}

function selectLine(n) {
  const area = $("config-text");
  const lines = area.value.split("\n");
  const start = lines.slice(0, n - 1).reduce((a, l) => a + l.length + 1, 0);
  area.focus();
  area.setSelectionRange(start, start + (lines[n - 1] || "").length);
  const lineHeight = parseFloat(getComputedStyle(area).lineHeight) || 20;
  area.scrollTop = Math.max(0, (n - 3) * lineHeight);
}

function showConfigError(error) {
  const box = $("config-error");
  // the config file's own diagnostics (a path and a line in the TOML), shown as code under our title
  const { title, dev } = refusalText(error);
  const line = locate(dev, $("config-text").value);
  box.replaceChildren(...[h("strong", {}, title), h("p", { class: "mono", id: "config-error-message" }, dev),
                          h("p", { class: "muted" }, t("osc.kept")),
                          line ? h("button", { type: "button", class: "btn btn-small", id: "config-error-goto",
                                               onclick: () => selectLine(line) }, t("osc.goto", { n: line })) : null].filter(Boolean));
  box.hidden = false;
  box.dataset.code = error?.code || "";
  if (line) selectLine(line);
}

async function save() {
  const text = $("config-text").value;
  $("config-save").disabled = true;
  try {
    const r = await api("PUT", "/api/osc/config", { toml: text });
    if (!r.ok) {
      showConfigError(r.data?.error);
      const { title, dev } = refusalText(r.data?.error);
      notice("error", t("osc.refused"), title, { code: r.data?.error?.code, dev });
      return;
    }
    $("config-error").hidden = true;
    $("config-text").value = r.data.toml ?? text;
    edited = false;
    renderConfigState(r.data);
    notice("ok", t("osc.saved", { n: r.data.cues ?? 0 }), r.data.restart_needed ? t("osc.restart_needed") : "", { code: "saved" });
    lastStatusText = "";
    poll();
  } finally {
    $("config-save").disabled = false;
  }
}

async function reloadFile() {
  const r = await api("POST", "/api/osc/reload");
  if (!r.ok) {
    showConfigError(r.data?.error);
    return;
  }
  $("config-error").hidden = true;
  notice("ok", t("osc.reloaded", { n: r.data.cues ?? 0 }), "", { code: "reloaded" });
  await loadConfig({ force: true });
  lastStatusText = "";
  poll();
}

// ---- presets: a target block written into the text ---------------------------------------------

function tomlValue(v) {
  return typeof v === "number" || typeof v === "boolean" ? String(v) : JSON.stringify(String(v));
}

function renderPresets() {
  const select = $("preset-name");
  const was = select.value;
  const presets = catalogue?.presets || [];
  select.replaceChildren(...presets.map((p) => h("option", { value: p.name }, p.name)));
  if (presets.some((p) => p.name === was)) select.value = was;
  describePreset();
}

function describePreset() {
  const p = (catalogue?.presets || []).find((x) => x.name === $("preset-name").value);
  $("preset-desc").textContent = p ? ours(`osc.presetdesc.${p.name}`, p.description) : "";
}

/** Our words for a key the server's catalogue names, else the server's own (English) words. */
function ours(key, fallback) {
  const text = t(key);
  return text === key ? fallback : text;
}

function onPresetChange() {
  const name = $("preset-name").value;
  if (PRESET_PORTS[name]) $("preset-port").value = PRESET_PORTS[name];
  if (/^(companion|qlab|atemosc|generic)\d*$/.test($("preset-target").value)) $("preset-target").value = name;
  describePreset();
}

function addPresetTarget() {
  const p = (catalogue?.presets || []).find((x) => x.name === $("preset-name").value);
  const name = $("preset-target").value.trim();
  const host = $("preset-host").value.trim();
  const port = Number($("preset-port").value);
  if (!p) return;
  if (!/^[A-Za-z0-9_-]+$/.test(name)) {
    notice("info", t("osc.preset.bad_name"), "", { code: "local" });
    return;
  }
  if (!host || !Number.isInteger(port) || port < 1 || port > 65535) {
    notice("info", t("osc.preset.bad_address"), "", { code: "local" });
    return;
  }
  const area = $("config-text");
  if (new RegExp(`^\\s*\\[\\s*targets\\.${name}\\s*\\]`, "m").test(area.value)) {
    notice("info", t("osc.preset.exists", { name }), "", { code: "local" });
    return;
  }
  const vars = Object.entries(p.vars || {});
  const block = [`[targets.${name}]`, `host = ${tomlValue(host)}`, `port = ${port}`, `presets = [${tomlValue(p.name)}]`,
                 ...(vars.length ? [`vars = { ${vars.map(([k, v]) => `${k} = ${tomlValue(v)}`).join(", ")} }`] : [])];
  area.value = `${area.value.replace(/\s*$/, "")}\n\n${block.join("\n")}\n`;
  edited = true;
  renderConfigState(status?.config);
  notice("info", t("osc.preset.added", { name }), t("osc.preset.save_hint"), { code: "local" });
}

// ---- events: «Проверить» ----------------------------------------------------------------------

function renderEvents() {
  const box = $("events");
  box.replaceChildren();
  for (const ev of catalogue?.events || []) {
    const inputs = ev.fields.map((f) => h("label", { class: "field" }, h("span", { class: "mono" }, `${f.name} (${f.type})`),
      h("input", { "data-field": f.name, "data-type": f.type, type: f.type === "int" || f.type === "float" ? "number" : "text",
                   step: f.type === "float" ? "any" : null, class: "field-input" })));
    const result = h("div", { class: "fire-result", "data-event": ev.name });
    const btn = h("button", { type: "button", class: "btn btn-small fire-btn", "data-event": ev.name }, t("osc.fire"));
    const row = h("div", { class: "event-row", "data-event": ev.name },
                  h("div", { class: "event-name" }, h("strong", { class: "mono" }, ev.name), h("small", { class: "muted" }, ours(`osc.ev.${ev.name}`, ev.summary))),
                  h("div", { class: "event-fields" }, ...inputs), btn, result);
    btn.addEventListener("click", () => fire(ev, row, result));
    box.append(row);
  }
}

async function fire(ev, row, result) {
  const fields = {};
  row.querySelectorAll(".field-input").forEach((input) => {
    const v = input.value.trim();
    if (!v) return;
    fields[input.dataset.field] = input.dataset.type === "int" ? Math.trunc(Number(v))
      : input.dataset.type === "float" ? Number(v) : v;
  });
  const r = await api("POST", "/api/osc/fire", { event: ev.name, fields });
  if (!r.ok) {
    const { title, detail } = refusalText(r.data?.error);
    result.replaceChildren(h("p", { class: "target-error" }, detail ? `${title}: ${detail}` : title));
    return;
  }
  const sent = r.data.sent || [];
  result.replaceChildren(h("p", { class: "ok-line" }, t("osc.fired", { n: sent.length })),
                         ...sent.map((m) => h("p", { class: "mono sent-line" },
                           `${m.target} ← ${m.address} ${fmtArgs(m.args)}${m.delay_ms ? ` (+${m.delay_ms} ms)` : ""}`)));
  setTimeout(() => { lastStatusText = ""; poll(); }, 300);
}

// ---- wiring --------------------------------------------------------------------------------

async function loadCatalogue() {
  const r = await api("GET", "/api/osc/catalogue");
  if (!r.ok) {
    showUnavailable(r.data?.error);
    return;
  }
  catalogue = r.data;
  renderPresets();
  if ((catalogue.presets || []).some((p) => p.name === "companion")) {
    $("preset-name").value = "companion";
    onPresetChange();
  }
  renderEvents();
  $("preset-pick").hidden = !(catalogue.presets || []).length;
}

$("config-text").addEventListener("input", () => {
  edited = true;
  renderConfigState(status?.config);
});
$("config-save").addEventListener("click", save);
$("config-revert").addEventListener("click", () => { $("config-error").hidden = true; loadConfig({ force: true }); });
$("config-reload").addEventListener("click", reloadFile);
$("preset-name").addEventListener("change", onPresetChange);
$("preset-add").addEventListener("click", addPresetTarget);
onLangChange(() => { lastStatusText = ""; renderEvents(); poll(); renderConfigState(status?.config); });

loadCatalogue();
loadConfig();
poll();
setInterval(poll, POLL_MS);
