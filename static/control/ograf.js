// The rundown desk's side of uploaded OGraf graphics: the graphics library's entries as
// `ograf:<id>` choices, a form generated from a manifest's data `schema` (GDD types are JSON
// Schema: strings, numbers, booleans, enums; anything else is edited as JSON), and the focused
// item's custom actions as buttons (with their own small form when the action has a schema).

import { t } from "./i18n.js";
import { api, h } from "./common.js";

/** The library's graphics: [{id, name, stepCount, customActions, schema}] (empty when refused). */
export async function loadLibrary() {
  const r = await api("GET", "/api/ograf");
  return r.ok ? r.data.graphics : [];
}

function label(key, prop) {
  return prop.title || prop.label || key;
}

/** One input for a schema property; returns [element, read()]. */
function field(key, prop, value) {
  const v = value !== undefined ? value : prop.default;
  const id = `og-${key.replace(/[^\w-]/g, "_")}`;
  let input;
  let read;
  if (Array.isArray(prop.enum)) {
    const names = prop.gddOptions?.labels || {};
    input = h("select", { id }, ...prop.enum.map((o) => h("option", { value: JSON.stringify(o) }, names[String(o)] ?? String(o))));
    input.value = JSON.stringify(v ?? prop.enum[0]);
    read = () => JSON.parse(input.value);
  } else if (prop.type === "boolean") {
    input = h("input", { id, type: "checkbox" });
    input.checked = !!v;
    read = () => input.checked;
  } else if (prop.type === "number" || prop.type === "integer") {
    input = h("input", { id, type: "number", step: prop.type === "integer" ? "1" : "any" });
    if (prop.minimum !== undefined) input.min = String(prop.minimum);
    if (prop.maximum !== undefined) input.max = String(prop.maximum);
    input.value = v ?? "";
    read = () => (input.value === "" ? undefined : Number(input.value));
  } else if (prop.type === "string") {
    const multi = prop.gddType === "multi-line";
    input = h(multi ? "textarea" : "input", { id, rows: multi ? "3" : undefined });
    if (prop.maxLength) input.maxLength = prop.maxLength;
    if (prop.gddType === "color-rrggbb") input.type = "color";
    input.value = v ?? "";
    read = () => input.value;
  } else {
    input = h("textarea", { id, rows: "3", class: "og-json" });
    input.value = v === undefined ? "" : JSON.stringify(v, null, 1);
    read = () => {
      if (!input.value.trim()) return undefined;
      try {
        return JSON.parse(input.value);
      } catch (_e) {
        throw new Error(t("og.bad_json", { field: label(key, prop) }));
      }
    };
  }
  const el = h("label", { class: prop.type === "boolean" ? "og-check" : "", title: prop.description || "" },
    h("span", {}, label(key, prop)), input);
  return [el, read];
}

/** A form for `schema` (an object schema) in `box`, filled from `data`; returns read() → data
 * (throws with a message when a JSON field is not JSON). Hidden fields keep their values. */
export function schemaForm(box, schema, data) {
  const props = Object.entries(schema?.properties || {})
    .sort(([, a], [, b]) => (a.order ?? 1e9) - (b.order ?? 1e9));
  const readers = [];
  const fields = [];
  for (const [key, prop] of props) {
    if (prop.hidden) {
      if (data && key in data) readers.push([key, () => data[key]]);
      continue;
    }
    const [el, read] = field(key, prop, data?.[key]);
    fields.push(el);
    readers.push([key, read]);
  }
  box.replaceChildren(...(fields.length ? fields : [h("p", { class: "rd-hint" }, t("og.no_fields"))]));
  return () => {
    const out = {};
    for (const [key, read] of readers) {
      const v = read();
      if (v !== undefined) out[key] = v;
    }
    return out;
  };
}

/** The custom actions of the focused item's graphic, as buttons in `box`; `run(id, payload)`. */
export function actionButtons(box, described, run) {
  const actions = described?.customActions || [];
  box.hidden = !actions.length;
  box.replaceChildren(...(actions.length ? [h("span", { class: "rd-hint" }, t("og.actions"))] : []), ...actions.map((a) => {
    const form = h("span", { class: "og-action-form" });
    const read = a.schema?.properties ? schemaForm(form, a.schema, {}) : () => ({});
    return h("span", { class: "og-action", dataset: { action: a.id } }, form,
      h("button", { type: "button", class: "btn btn-small", title: a.description || a.name,
                    onclick: () => run(a.id, read()) }, a.name || a.id));
  }));
}
