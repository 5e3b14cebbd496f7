// The rundown desk: a prepared show taken live. Every press is one POST /api/rundowns/<id>/actions
// with the rev it was based on, as the live panel's PressOrder says (connection.js): the same key
// that changes the air (Space, F5, Esc, C, T) again within `double_ms` goes with its first press's rev, so the server refuses it (409) and a
// doubled Space never takes a graphic in and out again; a stale press gets 409 too; edits go
// through /items with expected_rev too. Every open panel gets each change on the /control socket
// (`rundown`), so two desks editing one rundown see each other.

import { t, onLangChange, currentLang } from "./i18n.js";
import { pageConfig, h, api, notice, noticeRefusal, refusalText, dropStaleNotices, wireLanguage, dropPointerFocus, bdi,
  keyedChildren, signature } from "./common.js";
import { dataForm } from "./dataform.js";
import { setText } from "../lib/dom.js";
import { ControlConnection, PressOrder, pressedAt } from "./connection.js";
import { actionButtons, loadLibrary, schemaForm } from "./ograf.js";

const cfg = pageConfig();
wireLanguage(cfg.lang);
dropPointerFocus();
const conn = new ControlConnection({ settleMs: cfg.settle_ms ?? 250 });
const $ = (id) => document.getElementById(id);
const SAVED = "chgk.panel.rundown";

let list = [];        // [{id, name, rev, locked, items}]
let doc = null;       // the shown rundown (GET /api/rundowns/<id>)
let editing = null;   // the id of the item in the editor, null: a new item
let queue = Promise.resolve();
let library = [];     // uploaded OGraf graphics (GET /api/ograf): items name them "ograf:<id>"
const order = new PressOrder(cfg.double_ms ?? 400);
const MOVES = new Set(["next", "previous", "focus"]);
let moves = 0;
// the desk's buttons, for naming a press said once
const ACTION_WORDS = { go: "rd.go", next: "rd.next", previous: "rd.prev", update: "rd.update", cue: "rd.cue",
                       take_cued: "rd.take_cued", all_out: "rd.all_out" };

// ---- talking to the server ---------------------------------------------------------------------

function accept(next) {
  if (!next || !next.id) return;
  if (doc && next.id === doc.id && next.rev < doc.rev) return;
  if (doc && next.id !== doc.id) return;
  const moved = doc && next.rev > doc.rev;
  doc = next;
  conn.clock.hint?.(next.server_now);
  render();
  if (moved) dropStaleNotices(next.rev, "rundownRev");  // a refusal of before a later take leaves
  listCount(next);
}

/** The scenario list says each rundown's item count: kept as the open one changes. */
function listCount(d) {
  const entry = list.find((x) => x.id === d.id);
  const n = (d.segments || []).reduce((sum, seg) => sum + (seg.items || []).length, 0);
  if (!entry || (entry.items === n && entry.name === d.name)) return;
  entry.items = n;
  entry.name = d.name;
  const opt = [...$("rd-select").options].find((o) => o.value === d.id);
  if (opt) opt.textContent = `${d.name} (${n})`;
}

let loading = Promise.resolve(); // the last rundown asked for, until it is shown

function load(id) {
  loading = (async () => {
    const r = await api("GET", `/api/rundowns/${encodeURIComponent(id)}`);
    if (r.ok) {
      doc = null;
      accept(r.data);
      localStorage.setItem(SAVED, id);
    }
  })();
  return loading;
}

async function loadList(select = null) {
  const r = await api("GET", "/api/rundowns");
  if (!r.ok) return;
  list = r.data.rundowns;
  const sel = $("rd-select");
  sel.replaceChildren(...list.map((x) => h("option", { value: x.id }, `${x.name} (${x.items})`)));
  const want = select || doc?.id || localStorage.getItem(SAVED) || list[0]?.id;
  if (want && list.some((x) => x.id === want)) {
    sel.value = want;
    if (!doc || doc.id !== want) await load(want);
  } else render();
}

