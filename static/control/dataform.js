// The item editor's data form, made from the graphic's schema (overlay/schema: JSON Schema with
// OGraf GDD types; the server adds each field's `kind`). Each kind gets its control: a list
// editor (add, remove, reorder lines), a rows editor, a number, a duration (ms, "8 s", "1:30"),
// a checkbox, a colour, a choice, a time of day, a media picker with the library's thumbnails.
// The form sends typed values; what it cannot read (a duration it does not understand) goes as
// typed, and the server's refusal names the field in the operator's language.

import { t } from "./i18n.js";
import { h, api, fieldLabel } from "./common.js";

const UNITS = { ms: 1, "мс": 1, s: 1000, "с": 1000, sec: 1000, "сек": 1000, min: 60000, "мин": 60000, "хв": 60000,
                m: 60000, "м": 60000, h: 3600000, "ч": 3600000, "год": 3600000 };

/** Milliseconds from "8000", "8 s", "2 min", "1:30", "1:00:00" (as overlay/schema/cells.py reads
 * a CSV cell); the text itself when it is none of those. */
export function parseDuration(text) {
  const s = text.trim().toLowerCase();
  if (/^\d{1,9}$/.test(s)) return Number(s);
  const clock = /^(?:(\d+):)?(\d{1,2}):(\d{2})$/.exec(s);
  if (clock) {
    const [hh, mm, ss] = [Number(clock[1] || 0), Number(clock[2]), Number(clock[3])];
    return ss < 60 && (!clock[1] || mm < 60) ? ((hh * 60 + mm) * 60 + ss) * 1000 : text;
  }
  let total = 0;
  let pos = 0;
  for (const m of s.matchAll(/(\d+(?:[.,]\d+)?)\s*([^\d\s.,:]+)\.?/g)) {
    if (s.slice(pos, m.index).trim() || !(m[2] in UNITS)) return text;
    total += Number(m[1].replace(",", ".")) * UNITS[m[2]];
    pos = m.index + m[0].length;
  }
  return pos && !s.slice(pos).trim() && Number.isInteger(total) ? total : text;
}

export function formatDuration(ms) {
  if (ms % 1000) return String(ms);
  const s = ms / 1000;
  const [hh, mm, ss] = [Math.floor(s / 3600), Math.floor(s / 60) % 60, s % 60];
  const two = (n) => String(n).padStart(2, "0");
  return hh ? `${hh}:${two(mm)}:${two(ss)}` : `${mm}:${two(ss)}`;
}

let library = null; // the media library's pictures, fetched when a picker first opens

async function pictures() {
  if (!library) {
    const r = await api("GET", "/api/media");
    library = r.ok ? r.data.media : [];
  }
  return library;
}

/** A list of texts, or of rows (each column an input): one line per entry. */
function linesControl(name, prop, value, rows) {
  const cols = rows ? Object.entries(prop.items.properties) : [[null, prop.items]];
  const box = h("div", { class: "df-lines", dataset: { lines: name } });
  const add = (entry) => {
    const line = h("div", { class: "df-line" });
    const b = (label, title, fn) => h("button", { type: "button", class: "btn btn-small", title, "aria-label": title, onclick: fn }, label);
    line.append(
      ...cols.map(([col, c]) => h("input", {
        type: "text", maxlength: c.maxLength, "aria-label": col ? fieldLabel(col, c) : fieldLabel(name, prop),
        placeholder: col ? fieldLabel(col, c) : "", dataset: { col: col || "" },
        value: (col ? entry?.[col] : entry) ?? "" })),
      b("▲", t("ed.line_up"), () => line.previousElementSibling && box.insertBefore(line, line.previousElementSibling)),
      b("▼", t("ed.line_down"), () => line.nextElementSibling && box.insertBefore(line.nextElementSibling, line)),
      b("✕", t("ed.remove_line"), () => line.remove()));
    box.append(line);
    return line;
  };
  for (const entry of value || []) add(entry);
  const plus = h("button", { type: "button", class: "btn btn-small df-add", dataset: { add: name } }, t("ed.add_line"));
  plus.onclick = () => add(rows ? {} : "").querySelector("input").focus();
  const read = () => [...box.children].map((line) => {
    const inputs = [...line.querySelectorAll("input")];
    if (!rows) return inputs[0].value;
    const row = {};
    for (const input of inputs) if (input.value.trim() || input.dataset.col === cols[0][0]) row[input.dataset.col] = input.value;
    return row;
  }).filter((e) => (rows ? Object.values(e).some((v) => v.trim()) : e.trim()));
  return { el: h("div", { class: "df-list" }, box, plus), read: () => { const v = read(); return v.length ? v : undefined; } };
}

