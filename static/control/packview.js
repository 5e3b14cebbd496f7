// A question pack on screen (GET /api/packs/<id>): tours, questions with their answers, blitz
// parts, authors, sources. Packs are secret: only operator pages load this. Used by the packs
// page (browsing) and the setup page (picking questions into envelopes).

import { t, tn } from "./i18n.js";
import { h, safeUrl } from "./common.js";

/** Every question of the pack by its ref "T.Q". */
export function questionsByRef(pack) {
  const out = new Map();
  (pack?.tours || []).forEach((tour) => (tour.questions || []).forEach((q) => out.set(q.ref, q)));
  return out;
}

export function isThreePart(q) {
  return (q?.parts || []).length === 3;
}

function line(cls, label, value) {
  if (!value || (Array.isArray(value) && !value.length)) return null;
  const text = Array.isArray(value) ? value.join("; ") : value;
  return h("p", { class: `pq-line ${cls}` }, h("span", { class: "lbl" }, `${label}: `), text);
}

function mediaList(items) {
  if (!items?.length) return null;
  return h("p", { class: "pq-line pq-media" }, h("span", { class: "lbl" }, `${t("packs.media")}: `),
           ...items.flatMap((m, i) => {
             const href = safeUrl(m);
             const el = href ? h("a", { href, target: "_blank", rel: "noopener noreferrer" }, m) : h("span", {}, m);
             return i ? [", ", el] : [el];
           }));
}

function add(parent, ...items) {
  for (const item of items) if (item) parent.append(item);
}

/** One question as an element; `extra(q)` may add controls (the setup page's «В конверт»). */
export function questionCard(q, { answers = true, extra = null } = {}) {
  const head = h("div", { class: "pq-head" },
                 h("strong", { class: "pq-ref" }, t("packs.q_ref", { ref: q.ref, n: q.number })),
                 isThreePart(q) ? h("span", { class: "badge" }, t("packs.three_part")) : null,
                 (q.parts || []).length && !isThreePart(q) ? h("span", { class: "badge" }, tn("packs.parts", q.parts.length)) : null);
  const card = h("article", { class: "pack-q", "data-ref": q.ref }, head);
  add(card, q.handout ? line("pq-handout", t("packs.handout"), q.handout) : null);
  if (q.preamble) card.append(h("p", { class: "pq-text" }, q.preamble));
  if ((q.parts || []).length) {
    const list = h("ol", { class: "pq-parts" });
    q.parts.forEach((p) => list.append(h("li", {}, h("span", { class: "pq-text" }, p.text),
                                            answers ? h("span", { class: "pq-answer" }, ` — ${p.answer}`) : null)));
    card.append(list);
    if (!q.preamble && q.text && !q.parts.some((p) => q.text.includes(p.text))) card.append(h("p", { class: "pq-text" }, q.text));
  } else {
    card.append(h("p", { class: "pq-text" }, q.text));
  }
  add(card, mediaList(q.media));
  if (answers) {
    add(card, h("p", { class: "pq-line pq-answer-line" }, h("span", { class: "lbl" }, `${t("q.answer")} `), q.answer),
        line("", t("q.accepted"), q.accepted), line("", t("q.rejected"), q.rejected),
        line("", t("q.comment"), q.comment), line("", t("q.source"), q.source), mediaList(q.answer_media));
  }
  const author = q.author ? (q.author.raw || [q.author.name, q.author.city].filter(Boolean).join(", ")) : "";
  add(card, line("pq-author", t("packs.author"), author), extra ? extra(q) : null);
  return card;
}

/** The whole pack: its heading and one collapsible section per tour (the first open). */
export function renderPack(box, pack, { answers = true, extra = null, open = 0 } = {}) {
  box.replaceChildren();
  if (!pack) return;
  const meta = [pack.date, (pack.editors || []).join(", "), tn("packs.count", pack.questions),
                `${pack.format} · ${pack.encoding}`].filter(Boolean).join(" · ");
  box.append(h("div", { class: "pack-head" }, h("h3", { class: "pack-title" }, pack.title || pack.filename || pack.id),
               h("p", { class: "muted" }, meta), pack.info ? h("p", { class: "muted pack-info" }, pack.info) : null));
  (pack.tours || []).forEach((tour, i) => {
    const det = h("details", { class: "pack-tour", "data-tour": i + 1 },
                  h("summary", {}, `${tour.title || t("packs.tour_n", { n: i + 1 })} · ${tn("packs.count", tour.questions.length)}`));
    if (i === open) det.open = true;
    if (tour.editors?.length || tour.info) det.append(h("p", { class: "muted" }, [tour.editors.join(", "), tour.info].filter(Boolean).join(" · ")));
    tour.questions.forEach((q) => det.append(questionCard(q, { answers, extra })));
    box.append(det);
  });
}
