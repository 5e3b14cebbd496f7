// The media library: upload pictures (drag and drop or the file picker; POST /api/media), see
// them as thumbnails, take one to air as the bug, replace one's content under the same id
// (PUT: the graphics that show it switch to the new picture by themselves), delete one (refused
// with what uses it while something does).

import { t, onLangChange } from "./i18n.js";
import { pageConfig, h, api, apiData, apiHeaders, request, notice, refusalText, wireLanguage, dropPointerFocus } from "./common.js";
import { ControlConnection } from "./connection.js";
import "./ograflib.js";  // the «Графика OGraf» section: the graphics library beside the pictures

const cfg = pageConfig();
wireLanguage(cfg.lang);
dropPointerFocus();
new ControlConnection({ settleMs: cfg.settle_ms ?? 250 });  // the connection dot and banner
const $ = (id) => document.getElementById(id);

let items = [];
let replacing = null; // the media id the replace picker is for

function send(method, path, file) {
  const body = new FormData();
  body.append("file", file, file.name);
  return request(path, { method, body, headers: apiHeaders(method, null) });
}

function result(kind, title, detail = "") {
  $("media-result").replaceChildren(h("p", { class: `media-${kind}`, "data-kind": kind }, h("strong", {}, title),
    detail ? h("span", {}, ` ${detail}`) : null));
}

async function uploadFiles(files) {
  for (const file of files) {
    const r = await send("POST", "/api/media", file);
    if (r.ok) {
      result("ok", t("media.uploaded", { name: file.name, id: r.data.id }));
      notice("ok", t("media.uploaded", { name: file.name, id: r.data.id }), "", { code: "ok", ms: 2500 });
    } else {
      const { title, detail, dev } = refusalText(r.data?.error);
      result("error", `${file.name}: ${title}`, detail);
      notice("error", title, detail, { code: r.data?.error?.code, dev });
    }
  }
  await load();
}

async function replace(id, file) {
  const r = await send("PUT", `/api/media/${id}`, file);
  if (r.ok) {
    result("ok", t("media.replaced", { name: file.name, id }));
    notice("ok", t("media.replaced", { name: file.name, id }), "", { code: "ok", ms: 2500 });
  } else {
    const { title, detail, dev } = refusalText(r.data?.error);
    result("error", `${file.name}: ${title}`, detail);
    notice("error", title, detail, { code: r.data?.error?.code, dev });
  }
  await load();
}

/** One use of a picture in the panel's words (`media.use.<kind>`), graphic names as words too. */
function useText(use) {
  const key = `media.use.${use.kind}`;
  const graphic = use.graphic ? (t(`gname.${use.graphic}`) !== `gname.${use.graphic}` ? t(`gname.${use.graphic}`) : use.graphic) : "";
  return t(key) !== key ? t(key, { ...use, graphic }) : use.text || "";
}

async function remove(item) {
  const r = await api("DELETE", `/api/media/${item.id}`);
  if (r.ok) {
    notice("ok", t("media.deleted", { id: item.id }), "", { code: "ok", ms: 2000 });
  } else if (r.status === 409) {
    const uses = r.data?.error?.params?.uses || [];
    const used = uses.map(useText).join("; ");
    result("error", t("media.in_use", { id: item.id }), used);
    notice("error", t("media.in_use", { id: item.id }), used, { code: "media_in_use", dev: r.data?.error?.message });
  } else {
    const { title, detail, dev } = refusalText(r.data?.error);
    notice("error", title, detail, { code: r.data?.error?.code, dev });
  }
  await load();
}

/** The picture as the corner logo: said in the page's result line (replacing an earlier refusal
 * there) and as a notice. */
async function takeAsBug(item) {
  const r = await api("POST", "/api/graphics", { action: "show", graphic: "bug", data: { media: item.id } });
  if (r.ok) {
    const text = t("media.bug_on_air", { id: item.id });
    result("ok", text);
    notice("ok", text, "", { code: "ok", ms: 2500 });
  } else {
    const { title, detail, dev } = refusalText(r.data?.error);
    result("error", title, detail);
    notice("error", title, detail, { code: r.data?.error?.code, dev });
  }
}

function size(bytes) {
  return bytes >= 1048576 ? t("media.size.mb", { n: (bytes / 1048576).toFixed(1) })
    : t("media.size.kb", { n: Math.max(1, Math.round(bytes / 1024)) });
}

function render() {
  const grid = $("media-grid");
  if (!items.length) {
    grid.replaceChildren(h("li", { class: "media-empty" }, t("media.empty")));
    return;
  }
  grid.replaceChildren(...items.map((m) => h("li", { class: "media-card", "data-id": m.id },
    h("div", { class: "media-thumb" }, h("img", { src: m.thumb, alt: m.name || m.id, loading: "lazy" })),
    h("div", { class: "media-meta" },
      h("strong", { class: "media-id" }, m.id), " ",
      h("span", { class: "media-name" }, m.name || ""),
      h("div", { class: "hint" }, `${m.type.replace("image/", "").toUpperCase()} · ${m.width}×${m.height} · ${size(m.bytes)}`)),
    h("div", { class: "row" },
      h("button", { type: "button", class: "btn btn-primary", "data-action": "bug", onclick: () => takeAsBug(m) }, t("media.as_bug")),
      h("button", { type: "button", class: "btn", "data-action": "replace", onclick: () => {
        replacing = m.id;
        $("media-replace-file").click();
      } }, t("media.replace")),
      h("button", { type: "button", class: "btn btn-danger", "data-action": "delete", onclick: () => remove(m) }, t("media.delete"))))));
}

async function load() {
  const data = await apiData("GET", "/api/media");
  if (!data) return;
  items = data.media || [];
  render();
}

// ---- drag and drop, the pickers ------------------------------------------------------------

const drop = $("media-drop");
for (const ev of ["dragenter", "dragover"]) {
  drop.addEventListener(ev, (e) => {
    e.preventDefault();
    drop.classList.add("over");
  });
}
for (const ev of ["dragleave", "drop"]) drop.addEventListener(ev, () => drop.classList.remove("over"));
drop.addEventListener("drop", (e) => {
  e.preventDefault();
  const files = [...(e.dataTransfer?.files || [])];
  if (files.length) uploadFiles(files);
});
$("media-file").addEventListener("change", (e) => {
  const files = [...e.target.files];
  e.target.value = "";
  if (files.length) uploadFiles(files);
});
$("media-replace-file").addEventListener("change", (e) => {
  const file = e.target.files[0];
  e.target.value = "";
  if (file && replacing) replace(replacing, file);
});
onLangChange(render);
load();