/** One action, after the ones before it, with the rev PressOrder gives the press (made now, on
 * the rundown on screen now). A doubled press refused by the server is said once, as done once. */
function act(action, extra = {}) {
  if (!doc) return queue;
  const at = pressedAt();
  const seen = { id: doc.id, rev: doc.rev };
  // Moving the focus (↑ ↓, a click) may be repeated at any pace: only what changes the air is
  // guarded against a doubled press.
  const key = MOVES.has(action) ? `${action}#${++moves}` : JSON.stringify([action, extra]);
  return enqueue(async () => {
    if (!doc || doc.id !== seen.id) return;
    const basis = order.expected(key, at, seen);
    if (basis.skip) {
      order.record(key, at, basis, {});
      return;
    }
    const r = await api("POST", `/api/rundowns/${doc.id}/actions`, { action, expected_rev: basis.rev, ...extra });
    order.record(key, at, basis, r.ok ? { state: { rev: r.data?.rev } } : {});
    if (r.ok) accept(r.data);
    else if (basis.double && r.status === 409) {
      const label = ACTION_WORDS[action] ? t(ACTION_WORDS[action]) : action;
      notice("info", t("double.title", { action: label }), t("double.detail"), { ms: 4000, code: "double_press" });
    } else {
      noticeRefusal(r.data?.error);
      if (r.status === 409) await load(doc.id);
    }
  });
}

/** Runs `fn` after everything queued before it; one that fails does not stop the ones after. */
function enqueue(fn) {
  const done = queue.then(fn);
  queue = done.catch(() => null);
  return done;
}

/** An edit, after the actions pressed before it: a focus move still in flight (the double click
 * that opened the item) changes the rev, and the edit must go with the rev it made. */
function edit(method, path, body) {
  return enqueue(async () => {
    if (!doc) return null;
    const r = await api(method, `/api/rundowns/${doc.id}${path}`, { ...(body || {}), expected_rev: doc.rev });
    if (!r.ok) {
      noticeRefusal(r.data?.error);
      if (r.status === 409) await load(doc.id);
      return null;
    }
    if (r.data?.segments) accept(r.data);
    else await load(doc.id);
    return r.data;
  });
}

conn.socket.on("rundown", (next) => {
  if (doc && next.id === doc.id) accept(next);
  else if (!list.some((x) => x.id === next.id)) loadList();
});
conn.socket.on("rundown_deleted", () => loadList());
conn.socket.on("rundown_done", (d) => {
  if (doc && d.rundown === doc.id) notice("info", t("rd.done", { label: d.label }), "", { code: "rundown_done", ms: 2500 });
});
conn.on("status", (s) => { if (s === "connected" && doc) load(doc.id); });

// ---- rendering ------------------------------------------------------------------------------------

function items() {
  return doc ? doc.segments.flatMap((s) => s.items) : [];
}

function onAirOf(itemId) {
  return Object.entries(doc?.program || {}).find(([, p]) => p.item === itemId) || null;
}

/** The stacking levels bottom to top, as the server keeps them (overlay/graphics/show.py STACK). */
function levels() {
  return doc?.stack_levels || [];
}

function stackText(level) {
  return level ? t(`rd.stack.${level}`) : t("rd.stack.default");
}

/** A graphic's own layer and level (overlay/graphics/show.py LAYERS, STACK); uploaded ones: main. */
function defaultsOf(graphic) {
  return cfg.defaults?.[graphic] || { layer: "main", stack: "game" };
}

/** The editor's level choice: the graphic's own (named: «как у графики: фон (внизу)»), or one of
 * the server's levels. */
function fillStackSelect() {
  const sel = $("f-stack");
  const keep = sel.value;
  const own = defaultsOf($("f-graphic").value).stack;
  sel.replaceChildren(h("option", { value: "" }, own ? t("rd.stack.default_is", { level: stackText(own) }) : stackText("")),
    ...levels().map((l) => h("option", { value: l }, stackText(l))));
  sel.value = levels().includes(keep) ? keep : "";
}

