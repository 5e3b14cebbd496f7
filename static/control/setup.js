// Game setup: the list of games with «в эфир», and a form that builds a tv game spec
// (API.md, POST /api/games): team, players, captain, blitz/superblitz sectors, envelopes with
// their questions or blank paper envelopes, timers.

import { t, onLangChange } from "./i18n.js";
import { pageConfig, h, api, notice, refusalText, wireLanguage, dropPointerFocus } from "./common.js";
import { ControlConnection } from "./connection.js";
import { kindName } from "./describe.js";

const cfg = pageConfig();
wireLanguage(cfg.lang);
dropPointerFocus();
const conn = new ControlConnection({ settleMs: cfg.settle_ms ?? 250 });
const $ = (id) => document.getElementById(id);

const SECTORS = 13;           // the tv table; 13 is the sponsor's sector
const SPONSOR = 13;
const MAX_PLAYERS = 20;
const TIMERS = ["minute", "blitz", "extra_minute", "club_help"];

// ---- games list ----------------------------------------------------------------------------

let games = [];

async function loadGames() {
  const r = await api("GET", "/api/games");
  if (!r.ok) {
    const { title, detail } = refusalText(r.data?.error);
    notice("error", title, detail, { code: r.data?.error?.code });
    return;
  }
  games = r.data.games || [];
  renderGames();
}

function statusText(g) {
  return t(g.status === "finished" ? "setup.status.finished" : "setup.status.playing");
}

function renderGames() {
  const body = $("games-body");
  body.replaceChildren();
  if (!games.length) {
    body.append(h("tr", {}, h("td", { colspan: 5, class: "muted" }, t("setup.no_games"))));
    return;
  }
  for (const g of [...games].reverse()) {
    const action = g.on_air
      ? h("span", { class: "on-air-tag" }, t("setup.on_air"))
      : h("button", { type: "button", class: "btn btn-primary", "data-game": g.id,
                      onclick: () => askOnAir(g) }, t("setup.put_live"));
    body.append(h("tr", { "data-game": g.id, class: g.on_air ? "is-on-air" : "" },
                  h("td", {}, g.title || g.id, h("small", { class: "muted" }, ` ${g.id}`)),
                  h("td", {}, t(`rules.${g.rules}`)),
                  h("td", { class: "score-cell" }, `${g.score.experts} : ${g.score.viewers}`),
                  h("td", {}, statusText(g)),
                  h("td", {}, action)));
  }
}

/** Switching the game on air mid-show changes every screen: ask once, naming both games. */
function askOnAir(game) {
  const current = games.find((g) => g.on_air);
  if (!current) return putOnAir(game.id);
  const box = $("confirm");
  const yes = h("button", { type: "button", class: "btn btn-danger", id: "on-air-yes" }, t("setup.switch_yes"));
  const no = h("button", { type: "button", class: "btn", id: "on-air-no" }, t("undo.no"));
  yes.addEventListener("click", () => { box.hidden = true; putOnAir(game.id); });
  no.addEventListener("click", () => { box.hidden = true; });
  box.replaceChildren(
    h("p", { class: "confirm-text" }, t("setup.switch_confirm", {
      current: current.title || current.id, score: `${current.score.experts}:${current.score.viewers}`,
      status: statusText(current), next: game.title || game.id })),
    h("div", { class: "confirm-actions" }, yes, no));
  box.hidden = false;
  yes.focus();
}

async function putOnAir(id) {
  const r = await api("PUT", "/api/on-air", { game: id });
  if (r.ok) notice("ok", t("setup.now_on_air"), "", { code: "ok" });
  else {
    const { title, detail } = refusalText(r.data?.error);
    notice("error", title, detail, { code: r.data?.error?.code });
  }
  loadGames();
}

// ---- the form: players and captain --------------------------------------------------------

function addPlayer(value = "") {
  const box = $("f-players");
  if (box.children.length >= MAX_PLAYERS) return;
  const i = box.children.length + 1;
  const input = h("input", { class: "player-input", maxlength: 200, value,
                             placeholder: t("setup.player_n", { n: i }), "aria-label": t("setup.player_n", { n: i }) });
  input.addEventListener("input", renderCaptain);
  box.append(input);
  renderCaptain();
}

function players() {
  return [...document.querySelectorAll(".player-input")].map((i) => i.value.trim()).filter(Boolean);
}

function renderCaptain() {
  const select = $("f-captain");
  const was = select.value;
  select.replaceChildren(h("option", { value: "" }, t("setup.no_captain")),
                         ...players().map((p) => h("option", { value: p }, p)));
  select.value = players().includes(was) ? was : "";
}

