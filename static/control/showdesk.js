// The graphics desk's show graphics: slate (with its clock), ticker, credits and the bug, each
// a small form that takes its graphic to air through the same POST /api/graphics as the
// lower-third (`graphic(action, name, data)` from graphics.js). The server checks the data and
// says what is wrong in its words.

import { t } from "./i18n.js";
import { h, apiData, notice } from "./common.js";

const $ = (id) => document.getElementById(id);

/** "Роль — Имя" (or "Роль - Имя", "Роль: Имя") → {role, name}; a bare line is a name. */
export function creditLine(line) {
  const m = /^(.+?)\s*(?:—|–|-|:)\s+(.+)$/.exec(line);
  return m ? { role: m[1].trim(), name: m[2].trim() } : line.trim();
}

/** The audience page's QR code on a slate or a bug: the form's checkbox and caption. */
function qrFields(form, data) {
  if (!form.elements.qr.checked) return data;
  const caption = form.elements.qr_caption.value.trim();
  return { ...data, qr: true, ...(caption ? { qr_caption: caption } : {}) };
}

function lines(text) {
  return String(text || "").split("\n").map((s) => s.trim()).filter(Boolean);
}

export function mountShowDesk(graphic) {
  const slate = $("slate-form");
  if (!slate) return;

  slate.addEventListener("submit", (e) => {
    e.preventDefault();
    const f = slate.elements;
    const data = { kind: f.kind.value };
    if (f.title.value.trim()) data.title = f.title.value.trim();
    if (f.subtitle.value.trim()) data.subtitle = f.subtitle.value.trim();
    const clock = f.clock.value;
    const value = f.clock_value.value.trim();
    if (clock === "until") data.until = value;
    else if (clock === "countdown") data.countdown_ms = Math.round(Number(value.replace(",", ".")) * 60_000);
    else if (clock === "count_up") {
      data.count_up = true;
      if (value) data.limit_ms = Math.round(Number(value.replace(",", ".")) * 60_000);
    }
    graphic("show", "slate", qrFields(slate, data));
  });

  const ticker = $("ticker-form");
  ticker.addEventListener("submit", (e) => {
    e.preventDefault();
    const items = lines(ticker.elements.items.value);
    if (!items.length) {
      notice("info", t("show.ticker.need_items"), "", { code: "local" });
      return;
    }
    const data = { items };
    if (ticker.elements.title.value.trim()) data.title = ticker.elements.title.value.trim();
    graphic("show", "ticker", data);
  });

  const credits = $("credits-form");
  credits.addEventListener("submit", (e) => {
    e.preventDefault();
    const names = lines(credits.elements.names.value).map(creditLine);
    if (!names.length) {
      notice("info", t("show.credits.need_names"), "", { code: "local" });
      return;
    }
    const data = { names };
    if (credits.elements.title.value.trim()) data.title = credits.elements.title.value.trim();
    graphic("show", "credits", data);
  });

  const bug = $("bug-form");
  bug.addEventListener("submit", (e) => {
    e.preventDefault();
    const media = bug.elements.media.value;
    const qr = bug.elements.qr.checked;
    if (!media && !qr) {
      notice("info", t("show.bug.need_picture"), "", { code: "local" });
      return;
    }
    graphic("show", "bug", qrFields(bug, { ...(media ? { media } : {}), corner: bug.elements.corner.value }));
  });
  // the library's pictures, fresh each time the bug's section is opened
  const loadPictures = async () => {
    const data = await apiData("GET", "/api/media");
    const select = bug.elements.media;
    const keep = select.value;
    // "—": no picture, for a bug that is the QR code alone
    select.replaceChildren(h("option", { value: "" }, "—"),
      ...(data?.media || []).map((m) => h("option", { value: m.id }, `${m.id} · ${m.name || m.type}`)));
    select.value = keep || data?.media?.[0]?.id || ""; // the first picture, as before "—" was there
  };
  bug.closest("details").addEventListener("toggle", (e) => { if (e.target.open) loadPictures(); });

  for (const name of ["slate", "ticker", "credits", "bug"]) {
    document.querySelector(`[data-action="${name}-out"]`).addEventListener("click", () => graphic("hide", name));
  }
}
