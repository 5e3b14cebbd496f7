// Question packs: upload a file (POST /api/packs, the raw file as the body, ?filename=), the
// list of imported packs, and one pack to read — tours, questions, answers. Operators only:
// a pack holds unplayed questions. «Заполнить конверты» opens the setup page with the pack.

import { t, onLangChange } from "./i18n.js";
import { pageConfig, h, api, apiData, apiHeaders, request, notice, refusalText, noticeRefusal, wireLanguage, dropPointerFocus, fmtTime } from "./common.js";
import { ControlConnection } from "./connection.js";
import { renderPack } from "./packview.js";

const cfg = pageConfig();
wireLanguage(cfg.lang);
dropPointerFocus();
new ControlConnection({ doubleMs: cfg.double_ms ?? 400 });  // the connection dot and banner
const $ = (id) => document.getElementById(id);

let packs = [];
let shown = null;   // the pack being read, whole

// ---- upload --------------------------------------------------------------------------------

/** The file's bytes as they are: the server detects the encoding (KOI8-R, CP1251, UTF-8). */
function upload(file) {
  return request(`/api/packs?filename=${encodeURIComponent(file.name)}`,
                 { method: "POST", body: file, headers: apiHeaders("POST", "application/octet-stream") });
}

async function onUpload(e) {
  e.preventDefault();
  const file = $("pack-file").files[0];
  const box = $("upload-result");
  if (!file) {
    box.replaceChildren(h("p", {}, t("packs.no_file")));
    return;
  }
  $("pack-upload").disabled = true;
  try {
    const r = await upload(file);
    if (!r.ok) {
      const error = r.data?.error || {};
      const { title, detail, dev } = refusalText(error);
      // the parser's own diagnosis (English) is the developer's: a tooltip, not a line of the page
      box.replaceChildren(...[h("p", { id: "upload-error", "data-code": error.code || "", "data-detail": dev || null,
                                       title: dev || null }, title),
                              h("p", { class: "muted" }, detail),
                              error.line ? h("p", { class: "muted" }, t("packs.at_line", { line: error.line })) : null].filter(Boolean));
      return;
    }
    const p = r.data;
    box.replaceChildren(h("p", { class: "ok", id: "upload-ok", "data-pack": p.id },
                          t(p.existing ? "packs.uploaded_again" : "packs.uploaded",
                            { title: p.title || p.filename, n: p.questions, tours: p.tours.length })));
    notice("ok", t("packs.uploaded_short", { title: p.title || p.filename }), "", { code: "uploaded" });
    $("upload-form").reset();
    await loadPacks();
    await show(p.id);
  } finally {
    $("pack-upload").disabled = false;
  }
}

// ---- the list ------------------------------------------------------------------------------

async function loadPacks() {
  const data = await apiData("GET", "/api/packs");
  if (!data) return;
  packs = data.packs || [];
  renderList();
}

function renderList() {
  const body = $("packs-body");
  body.replaceChildren();
  if (!packs.length) {
    body.append(h("tr", {}, h("td", { colspan: 5, class: "muted" }, t("packs.none"))));
    return;
  }
  for (const p of packs) {
    const tours = p.tours.map((x, i) => x.title || t("packs.tour_n", { n: i + 1 })).join(", ");
    body.append(h("tr", { "data-pack": p.id, class: shown?.id === p.id ? "is-on-air" : "" },
                  h("td", {}, h("strong", {}, p.title || p.filename), h("br"), h("small", { class: "muted" }, `${p.filename} · ${tours}`)),
                  h("td", {}, String(p.questions)),
                  h("td", {}, `${p.format} · ${p.encoding}`),
                  h("td", {}, fmtTime(p.imported_at), h("br"), h("small", { class: "muted" }, new Date(p.imported_at).toLocaleDateString())),
                  h("td", {}, h("div", { class: "pack-actions-cell" },
                    h("button", { type: "button", class: "btn btn-small open-pack", onclick: () => show(p.id) }, t("packs.open")),
                    h("a", { class: "btn btn-small", href: `${cfg.urls?.setup || "/control/setup"}?pack=${encodeURIComponent(p.id)}` }, t("packs.use_short")),
                    h("button", { type: "button", class: "btn btn-small btn-danger", onclick: () => askDelete(p) }, t("packs.delete"))))));
  }
}

function askDelete(p) {
  const box = $("confirm");
  const yes = h("button", { type: "button", class: "btn btn-danger", id: "delete-yes" }, t("packs.delete_yes"));
  const no = h("button", { type: "button", class: "btn", id: "delete-no" }, t("undo.no"));
  yes.addEventListener("click", async () => {
    box.hidden = true;
    const r = await api("DELETE", `/api/packs/${encodeURIComponent(p.id)}`);
    if (!r.ok) {
      noticeRefusal(r.data?.error);
    } else {
      notice("ok", t("packs.deleted", { title: p.title || p.filename }), "", { code: "ok" });
      if (shown?.id === p.id) {
        shown = null;
        $("pack-viewer").hidden = true;
      }
    }
    loadPacks();
  });
  no.addEventListener("click", () => { box.hidden = true; });
  box.replaceChildren(h("p", { class: "confirm-text" }, t("packs.delete_confirm", { title: p.title || p.filename })),
                      h("div", { class: "confirm-actions" }, yes, no));
  box.hidden = false;
  no.focus();
}

// ---- reading one pack ------------------------------------------------------------------------

async function show(id) {
  const data = await apiData("GET", `/api/packs/${encodeURIComponent(id)}`);
  if (!data) return;
  shown = data;
  history.replaceState(null, "", `?pack=${encodeURIComponent(id)}`);
  renderShown();
  renderList();
  $("pack-viewer").scrollIntoView({ block: "start" });
}

function renderShown() {
  $("pack-viewer").hidden = !shown;
  if (!shown) return;
  $("use-pack").href = `${cfg.urls?.setup || "/control/setup"}?pack=${encodeURIComponent(shown.id)}`;
  renderPack($("pack-view"), shown, { answers: $("show-answers").checked });
}

$("upload-form").addEventListener("submit", onUpload);
$("show-answers").addEventListener("change", renderShown);
onLangChange(() => { renderList(); renderShown(); });
loadPacks().then(() => {
  const wanted = new URLSearchParams(location.search).get("pack");
  if (wanted && packs.some((p) => p.id === wanted)) show(wanted);
});