// ---- the form: sectors and envelopes ------------------------------------------------------

function kindOf(number) {
  if (number === SPONSOR) return "sponsor";
  if (String(number) === $("f-blitz").value) return "blitz";
  if (String(number) === $("f-superblitz").value) return "superblitz";
  return "regular";
}

function sectorSelect(select) {
  select.replaceChildren(h("option", { value: "" }, t("setup.none")),
                         ...Array.from({ length: SECTORS - 1 }, (_, i) => h("option", { value: i + 1 }, String(i + 1))));
}

const QUESTION_FIELDS = [
  ["text", "textarea"], ["answer", "input"], ["comment", "input"], ["author", "input"], ["city", "input"],
  ["photo", "input"], ["amount", "number"], ["currency", "input"],
];

function questionForm(sector, q) {
  const box = h("div", { class: "qform", "data-q": q });
  box.append(h("div", { class: "qform-title" }, t("setup.question_n", { n: q + 1 })));
  for (const [name, tag] of QUESTION_FIELDS) {
    const id = `q-${sector}-${q}-${name}`;
    const attrs = { id, name, "data-field": name };
    let input;
    if (tag === "textarea") input = h("textarea", { ...attrs, rows: 3, maxlength: 10000 });
    else if (tag === "number") input = h("input", { ...attrs, type: "number", min: 0, step: "any" });
    else input = h("input", { ...attrs, maxlength: name === "photo" ? 500 : name === "currency" ? 10 : 10000 });
    if (name === "currency") input.value = "UAH";
    if (name === "photo") input.placeholder = "https://…";
    input.addEventListener("input", () => summarize(sector));
    box.append(h("label", { class: `f-${name}` }, h("span", { "data-i18n": `setup.q.${name}` }, t(`setup.q.${name}`)), input));
  }
  return box;
}

function buildEnvelopes() {
  const box = $("f-envelopes");
  box.replaceChildren();
  for (let n = 1; n <= SECTORS; n++) {
    const det = h("details", { class: "envelope", "data-sector": n },
                  h("summary", {}, h("span", { class: "env-title" }), h("span", { class: "env-state muted" })),
                  questionForm(n, 0), questionForm(n, 1), questionForm(n, 2));
    box.append(det);
  }
  updateKinds();
}

function updateKinds() {
  for (const det of document.querySelectorAll(".envelope")) {
    const n = Number(det.dataset.sector);
    const kind = kindOf(n);
    det.dataset.kind = kind;
    const multi = kind === "blitz" || kind === "superblitz";
    det.querySelectorAll(".qform").forEach((f) => { f.hidden = !multi && f.dataset.q !== "0"; });
    det.querySelectorAll(".qform-title").forEach((el) => { el.hidden = !multi; });
    summarize(n);
  }
}

function questionValues(n, q) {
  const get = (name) => $(`q-${n}-${q}-${name}`).value.trim();
  return Object.fromEntries(QUESTION_FIELDS.map(([name]) => [name, get(name)]));
}

function filled(v) {
  return Boolean(v.text || v.answer || v.comment || v.author || v.city || v.photo || v.amount);
}

function summarize(n) {
  const det = document.querySelector(`.envelope[data-sector="${n}"]`);
  const kind = det.dataset.kind;
  const count = kind === "blitz" || kind === "superblitz" ? 3 : 1;
  const used = Array.from({ length: count }, (_, q) => filled(questionValues(n, q))).filter(Boolean).length;
  det.querySelector(".env-title").textContent = `${t("sector.n", { n })} · ${kindName(kind)}`;
  det.querySelector(".env-state").textContent = used ? ` — ${t("setup.env_filled", { n: used, of: count })}` : ` — ${t("setup.env_paper")}`;
}

// ---- building and checking the spec ----------------------------------------------------------

function question(v, where, errors) {
  const q = {};
  if (v.text) q.text = v.text;
  if (v.answer) q.answer = v.answer;
  if (v.comment) q.comment = v.comment;
  if (v.author || v.city || v.photo) {
    if (!v.author) errors.push(t("setup.err.author_name", { where }));
    q.author = { name: v.author };
    if (v.city) q.author.city = v.city;
    if (v.photo) q.author.photo = v.photo;
  }
  if (v.amount) {
    const amount = Number(v.amount);
    if (!Number.isFinite(amount) || amount < 0) errors.push(t("setup.err.amount", { where }));
    q.prize = { amount, currency: v.currency || "UAH" };
  }
  return q;
}

