// The media page's «Графика OGraf» section: upload OGraf packages (a zip of *.ograf.json with their
// files; drag and drop or the picker; POST /api/ograf), see the graphics library as cards with
// their thumbnails, delete one (refused, in words, while a rundown item names it or a layer shows
// it). A refused package is said in the panel's words (refusalText: `err.bad_ograf` and the
// reason's `refusal.ograf_*`), and nothing of it is stored.

import { t, onLangChange } from "./i18n.js";
import { h, api, apiHeaders, request, notice, refusalText } from "./common.js";

const $ = (id) => document.getElementById(id);
let graphics = [];

function result(kind, title, detail = "") {
  $("ograf-result").replaceChildren(h("p", { class: `media-${kind}`, "data-kind": kind }, h("strong", {}, title),
    detail ? h("span", {}, ` ${detail}`) : null));
}

async function upload(file) {
  const body = new FormData();
  body.append("file", file, file.name);
  const r = await request("/api/ograf", { method: "POST", body, headers: apiHeaders("POST", null) });
  if (r.ok) {
    const names = (r.data?.graphics || []).map((g) => `«${g.name}»`).join(", ");
    const text = t("media.ograf.uploaded", { name: file.name, graphics: names });
    result("ok", text);
    notice("ok", text, "", { code: "ok", ms: 2500 });
  } else {
    const error = r.data?.error || { code: r.status === 413 ? "too_large" : `http_${r.status}` };
    const { title, detail, dev } = refusalText(error);
    const where = error.file && !detail.includes(error.file) ? t("media.ograf.in_file", { file: error.file }) : "";
    result("error", `${file.name}: ${title}`, [where, detail].filter(Boolean).join(" "));
    notice("error", title, detail, { code: error.code, dev });
  }
  await load();
}

async function remove(g) {
  const r = await api("DELETE", `/api/ograf/${encodeURIComponent(g.id)}`);
  if (r.ok) {
    const text = t("media.ograf.deleted", { name: g.name });
    result("ok", text);
    notice("ok", text, "", { code: "ok", ms: 2000 });
  } else {
    const { title, detail, dev } = refusalText(r.data?.error);
    // in use: which rundown items and layers, in the panel's words (the API's used_by is English)
    const uses = r.status === 409 ? (await usesOf(g)).join("; ") : detail;
    result("error", `«${g.name}»: ${title}`, uses);
    notice("error", title, uses, { code: r.data?.error?.code, dev });
  }
  await load();
}

/** What names graphic `g` now: rundown items (`ograf:<id>`) and layers on air. */
async function usesOf(g) {
  const name = `ograf:${g.id}`;
  const out = [];
  const list = await api("GET", "/api/rundowns");
  for (const rd of list.ok ? list.data.rundowns : []) {
    const doc = await api("GET", `/api/rundowns/${encodeURIComponent(rd.id)}`);
    for (const seg of doc.ok ? doc.data.segments : []) {
      for (const item of seg.items) {
        if (item.graphic === name) out.push(t("media.use.rundown_item", { rundown: rd.name, item: item.label }));
      }
    }
  }
  const air = await api("GET", "/api/graphics");
  for (const [layer, e] of Object.entries((air.ok && air.data.layers) || {})) {
    if (e.graphic === name) out.push(t("media.use.layer_on_air", { layer, graphic: g.name }));
  }
  return out;
}

function steps(n) {
  return n === -1 ? t("media.ograf.steps_any") : t("media.ograf.steps", { n });
}

function render() {
  const grid = $("ograf-grid");
  if (!graphics.length) {
    grid.replaceChildren(h("li", { class: "ograf-empty" }, t("media.ograf.empty")));
    return;
  }
  grid.replaceChildren(...graphics.map((g) => {
    const thumb = (g.thumbnails || [])[0];
    return h("li", { class: "ograf-card", "data-id": g.id },
      h("div", { class: "media-thumb" }, thumb
        ? h("img", { src: thumb.url, alt: g.name, loading: "lazy" })
        : h("span", { class: "hint" }, t("media.ograf.no_thumb"))),
      h("div", { class: "media-meta" },
        h("strong", { class: "ograf-name" }, g.name), " ",
        h("span", { class: "media-name mono" }, g.id),
        h("div", { class: "hint" }, [g.version ? t("media.ograf.version", { v: g.version }) : "", steps(g.stepCount ?? 1)]
          .filter(Boolean).join(" · "))),
      h("div", { class: "row" },
        h("button", { type: "button", class: "btn btn-danger", "data-action": "delete", onclick: () => remove(g) },
          t("media.delete"))));
  }));
}

async function load() {
  const r = await api("GET", "/api/ograf");
  if (!r.ok) return;
  graphics = r.data.graphics || [];
  render();
}

const drop = $("ograf-drop");
if (drop) {
  for (const ev of ["dragenter", "dragover"]) {
    drop.addEventListener(ev, (e) => {
      e.preventDefault();
      drop.classList.add("over");
    });
  }
  for (const ev of ["dragleave", "drop"]) drop.addEventListener(ev, () => drop.classList.remove("over"));
  drop.addEventListener("drop", async (e) => {
    e.preventDefault();
    for (const file of [...(e.dataTransfer?.files || [])]) await upload(file);
  });
  $("ograf-file").addEventListener("change", async (e) => {
    const files = [...e.target.files];
    e.target.value = "";
    for (const file of files) await upload(file);
  });
  onLangChange(render);
  load();
}