function outText(out) {
  if (out === "manual") return t("rd.out.manual");
  if (out === "none") return t("rd.out.none");
  return `${(out / 1000).toFixed(out % 1000 ? 1 : 0)} ${t("rd.sec")}`;
}

/** A graphic's name in the panel's words (`gname.<name>`), an uploaded OGraf graphic's by its
 * manifest's name, the name itself when it has none. */
function gfxName(name) {
  const uploaded = String(name).startsWith("ograf:") && library.find((x) => `ograf:${x.id}` === name);
  if (uploaded) return `${uploaded.name} (OGraf)`;
  return t(`gname.${name}`) !== `gname.${name}` ? t(`gname.${name}`) : name;
}

/** An editing button of the list (a row's, a segment's): disabled while the rundown is locked,
 * its tooltip then saying why. */
function editButton(label, title, fn, { stop = false } = {}) {
  const locked = !!doc?.locked;
  return h("button", { type: "button", class: "btn btn-small", title: locked ? `${title} — ${t("err.locked")}` : title,
                       "aria-label": title, disabled: locked,
                       onclick: (e) => { if (stop) e.stopPropagation(); fn(); } }, label);
}

function rowButtons(item) {
  const b = (label, title, fn) => editButton(label, title, fn, { stop: true });
  const seg = doc.segments.find((s) => s.items.includes(item));
  const index = seg.items.indexOf(item);
  return h("span", { class: "rd-row-btns" },
    b("▲", t("rd.up"), () => edit("POST", `/items/${item.id}/move`, { index: Math.max(0, index - 1) })),
    b("▼", t("rd.down"), () => edit("POST", `/items/${item.id}/move`, { index: index + 1 })),
    b("2×", t("rd.duplicate"), () => edit("POST", `/items/${item.id}/duplicate`)),
    b("✕", t("rd.delete"), () => edit("DELETE", `/items/${item.id}`)));
}

function segmentHeader(seg, i) {
  const b = (label, title, fn) => editButton(label, title, fn);
  const sig = signature([seg.name, i, !!doc.locked, currentLang()]);
  return h("div", { class: "rd-seg", "data-segment": seg.id, dataset: { key: `s:${seg.id}`, sig } },
    h("span", { class: "rd-seg-name" }, seg.name),
    b("✎", t("rd.rename"), () => {
      const name = prompt(t("rd.rename"), seg.name);
      if (name) edit("PATCH", `/segments/${seg.id}`, { name });
    }),
    b("▲", t("rd.up"), () => edit("POST", `/segments/${seg.id}/move`, { index: Math.max(0, i - 1) })),
    b("▼", t("rd.down"), () => edit("POST", `/segments/${seg.id}/move`, { index: i + 1 })),
    b("2×", t("rd.duplicate"), () => edit("POST", `/segments/${seg.id}/duplicate`)));
}