function mediaControl(name, prop, value) {
  const input = h("input", { type: "text", maxlength: prop.maxLength, value: value ?? "", "aria-label": fieldLabel(name, prop),
                             dataset: { media: name } });
  const thumb = h("img", { class: "df-thumb", alt: "" });
  const grid = h("div", { class: "df-pictures", hidden: true, role: "listbox", "aria-label": fieldLabel(name, prop) });
  const show = async () => {
    const pic = (await pictures()).find((p) => p.id === input.value.trim());
    thumb.hidden = !pic;
    if (pic) thumb.src = pic.thumb || pic.url;
  };
  input.addEventListener("input", show);
  const pick = h("button", { type: "button", class: "btn btn-small", dataset: { pick: name } }, t("ed.pick"));
  pick.onclick = async () => {
    if (!grid.hidden) { grid.hidden = true; return; }
    const all = await pictures();
    grid.replaceChildren(...(all.length ? [
      h("button", { type: "button", class: "df-picture df-none", onclick: () => { input.value = ""; grid.hidden = true; show(); } },
        t("ed.no_picture")),
      ...all.map((p) => h("button", { type: "button", class: "df-picture", title: p.name || p.id, role: "option",
                                      dataset: { id: p.id },
                                      onclick: () => { input.value = p.id; grid.hidden = true; show(); } },
        h("img", { src: p.thumb || p.url, alt: p.name || p.id, loading: "lazy" }), h("span", {}, p.name || p.id)))]
      : [h("p", { class: "rd-hint" }, t("ed.media_empty"))]));
    grid.hidden = false;
  };
  show();
  return { el: h("div", { class: "df-media" }, h("div", { class: "row" }, thumb, input, pick), grid),
           read: () => input.value.trim() || undefined };
}

function colourControl(name, prop, value) {
  const input = h("input", { type: "color", value: value || "#ffffff", "aria-label": fieldLabel(name, prop) });
  let set = !!value;
  const state = h("span", { class: "rd-hint" }, set ? "" : t("ed.unset"));
  input.addEventListener("input", () => { set = true; state.textContent = ""; });
  const clear = h("button", { type: "button", class: "btn btn-small", title: t("ed.unset"), "aria-label": t("ed.unset"),
                              onclick: () => { set = false; state.textContent = t("ed.unset"); } }, "✕");
  return { el: h("div", { class: "row" }, input, state, clear), read: () => (set ? input.value : undefined) };
}

function control(name, prop, value) {
  const label = fieldLabel(name, prop);
  switch (prop.kind) {
    case "list": return linesControl(name, prop, value, false);
    case "rows": return linesControl(name, prop, value, true);
    case "media": return mediaControl(name, prop, value);
    case "colour": return colourControl(name, prop, value);
    case "boolean": {
      const input = h("input", { type: "checkbox", "aria-label": label });
      input.checked = !!value;
      // a switch left off is left out, unless the item had it
      return { el: input, read: () => (input.checked ? true : value === undefined ? undefined : false), inline: true };
    }
    case "choice": {
      const sel = h("select", { "aria-label": label },
        h("option", { value: "" }, t("ed.default")), ...prop.enum.map((v) => h("option", { value: v }, t(`ed.choice.${v}`))));
      sel.value = value ?? "";
      return { el: sel, read: () => sel.value || undefined };
    }
    case "number": {
      const input = h("input", { type: "number", min: prop.minimum, max: prop.maximum, step: 1, value: value ?? "", "aria-label": label });
      return { el: input, read: () => (input.value.trim() === "" ? undefined
        : Number.isInteger(Number(input.value)) ? Number(input.value) : input.value) };
    }
    case "duration": {
      const input = h("input", { type: "text", value: value == null ? "" : formatDuration(value), "aria-label": label,
                                 placeholder: t("ed.duration_hint"), dataset: { duration: name } });
      return { el: input, read: () => (input.value.trim() ? parseDuration(input.value) : undefined) };
    }
    case "time": {
      const input = h("input", { type: "time", value: value ?? "", "aria-label": label });
      return { el: input, read: () => input.value || undefined };
    }
    default: {
      const multi = prop.gddType === "multi-line";
      const input = h(multi ? "textarea" : "input", { type: multi ? null : "text", maxlength: prop.maxLength, "aria-label": label });
      input.value = value ?? "";
      // an empty text the item had ("" for no label) stays empty; an empty box otherwise is left out
      return { el: input, read: () => (input.value !== "" ? input.value : value === "" ? "" : undefined) };
    }
  }
}

/** Draw the form for `schema` with `data` into `box`; returns read() → the data to send. */
export function dataForm(box, schema, data) {
  const props = Object.entries(schema?.properties || {}).filter(([, p]) => !p.readOnly)
    .sort(([, a], [, b]) => (a.order ?? 1000) - (b.order ?? 1000));
  const fields = props.map(([name, prop]) => [name, control(name, prop, data?.[name])]);
  box.replaceChildren(...(fields.length ? fields.map(([name, c]) => h("div", {
    class: `df-field df-${schema.properties[name].kind}${c.inline ? " df-inline" : ""}`, dataset: { field: name } },
    h("span", { class: "df-label" }, fieldLabel(name, schema.properties[name])), c.el))
    : [h("p", { class: "rd-hint" }, t("ed.no_fields"))]));
  box.scrollTop = 0; // a new item's form starts at its first field
  return () => {
    const out = {};
    for (const [name, c] of fields) {
      const v = c.read();
      if (v !== undefined) out[name] = v;
    }
    return out;
  };
}