function buildSpec() {
  const errors = [];
  const team = $("f-team").value.trim();
  const names = players();
  if (!team) errors.push(t("setup.err.team"));
  if (new Set(names).size !== names.length) errors.push(t("setup.err.same_player"));
  const blitz = $("f-blitz").value;
  const superblitz = $("f-superblitz").value;
  if (blitz && blitz === superblitz) errors.push(t("setup.err.same_sector"));
  const timers = {};
  for (const k of TIMERS) {
    const s = Number($(`f-t-${k}`).value);
    if (!Number.isFinite(s) || s < 1 || s > 3600) errors.push(t("setup.err.timer", { name: t(`setup.t.${k}`) }));
    else timers[k] = Math.round(s * 1000);
  }
  const target = Number($("f-target").value);
  if (!Number.isInteger(target) || target < 1 || target > 20) errors.push(t("setup.err.target"));
  const paper = $("f-paper").checked;
  const sectors = [];
  for (let n = 1; n <= SECTORS; n++) {
    const kind = kindOf(n);
    const sector = { number: n, kind };
    if (!paper) {
      const count = kind === "blitz" || kind === "superblitz" ? 3 : 1;
      const values = Array.from({ length: count }, (_, q) => questionValues(n, q));
      if (values.some(filled)) {
        if (count > 1 && values.some((v) => v.text) && !values.every((v) => v.text)) {
          errors.push(t("setup.err.three", { n }));
        }
        sector.questions = values.map((v, q) => question(v, count > 1 ? `${t("sector.n", { n })}, ${t("setup.question_n", { n: q + 1 })}` : t("sector.n", { n }), errors));
      }
    }
    sectors.push(sector);
  }
  const spec = {
    rules: "tv",
    target,
    experts: { name: team, players: names, ...($("f-captain").value ? { captain: $("f-captain").value } : {}) },
    sectors,
    timers,
  };
  const title = $("f-title").value.trim();
  if (title) spec.title = title;
  return { spec, errors };
}

let creating = false;

async function submit(e) {
  e.preventDefault();
  if (creating) return;                     // a double click creates one game, not two
  const { spec, errors } = buildSpec();
  const box = $("f-errors");
  box.replaceChildren(...errors.map((m) => h("p", {}, m)));
  if (errors.length) return;
  creating = true;
  $("f-create").disabled = true;
  try {
    const r = await api("POST", "/api/games", spec);
    if (!r.ok) {
      const { title, detail } = refusalText(r.data?.error);
      box.replaceChildren(h("p", {}, title), h("p", { class: "muted" }, detail));
      return;
    }
    const id = r.data.id;
    notice("ok", t("setup.created", { title: spec.title || id }), "", { code: "created" });
    box.replaceChildren(h("p", { class: "ok", id: "f-created", "data-game": id }, t("setup.created", { title: spec.title || id }), " ",
                          h("a", { href: cfg.urls?.panel || "/control/" }, t("setup.go_live"))));
    if ($("f-on-air").checked) await putOnAir(id);
    else loadGames();
  } finally {
    creating = false;
    $("f-create").disabled = false;
  }
}

// ---- wiring --------------------------------------------------------------------------------

function init() {
  for (let i = 0; i < 6; i++) addPlayer();
  sectorSelect($("f-blitz"));
  sectorSelect($("f-superblitz"));
  buildEnvelopes();
  $("f-blitz").addEventListener("change", updateKinds);
  $("f-superblitz").addEventListener("change", updateKinds);
  $("f-add-player").addEventListener("click", () => addPlayer());
  $("f-paper").addEventListener("change", () => { $("f-envelopes-box").hidden = $("f-paper").checked; });
  $("game-form").addEventListener("submit", submit);
  loadGames();
}

init();
// Another panel may create games or change what is on air: refresh the list when states arrive.
let refresh = null;
conn.on("state", () => {
  clearTimeout(refresh);
  refresh = setTimeout(loadGames, 300);
});
onLangChange(() => {
  renderGames();
  document.querySelectorAll(".player-input").forEach((el, i) => {
    el.placeholder = t("setup.player_n", { n: i + 1 });
    el.setAttribute("aria-label", el.placeholder);
  });
  renderCaptain();
  for (const s of [$("f-blitz"), $("f-superblitz")]) {
    const v = s.value;
    sectorSelect(s);
    s.value = v;
  }
  updateKinds();
});