function render() {
  document.body.classList.toggle("rd-locked", !!doc?.locked);
  $("rd-rev").textContent = doc ? t("rd.rev", { n: doc.rev }) : "";
  document.body.dataset.rundownRev = doc ? String(doc.rev) : "";
  const lock = $("rd-lock");
  lock.textContent = t(doc?.locked ? "rd.unlock" : "rd.lock");
  lock.setAttribute("aria-pressed", doc?.locked ? "true" : "false");
  $("rd-export").href = doc ? `/api/rundowns/${doc.id}/export` : "#";
  const box = $("rd-list");
  $("rd-empty").hidden = !doc || items().length > 0;
  if (!doc) {
    box.replaceChildren();
    renderProgram();
    return;
  }
  const rows = [];
  doc.segments.forEach((seg, i) => {
    rows.push(segmentHeader(seg, i));
    for (const item of seg.items) {
      const air = onAirOf(item.id);
      const row = h("div", {
        class: `rd-item${item.id === doc.focus ? " focused" : ""}${air ? " on-air" : ""}${item.cued ? " cued" : ""}`,
        role: "option", "aria-selected": item.id === doc.focus ? "true" : "false",
        // the focus is a class, not part of the signature: a click's own re-render keeps the
        // row's children, so the second click of a double click lands where the first did
        dataset: { item: item.id, label: item.label, key: `i:${item.id}`,
                   sig: signature([item, seg.items.indexOf(item), air?.[1].expires_at ?? !!air, !!doc.locked, currentLang(),
                                   library.length]) },
      },
        h("span", { class: "rd-cued", title: t("rd.cued") }, "◆"),
        h("span", { class: "rd-label" }, item.label),
        // the layer is the operator's own identifier (main, straps): shown as such
        h("span", { class: "rd-meta" }, `${gfxName(item.graphic)} · `, h("span", { class: "mono", title: t("rd.f.layer") }, item.layer),
          item.stack ? ` · ${stackText(item.stack)}` : ""),
        h("span", { class: "rd-meta" }, outText(item.out)),
        h("span", { class: "rd-count", dataset: { ends: air?.[1].expires_at ?? "" } }),
        rowButtons(item));
      rows.push(row);
    }
  });
  keyedChildren(box, rows);
  box.querySelector(".rd-item.focused")?.scrollIntoView({ block: "nearest" });
  const focused = items().find((i) => i.id === doc.focus);
  actionButtons($("rd-ograf-actions"), focused && doc.ograf?.[focused.graphic],
                (id, payload) => act("custom", { item: focused.id, id, payload }));
  fillStackSelect();
  renderProgram();
  tick();
}

// A row's click focuses it, a double click opens it in the editor; read from the list itself, so
// a row updated between the two clicks still answers with its current item.
function rowOf(e) {
  const row = e.target.closest(".rd-item");
  return row && !e.target.closest("button") ? items().find((i) => i.id === row.dataset.item) : null;
}
$("rd-list").addEventListener("click", (e) => {
  const item = rowOf(e);
  if (item) act("focus", { item: item.id });
});
$("rd-list").addEventListener("dblclick", (e) => {
  const item = rowOf(e);
  if (item) openEditor(item);
});

/** What is on air, top of the picture first (the order the output draws them in). */
function renderProgram() {
  const ul = $("rd-program");
  const rank = (p) => levels().indexOf(p.stack);
  // this rundown's items, and what else is on the output (an OGraf controller's take, the graphics
  // page's, another rundown's), marked as not from this rundown
  const entries = [...Object.entries(doc?.program || {}),
    ...Object.entries(doc?.elsewhere || {}).map(([layer, p]) => [layer, { ...p, elsewhere: true }])]
    .sort(([, a], [, b]) => rank(b) - rank(a));
  ul.replaceChildren(...(entries.length ? entries.map(([layer, p]) => h("li", { dataset: { layer, stack: p.stack || "", elsewhere: p.elsewhere ? "1" : "" } },
    h("span", { class: "rd-layer mono", title: t("rd.f.layer") }, layer),
    h("span", {}, p.elsewhere ? gfxName(p.graphic) : p.label, p.elsewhere ? h("small", { class: "rd-elsewhere" }, ` · ${t("rd.elsewhere")}`) : ""),
    h("span", { class: "rd-stack" }, stackText(p.stack)),
    h("span", { class: "rd-count", dataset: { ends: p.expires_at ?? "" } }))) : [h("li", {}, t("rd.nothing_on_air"))]));
}

/** Auto-out countdowns, on the item and in the program list, in server time. */
function tick() {
  const now = conn.clock.now ? conn.clock.now() : Date.now();
  for (const el of document.querySelectorAll(".rd-count")) {
    const ends = Number(el.dataset.ends);
    // five times a second: written (and laid out) only when the second changes
    setText(el, el.dataset.ends && Number.isFinite(ends) ? `${Math.max(0, Math.ceil((ends - now) / 1000))} ${t("rd.sec")}` : "");
  }
}
setInterval(tick, 200);

/** An uploaded graphic that refused a call in the program monitor (it throws, or needs a newer
 * browser) is said once: the monitor is /overlays/show, so OBS may be failing the same way.
 * One that left its frame (it navigated it: static/ograf/host.js removed the frame) is hostile:
 * said once, and its item taken off air (issue 37) — whenever this desk sees it in the program: the
 * monitor hears of a take before the desk's rundown does, so the frame may leave first. */
const toldFailures = new Set();
const takingOut = new Set(); // hostile items whose `out` is on its way
function graphicFailures() {
  let frames = [];
  try {
    frames = [...($("rd-program-frame").contentDocument?.querySelectorAll(".ograf-frame[data-error]") || [])];
  } catch (_e) {
    return;
  }
  let stale = false;
  for (const f of frames) {
    const id = f.dataset.item;
    const onAir = Object.values(doc?.program || {}).some((p) => p.item === id);
    if (f.dataset.hostile && !takingOut.has(id) && onAir) {
      takingOut.add(id);
      act("out", { item: id }).finally(() => takingOut.delete(id));
    }
    stale ||= !!f.dataset.hostile && !onAir;
    const key = `${id}@${f.dataset.error}`;
    if (toldFailures.has(key)) continue;
    toldFailures.add(key);
    const item = items().find((i) => i.id === id);
    if (f.dataset.hostile) {
      const told = notice("error", t("og.hostile", { label: item?.label || f.dataset.graphic }), t("og.hostile_why"),
                          { code: "ograf_hostile" });
      // said of the graphic, not of a press: taking it out moves the rundown on, and stays said
      if (told) delete told.dataset.rundownRev;
      continue;
    }
    notice("error", t("og.failed", { label: item?.label || f.dataset.graphic }), f.dataset.error, { code: "ograf_failed" });
  }
  // the monitor shows a hostile item on air that this desk's rundown does not: ask the server,
  // not the next event, what is on air (a desk that missed an update would never take it out)
  if (stale && doc) load(doc.id);
}
setInterval(graphicFailures, 1000);

// ---- the editor -------------------------------------------------------------------------------------

let readData = () => ({});  // the editor's data form (dataform.js), for the graphic chosen
let layerFollows = true;    // the form's layer is still the chosen graphic's own

/** The data form for the chosen graphic, filled with `data` (fields of another graphic left out):
 * ours from their declared schema (dataform.js), an uploaded one from its manifest's (ograf.js). */
function drawDataForm(data) {
  const g = $("f-graphic").value;
  const uploaded = g.startsWith("ograf:") && library.find((x) => `ograf:${x.id}` === g);
  readData = uploaded ? schemaForm($("f-data"), uploaded.schema, data) : dataForm($("f-data"), cfg.schemas?.[g], data);
}

function graphicOptions() {
  const keep = $("f-graphic").value;
  const ours = (cfg.graphics || []).map((g) => h("option", { value: g }, gfxName(g)));
  const theirs = library.map((x) => h("option", { value: `ograf:${x.id}` }, `${x.name} (OGraf)`));
  $("f-graphic").replaceChildren(...ours, ...(theirs.length ? [h("optgroup", { label: t("og.uploaded") }, ...theirs)] : []));
  if (keep) $("f-graphic").value = keep;
}

function openEditor(item) {
  editing = item ? item.id : null;
  $("rd-ed-title").textContent = item ? t("rd.editing", { label: item.label }) : t("rd.add");
  const seg = item ? doc.segments.find((s) => s.items.includes(item)) : doc?.segments.at(-1);
  $("f-segment").value = seg?.name || "";
  $("f-label").value = item?.label || "";
  $("f-graphic").value = item?.graphic || "lower-third";
  $("f-layer").value = item?.layer || defaultsOf($("f-graphic").value).layer;
  // the layer follows the graphic chosen until the operator names one of their own
  layerFollows = !item || item.layer === defaultsOf(item.graphic).layer;
  setOut(item ? item.out : "manual");
  fillStackSelect();
  $("f-stack").value = item?.stack || "";
  drawDataForm(item ? item.data : {});
  if (item) $("f-label").focus();
}

$("rd-form").addEventListener("submit", async (e) => {
  e.preventDefault();
  let data;
  try { data = readData(); } catch (err) { // an uploaded graphic's JSON field that is not JSON
    notice("error", t("rd.bad_data"), err.message, { code: "local" });
    return;
  }
  const out = outValue();
  const body = { segment: $("f-segment").value.trim() || null, label: $("f-label").value.trim() || null,
                 graphic: $("f-graphic").value, layer: $("f-layer").value.trim(), out,
                 stack: $("f-stack").value || null, data };
  const done = editing ? await edit("PATCH", `/items/${editing}`, body) : await edit("POST", "/items", body);
  if (done) {
    notice("ok", t("rd.saved"), "", { code: "ok", ms: 1500 });
    document.activeElement?.blur();
  }
});
$("f-new").addEventListener("click", () => openEditor(null));
graphicOptions();
// another graphic: its own form, keeping what the fields of the same name held
$("f-layer").addEventListener("input", () => { layerFollows = false; });
$("f-graphic").addEventListener("change", () => {
  // «Логотип в углу» goes to the logo's layer, not `main` where it would replace the question card
  if (layerFollows) $("f-layer").value = defaultsOf($("f-graphic").value).layer;
  fillStackSelect();
  let kept = {};
  try { kept = readData(); } catch (_e) { /* a JSON field that is not JSON: start afresh */ }
  drawDataForm(kept);
});
// the preview page's address for OBS, with its key: copied with one press
$("rd-preview-copy").addEventListener("click", async () => {
  const field = $("rd-preview-address");
  let copied = false;
  try {
    await navigator.clipboard.writeText(field.value);
    copied = true;
  } catch (_e) { // not a secure context (the panel over plain HTTP on the LAN): the old way
    field.select();
    copied = document.execCommand("copy");
  }
  if (copied) notice("ok", t("rd.preview_copied"), "", { code: "copied", ms: 2000 });
  else {
    field.select();
    notice("info", t("rd.preview_copy_by_hand"), "", { code: "copy_by_hand" });
  }
});

loadLibrary().then((found) => {
  library = found;
  render();  // the rows name uploaded graphics by their names now
  graphicOptions();
  drawDataForm(items().find((i) => i.id === editing)?.data || {});
});

// How an item leaves: by hand, by itself (its own animation), or after a number of seconds.
function setOut(out) {
  const timed = typeof out === "number";
  $("f-out").value = timed ? "timed" : out === "none" ? "none" : "manual";
  $("f-out-s").value = timed ? String(out / 1000) : "";
  $("f-out-s").disabled = !timed;
}

function outValue() {
  const mode = $("f-out").value;
  if (mode !== "timed") return mode;
  const s = Number($("f-out-s").value.replace(",", "."));
  return Number.isFinite(s) ? Math.round(s * 1000) : $("f-out-s").value;
}

$("f-out").addEventListener("change", () => {
  $("f-out-s").disabled = $("f-out").value !== "timed";
  if ($("f-out").value === "timed" && !$("f-out-s").value) $("f-out-s").value = "8";
});

/** A refused CSV file: where (row, column) and why, in the panel's words (refusalText). */
function csvRefusal(err) {
  const { title, detail, dev } = refusalText(err);
  const where = err.row ? t("rd.row_col", { row: err.row, column: err.column ?? "—" }) : "";
  notice("error", err.code === "bad_csv" || !err.code ? t("err.bad_csv") : title, [where, detail].filter(Boolean).join(" "),
         { code: err.code, dev });
}

// ---- the rundown's own controls -------------------------------------------------------------------

$("rd-select").addEventListener("change", (e) => load(e.target.value));
$("rd-new").addEventListener("submit", async (e) => {
  e.preventDefault();
  const name = $("rd-new-name").value.trim();
  if (!name) return;
  const r = await api("POST", "/api/rundowns", { name });
  if (!r.ok) return noticeRefusal(r.data?.error);
  $("rd-new-name").value = "";
  doc = null;
  await loadList(r.data.id);
});
$("rd-lock").addEventListener("click", () => act(doc?.locked ? "unlock" : "lock"));
$("rd-import").addEventListener("change", async (e) => {
  const file = e.target.files[0];
  e.target.value = "";
  await loading; // a sheet chosen while the rundown still loads goes into it, not nowhere
  if (!file) return;
  if (!doc) {
    notice("info", t("rd.import_where"), "", { code: "import_where" });
    return;
  }
  const r = await fetch(`/api/rundowns/${doc.id}/import?expected_rev=${doc.rev}`, {
    method: "POST", credentials: "same-origin", body: await file.text(),
    headers: { "Content-Type": "text/csv", "X-CSRF-Token": cfg.csrf || "" } });
  const answer = await r.json().catch(() => null);
  if (!r.ok) {
    const err = answer?.error || { code: `http_${r.status}` };
    csvRefusal(err);
    return;
  }
  notice("ok", t("rd.imported", { n: answer.items }), "", { code: "imported" });
  await loadList(doc.id);
  await load(doc.id);
});

// ---- people: the show's straps, from a spreadsheet ------------------------------------------------

async function loadPeople() {
  const r = await api("GET", "/api/people");
  if (!r.ok) return;
  $("rd-people").replaceChildren(...r.data.people.map((p) => h("button", {
    type: "button", class: "btn btn-small", dataset: { person: p.name },
    onclick: () => {
      openEditor(null);
      $("f-label").value = p.name;
      $("f-graphic").value = "lower-third";
      $("f-layer").value = "straps";
      // a person with a photo gets the photo strap (`style: photo`: two lines and the picture)
      drawDataForm({ title: p.name, ...(p.title ? { subtitle: p.title } : {}),
                     ...(p.photo ? { style: "photo", photo: p.photo } : {}) });
      $("f-label").focus();
    },
  }, bdi(p.name), p.title ? ` · ${p.title}` : "")));
}

$("rd-people-import").addEventListener("change", async (e) => {
  const file = e.target.files[0];
  e.target.value = "";
  if (!file) return;
  const r = await fetch("/api/people/import", { method: "POST", credentials: "same-origin", body: await file.text(),
    headers: { "Content-Type": "text/csv", "X-CSRF-Token": cfg.csrf || "" } });
  const answer = await r.json().catch(() => null);
  if (!r.ok) {
    const err = answer?.error || { code: `http_${r.status}` };
    csvRefusal(err);
    return;
  }
  notice("ok", t("rd.people.imported", { n: answer.people.length }), "", { code: "imported" });
  loadPeople();
});

// ---- keys and buttons ---------------------------------------------------------------------------------

const KEYS = {
  ArrowUp: () => act("previous"), ArrowDown: () => act("next"), " ": () => act("go"),
  Enter: () => { const item = items().find((i) => i.id === doc?.focus); if (item) openEditor(item); },
  F5: () => act("update"), Escape: () => act("all_out"), c: () => act("cue"), t: () => act("take_cued"),
};
document.addEventListener("keydown", (e) => {
  if (e.target.closest?.("input, textarea, select, [contenteditable]") || e.ctrlKey || e.metaKey || e.altKey) return;
  const fn = KEYS[e.key.length === 1 ? e.key.toLowerCase() : e.key];
  if (!fn || !doc) return;
  e.preventDefault();
  if (!e.repeat) fn();
});
$("rd-prev").addEventListener("click", KEYS.ArrowUp);
$("rd-next").addEventListener("click", KEYS.ArrowDown);
$("rd-go").addEventListener("click", KEYS[" "]);
$("rd-edit").addEventListener("click", KEYS.Enter);
$("rd-update").addEventListener("click", KEYS.F5);
$("rd-cue").addEventListener("click", KEYS.c);
$("rd-take-cued").addEventListener("click", KEYS.t);
$("rd-all-out").addEventListener("click", KEYS.Escape);

onLangChange(render);
loadList();
loadPeople();
openEditor(null);
