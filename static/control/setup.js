// Game setup: the list of games with «в эфир», and a form that builds a game spec
// (API.md, POST /api/games): a tv game (team, players, captain) or a club game (teams with
// their line-ups, game day); blitz/superblitz sectors, timers, envelopes with their questions
// or blank paper envelopes — typed in, or filled from a question pack by hand or at random
// (POST /api/packs/<id>/fill), then the viewer's name, city, photo and prize added per envelope.

import { t, tn, onLangChange } from "./i18n.js";
import { pageConfig, h, api, apiData, notice, refusalText, noticeRefusal, wireLanguage, dropPointerFocus } from "./common.js";
import { ControlConnection } from "./connection.js";
import { kindName } from "./describe.js";
import { renderPack, questionsByRef, isThreePart } from "./packview.js";

const cfg = pageConfig();
wireLanguage(cfg.lang);
dropPointerFocus();
const conn = new ControlConnection({ doubleMs: cfg.double_ms ?? 400 });
const $ = (id) => document.getElementById(id);

const SECTORS = 13;           // the tv table; 13 is the sponsor's sector
const SPONSOR = 13;
const MAX_PLAYERS = 20;
const TIMERS = ["minute", "blitz", "extra_minute", "club_help"];
const CLUB_TIMERS = ["minute", "blitz"];
const MAX_TEAMS = 60;
const LINEUP = [4, 6];        // a club team's usual size (seed 004): outside it we warn, not refuse
// A team name's length (characters) from which the club tables set it smaller or on two lines, and
// from which it takes a double tile: measured on the largest board (18 tables, a 328 px tile at
// 32 px down to 28 px). On air nothing is cut; the setup page says so before the game.
const NAME_SHRINKS = 20;
const NAME_DOUBLE = 40;

function rules() {
  return $("f-rules-club").checked ? "club" : "tv";
}

// ---- games list ----------------------------------------------------------------------------

let games = [];

async function loadGames() {
  const data = await apiData("GET", "/api/games");
  if (!data) return;
  games = data.games || [];
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
                  h("td", {}, action, g.status === "finished" ? renderForm(g) : "")));
  }
}

// ---- renders: a finished game's graphic as a video with alpha (POST /api/renders) --------------

const RENDER_GRAPHICS = ["scoreboard", "timer", "table", "question", "full", "result", "show"];

const renderChoice = {}; // per game: what its form was set to (the list is redrawn on every state)

function renderForm(g) {
  const chosen = (renderChoice[g.id] ??= { graphic: "scoreboard", format: "prores" });
  const graphic = h("select", { class: "render-graphic", "aria-label": t("render.graphic") },
                    ...RENDER_GRAPHICS.map((name) => h("option", { value: name }, name)));
  const format = h("select", { class: "render-format", "aria-label": t("render.format") },
                   h("option", { value: "prores" }, "ProRes 4444 (.mov)"), h("option", { value: "webm" }, "WebM VP9 (.webm)"));
  graphic.value = chosen.graphic;
  format.value = chosen.format;
  graphic.addEventListener("change", () => { chosen.graphic = graphic.value; });
  format.addEventListener("change", () => { chosen.format = format.value; });
  const go = h("button", { type: "button", class: "btn render-start", "data-game": g.id }, t("render.start"));
  go.addEventListener("click", async () => {
    const r = await api("POST", "/api/renders", { game: g.id, graphic: graphic.value, format: format.value });
    if (!r.ok) noticeRefusal(r.data?.error);
    loadRenders();
  });
  return h("span", { class: "render-form" }, graphic, format, go);
}

let rendersTimer = null;

async function loadRenders() {
  clearTimeout(rendersTimer);
  const data = await apiData("GET", "/api/renders");
  if (!data) return;
  const list = data.renders || [];
  $("renders").hidden = !list.length;
  $("renders-list").replaceChildren(...[...list].reverse().map(renderItem));
  if (list.some((j) => j.status === "running")) rendersTimer = setTimeout(loadRenders, 1000);
}

function renderItem(j) {
  const name = `${j.game} · ${j.graphic} · ${j.format === "prores" ? "ProRes 4444" : "WebM"}`;
  let what;
  if (j.status === "running") {
    const left = Number.isFinite(j.left_s) ? `${Math.floor(j.left_s / 60)}:${String(Math.round(j.left_s % 60)).padStart(2, "0")}` : "…";
    what = [h("progress", { max: j.total || 1, value: j.done || 0 }),
            h("span", { class: "render-progress" }, t("render.running", { done: j.done || 0, total: j.total ?? "…",
                                                                             fps: j.frames_per_s ?? "…", left })),
            h("button", { type: "button", class: "btn render-stop", onclick: () => dropRender(j.id) }, t("render.stop"))];
  } else if (j.status === "done") {
    what = [h("a", { class: "btn btn-primary render-download", href: j.url, download: "" }, t("render.download")),
            h("button", { type: "button", class: "btn render-delete", onclick: () => dropRender(j.id) }, t("render.delete"))];
  } else {
    what = [h("span", { class: "render-error" }, j.status === "stopped" ? t("render.stopped") : t("render.failed", { error: j.error || "" })),
            h("button", { type: "button", class: "btn render-delete", onclick: () => dropRender(j.id) }, t("render.delete"))];
  }
  return h("li", { class: `render-item is-${j.status}`, "data-render": j.id }, h("span", { class: "render-name" }, name), ...what);
}

async function dropRender(id) {
  const r = await api("DELETE", `/api/renders/${id}`);
  if (!r.ok) noticeRefusal(r.data?.error);
  loadRenders();
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
    noticeRefusal(r.data?.error);
  }
  loadGames();
}

// ---- the form: players and captain --------------------------------------------------------

function addPlayer(value = "") {
  const box = $("f-players");
  if (box.children.length >= MAX_PLAYERS) return;
  const i = box.children.length + 1;
  const input = h("input", { dir: "auto", class: "player-input", maxlength: 200, value,
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
  if (number === SPONSOR && rules() === "tv") return "sponsor";
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

function refRow(n) {
  const input = h("input", { id: `ref-${n}`, class: "ref-input", maxlength: 40, inputmode: "decimal",
                             placeholder: "2.3", "aria-label": t("setup.pack.ref", { n }) });
  const take = h("button", { type: "button", class: "btn btn-small", id: `ref-take-${n}` }, t("setup.pack.take"));
  const clear = h("button", { type: "button", class: "btn btn-small btn-danger", id: `env-clear-${n}` }, t("setup.env_clear"));
  take.addEventListener("click", () => takeRefs(n, input.value));
  input.addEventListener("keydown", (e) => {
    if (e.key === "Enter") {
      e.preventDefault();
      takeRefs(n, input.value);
    }
  });
  clear.addEventListener("click", () => clearEnvelope(n));
  return h("div", { class: "ref-row" }, h("label", {}, h("span", {}, t("setup.pack.ref", { n })), input), take, clear);
}

function buildEnvelopes() {
  const box = $("f-envelopes");
  box.replaceChildren();
  for (let n = 1; n <= SECTORS; n++) {
    const det = h("details", { class: "envelope", "data-sector": n },
                  h("summary", {}, h("span", { class: "env-title" }), h("span", { class: "env-state muted" })),
                  refRow(n), questionForm(n, 0), questionForm(n, 1), questionForm(n, 2));
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
  const refs = envRefs.get(n) || [];
  const from = refs.length ? ` · ${t("setup.pack.from", { refs: refs.join(", ") })}${refsComplete(n) ? "" : ` (${t("setup.pack.partial", { n: refs.length, of: count })})`}` : "";
  det.querySelector(".env-state").textContent = (used ? ` — ${t("setup.env_filled", { n: used, of: count })}` : ` — ${t("setup.env_paper")}`) + from;
  det.dataset.refs = refs.join(" ");
}

// ---- the club game: teams with their line-ups, the game day ---------------------------------

function addTeam(name = "", lineup = "") {
  const box = $("f-teams");
  if (box.children.length >= MAX_TEAMS) return;
  const n = box.children.length + 1;
  const nameInput = h("input", { dir: "auto", class: "team-name", maxlength: 200, value: name, placeholder: t("setup.team_n", { n }),
                                 "aria-label": t("setup.team_n", { n }) });
  const playersInput = h("input", { dir: "auto", class: "team-players", maxlength: 2000, value: lineup, placeholder: t("setup.team_players_hint"),
                                    "aria-label": t("setup.team_players", { n }) });
  nameInput.addEventListener("input", renderTeamWarnings);
  playersInput.addEventListener("input", renderTeamWarnings);
  box.append(h("div", { class: "team-row", "data-table": n },
               h("span", { class: "table-no" }, String(n)), nameInput, playersInput));
}

function splitNames(text) {
  return text.split(/[,;\n]/).map((x) => x.trim()).filter(Boolean);
}

/** Named rows only, in table order: {table, name, players}. */
function teamRows() {
  return [...document.querySelectorAll(".team-row")].map((row) => ({
    table: Number(row.dataset.table),
    name: row.querySelector(".team-name").value.trim(),
    players: splitNames(row.querySelector(".team-players").value),
  })).filter((r) => r.name || r.players.length);
}

/** The warning for a team name long enough to change its look on air, or null. */
function longNameWarning(r) {
  const count = [...r.name].length;
  if (count > NAME_DOUBLE) return t("setup.warn.very_long_name", { n: r.table, name: r.name, count });
  if (count > NAME_SHRINKS) return t("setup.warn.long_name", { n: r.table, name: r.name, count });
  return null;
}

/** Line-ups outside 4–6 players are unusual, not wrong; so is a long name: warnings, and the
 * game is created. */
function renderTeamWarnings() {
  const rows = teamRows().filter((r) => r.name);
  const warnings = [
    ...rows.filter((r) => r.players.length < LINEUP[0] || r.players.length > LINEUP[1])
      .map((r) => t("setup.warn.lineup", { n: r.table, name: r.name, count: r.players.length })),
    ...rows.map(longNameWarning).filter(Boolean),
  ];
  $("f-team-warnings").replaceChildren(...warnings.map((w) => h("p", { class: "warn" }, w)));
}

function clubSpec(errors) {
  const rows = teamRows();
  const teams = [];
  for (const r of rows) {
    if (!r.name) {
      errors.push(t("setup.err.team_name", { n: r.table }));
      continue;
    }
    if (new Set(r.players).size !== r.players.length) errors.push(t("setup.err.team_same_player", { name: r.name }));
    teams.push({ id: `t${r.table}`, name: r.name, players: r.players });
  }
  if (teams.length < 2) errors.push(t("setup.err.two_teams"));
  const names = teams.map((x) => x.name.toLowerCase());
  if (new Set(names).size !== names.length) errors.push(t("setup.err.same_team"));
  const day = $("f-game-day").value.trim();
  if (!day) errors.push(t("setup.err.game_day"));
  const league = leagueHolding();
  // a league game: season and stage with the holding, so it counts in the season's rating
  return league ? { teams, game_day: league.id, season: league.season, stage: $("f-stage").value } : { teams, game_day: day };
}

// ---- a league game: the holding (season, game day) and its formed teams -----------------------

let holdings = [];                // [{id, season, seasonName, day, weekday, date}]

function leagueHolding() {
  return holdings.find((x) => x.id === $("f-league").value) || null;
}

function renderLeague() {
  const select = $("f-league");
  const chosen = select.value;
  select.replaceChildren(h("option", { value: "" }, t("setup.league.none")),
    ...holdings.map((x) => h("option", { value: x.id }, t("setup.league.option", {
      season: x.seasonName, day: x.day, weekday: t(`setup.league.${x.weekday}`), date: x.date }))));
  select.value = holdings.some((x) => x.id === chosen) ? chosen : "";
}

async function loadLeague() {
  const r = await api("GET", "/api/seasons");
  if (!r.ok) return;
  const found = [];
  for (const season of r.data.seasons || []) {
    const s = await api("GET", `/api/seasons/${encodeURIComponent(season.id)}`);
    if (!s.ok) continue;
    for (const d of s.data.days || []) {
      for (const x of d.holdings) found.push({ id: x.id, season: season.id, seasonName: season.name, day: x.day, weekday: x.weekday, date: x.date });
    }
  }
  holdings = found;
  renderLeague();
}

/** The holding's formed teams fill the team rows; its id is the game day. */
async function chooseHolding() {
  const league = leagueHolding();
  $("f-game-day").readOnly = !!league;
  $("f-stage-box").hidden = !league;
  if (!league) return;
  $("f-game-day").value = league.id;
  const r = await api("GET", `/api/holdings/${encodeURIComponent(league.id)}/teams`);
  if (!r.ok) return;
  $("f-teams").replaceChildren();
  for (const team of r.data.teams || []) addTeam(team.name, team.players.join(", "));
  if (!$("f-title").value.trim()) $("f-title").value = $("f-league").selectedOptions[0].textContent;
  renderTeamWarnings();
}

/** Today as a holding: the date, and -sun / -wed on the league's two days. */
function defaultGameDay() {
  const d = new Date();
  const iso = `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, "0")}-${String(d.getDate()).padStart(2, "0")}`;
  return iso + ({ 0: "-sun", 3: "-wed" }[d.getDay()] || "");
}

function applyRules() {
  const club = rules() === "club";
  $("f-experts-box").hidden = club;
  $("f-club-box").hidden = !club;
  document.querySelectorAll(".game-form .tv-only").forEach((el) => { el.hidden = club; });
  if (club && !$("f-teams").children.length) for (let i = 0; i < 4; i++) addTeam();
  if (club && !$("f-game-day").value) $("f-game-day").value = defaultGameDay();
  updateKinds();
}

// ---- envelopes from a question pack ---------------------------------------------------------

let packList = [];
let pack = null;                  // the chosen pack, whole (GET /api/packs/<id>)
let packQuestions = new Map();    // ref → question
const envRefs = new Map();        // sector → refs it was filled from (or picked so far)
const extras = new Map();         // "<sector>-<q>" → fields the form does not show (accepted, …)
const EXTRA_FIELDS = ["accepted", "rejected", "source", "media"];

const need = (n) => (["blitz", "superblitz"].includes(kindOf(n)) ? 3 : 1);

function refsComplete(n) {
  const refs = envRefs.get(n) || [];
  if (need(n) === 1) return refs.length === 1;
  return refs.length === 3 || (refs.length === 1 && isThreePart(packQuestions.get(refs[0])));
}

function packStatus(text, kind = "") {
  const el = $("f-pack-status");
  el.textContent = text;
  el.dataset.kind = kind;
}

async function loadPacks() {
  const r = await api("GET", "/api/packs");
  const select = $("f-pack");
  if (!r.ok) {
    packStatus(refusalText(r.data?.error).title, "error");
    return;
  }
  packList = r.data.packs || [];
  const was = select.value || new URLSearchParams(location.search).get("pack") || "";
  select.replaceChildren(h("option", { value: "" }, t(packList.length ? "setup.pack.none" : "setup.pack.empty")),
                         ...packList.map((p) => h("option", { value: p.id }, `${p.title || p.filename} · ${tn("packs.count", p.questions)}`)));
  if (packList.some((p) => p.id === was)) {
    select.value = was;
    if (!pack || pack.id !== was) await choosePack(was);
  }
  renderPackBox();
}

async function choosePack(id) {
  pack = null;
  packQuestions = new Map();
  if (id) {
    const r = await api("GET", `/api/packs/${encodeURIComponent(id)}`);
    if (!r.ok) {
      noticeRefusal(r.data?.error);
    } else {
      pack = r.data;
      packQuestions = questionsByRef(pack);
    }
  }
  renderPackBox();
}

function renderPackBox() {
  const tours = $("f-pack-tours");
  tours.replaceChildren();
  $("f-pack-random").disabled = !pack;
  $("f-pack-browse").hidden = !pack;
  if (!pack) {
    $("f-pack-view").replaceChildren();
    if (!packList.length) packStatus(t("setup.pack.empty"));
    return;
  }
  (pack.tours || []).forEach((tour, i) => {
    tours.append(h("label", { class: "check" }, h("input", { type: "checkbox", class: "pack-tour-check", value: i + 1, checked: true }),
                   h("span", {}, `${tour.title || t("packs.tour_n", { n: i + 1 })} (${tour.questions.length})`)));
  });
  renderPack($("f-pack-view"), pack, { open: -1, extra: pickControl });
  markUsed();
}

/** «В конверт»: the question's ref into a sector chosen from a list. */
function pickControl(q) {
  const select = h("select", { class: "pick-sector", "aria-label": t("setup.pack.to_sector") },
                   ...Array.from({ length: SECTORS }, (_, i) => h("option", { value: i + 1 }, `${t("sector.n", { n: i + 1 })} · ${kindName(kindOf(i + 1))}`)));
  const free = Array.from({ length: SECTORS }, (_, i) => i + 1).find((n) => !envelopeUsed(n));
  if (free) select.value = String(free);
  const btn = h("button", { type: "button", class: "btn btn-small pick-btn", "data-ref": q.ref }, t("setup.pack.put"));
  btn.addEventListener("click", () => assign(Number(select.value), q.ref));
  return h("div", { class: "pick-row" }, h("span", { class: "pick-used muted", "data-ref": q.ref }), select, btn);
}

function markUsed() {
  const where = new Map();
  for (const [n, refs] of envRefs) refs.forEach((ref) => where.set(ref, n));
  document.querySelectorAll(".pick-used").forEach((el) => {
    const n = where.get(el.dataset.ref);
    el.textContent = n ? t("setup.pack.in_sector", { n }) : "";
    el.closest(".pack-q")?.classList.toggle("used", !!n);
  });
}

function envelopeUsed(n) {
  return (envRefs.get(n) || []).length > 0
    || Array.from({ length: need(n) }, (_, q) => filled(questionValues(n, q))).some(Boolean);
}

function sectorOfRef(ref) {
  for (const [n, refs] of envRefs) if (refs.includes(ref)) return n;
  return null;
}

/** A question picked by hand into sector n; a blitz collects three questions (or one three-part). */
function assign(n, ref) {
  if (!pack || !packQuestions.has(ref)) return;
  const other = sectorOfRef(ref);
  if (other && other !== n) {
    notice("info", t("setup.pack.already", { ref, n: other }), "", { code: "local" });
    return;
  }
  const q = packQuestions.get(ref);
  let refs = [...(envRefs.get(n) || [])];
  if (need(n) === 1 || isThreePart(q) || refsComplete(n) || refs.some((r) => isThreePart(packQuestions.get(r)))) refs = [ref];
  else if (!refs.includes(ref)) refs.push(ref);
  setRefs(n, refs);
}

function takeRefs(n, text) {
  const refs = text.split(/[\s,;]+/).map((x) => x.trim()).filter(Boolean);
  if (!pack) {
    notice("info", t("setup.pack.choose_first"), "", { code: "local" });
    return;
  }
  const unknown = refs.find((r) => !packQuestions.has(r));
  if (unknown) {
    notice("error", t("setup.pack.no_ref", { ref: unknown }), "", { code: "local" });
    return;
  }
  const clash = refs.find((r) => sectorOfRef(r) && sectorOfRef(r) !== n);
  if (clash) {
    notice("info", t("setup.pack.already", { ref: clash, n: sectorOfRef(clash) }), "", { code: "local" });
    return;
  }
  setRefs(n, refs);
}

async function setRefs(n, refs) {
  envRefs.set(n, refs);
  $(`ref-${n}`).value = refs.join(" ");
  summarize(n);
  markUsed();
  if (!refs.length || !refsComplete(n)) return;
  // the server turns the pack's questions into envelope questions (handouts, blitz parts)
  const data = await apiData("POST", `/api/packs/${encodeURIComponent(pack.id)}/fill`, {
    rules: rules(), sector_count: SECTORS, sectors: [{ number: n, kind: kindOf(n), questions: refs }],
  });
  if (!data) return;
  const sector = data.sectors.find((x) => x.number === n);
  fillEnvelope(n, sector?.questions || [], { open: true });
  notice("ok", t("setup.pack.filled", { n, refs: refs.join(", ") }), "", { code: "ok", ms: 1800 });
}

function setField(n, q, name, value) {
  const el = $(`q-${n}-${q}-${name}`);
  if (el) el.value = value ?? "";
}

/** Put the questions into sector n's form; the prize and, for the same viewer, the photo stay. */
function fillEnvelope(n, questions, { open = false } = {}) {
  questions.forEach((question, q) => {
    const before = $(`q-${n}-${q}-author`).value.trim();
    setField(n, q, "text", question.text);
    setField(n, q, "answer", question.answer);
    setField(n, q, "comment", question.comment);
    setField(n, q, "author", question.author?.name);
    setField(n, q, "city", question.author?.city);
    if (before !== (question.author?.name || "")) setField(n, q, "photo", "");
    const extra = Object.fromEntries(EXTRA_FIELDS.filter((k) => question[k]?.length).map((k) => [k, question[k]]));
    extras.set(`${n}-${q}`, extra);
  });
  const det = document.querySelector(`.envelope[data-sector="${n}"]`);
  if (det && open) det.open = true;
  summarize(n);
  markUsed();
}

function clearEnvelope(n) {
  for (let q = 0; q < 3; q++) {
    for (const [name] of QUESTION_FIELDS) setField(n, q, name, name === "currency" ? "UAH" : "");
    extras.delete(`${n}-${q}`);
  }
  envRefs.delete(n);
  $(`ref-${n}`).value = "";
  summarize(n);
  markUsed();
}

/** Every empty envelope gets questions drawn by the server; filled ones stay as they are. */
async function randomFill() {
  if (!pack) return;
  const tours = [...document.querySelectorAll(".pack-tour-check")].filter((c) => c.checked).map((c) => Number(c.value));
  if (!tours.length) {
    notice("info", t("setup.pack.no_tours"), "", { code: "local" });
    return;
  }
  const sectors = [];
  const exclude = [];
  const empty = [];
  for (let n = 1; n <= SECTORS; n++) {
    const refs = envRefs.get(n) || [];
    if (refs.length && refsComplete(n)) sectors.push({ number: n, kind: kindOf(n), questions: refs });
    else if (envelopeUsed(n)) {
      sectors.push({ number: n, kind: kindOf(n), questions: [] });
      exclude.push(...refs);
    } else {
      sectors.push({ number: n, kind: kindOf(n) });
      empty.push(n);
    }
  }
  if (!empty.length) {
    notice("info", t("setup.pack.all_full"), "", { code: "local" });
    return;
  }
  const body = { rules: rules(), sector_count: SECTORS, random: true, sectors, exclude };
  if (tours.length < (pack.tours || []).length) body.tours = tours;
  $("f-pack-random").disabled = true;
  try {
    const r = await api("POST", `/api/packs/${encodeURIComponent(pack.id)}/fill`, body);
    if (!r.ok) {
      const { title, detail } = noticeRefusal(r.data?.error);
      packStatus(`${title}: ${detail}`, "error");
      return;
    }
    for (const n of empty) {
      const sector = r.data.sectors.find((x) => x.number === n);
      const refs = r.data.refs?.[String(n)] || [];
      envRefs.set(n, refs);
      $(`ref-${n}`).value = refs.join(" ");
      fillEnvelope(n, sector?.questions || []);
    }
    packStatus(t("setup.pack.drawn", { n: empty.length, seed: r.data.seed }), "ok");
    notice("ok", t("setup.pack.drawn", { n: empty.length, seed: r.data.seed }), "", { code: "filled" });
  } finally {
    $("f-pack-random").disabled = !pack;
  }
}

function clearAll() {
  for (let n = 1; n <= SECTORS; n++) clearEnvelope(n);
  packStatus("");
}

// ---- building and checking the spec ----------------------------------------------------------

function question(v, where, errors, extra = null) {
  const q = {};
  // what the pack gave beyond the form's fields: accepted/rejected answers, source, media
  if (extra && v.text) Object.assign(q, extra);
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
  const club = rules() === "club";
  const team = $("f-team").value.trim();
  const names = players();
  if (!club) {
    if (!team) errors.push(t("setup.err.team"));
    if (new Set(names).size !== names.length) errors.push(t("setup.err.same_player"));
  }
  const clubPart = club ? clubSpec(errors) : null;
  const blitz = $("f-blitz").value;
  const superblitz = $("f-superblitz").value;
  if (blitz && blitz === superblitz) errors.push(t("setup.err.same_sector"));
  const timers = {};
  for (const k of club ? CLUB_TIMERS : TIMERS) {
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
        sector.questions = values.map((v, q) => question(v, count > 1 ? `${t("sector.n", { n })}, ${t("setup.question_n", { n: q + 1 })}` : t("sector.n", { n }), errors, extras.get(`${n}-${q}`)));
      }
    }
    sectors.push(sector);
  }
  const spec = club
    ? { rules: "club", target, ...clubPart, sectors, timers }
    : {
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
  renderTeamWarnings();
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
                          h("a", { href: cfg.urls?.panel || "/control/" }, t("setup.go_live"))),
                        ...(r.data.warnings || []).map((w) => h("p", { class: "warn" }, t(`setup.warn.${w.code}`, w))));
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
  $("f-add-team").addEventListener("click", () => addTeam());
  for (const radio of document.querySelectorAll('input[name="rules"]')) radio.addEventListener("change", applyRules);
  $("f-paper").addEventListener("change", () => {
    $("f-envelopes-box").hidden = $("f-paper").checked;
    $("f-pack-box").hidden = $("f-paper").checked;
  });
  $("f-pack").addEventListener("change", () => choosePack($("f-pack").value));
  $("f-pack-random").addEventListener("click", randomFill);
  $("f-clear-envelopes").addEventListener("click", clearAll);
  $("game-form").addEventListener("submit", submit);
  $("f-league").addEventListener("change", chooseHolding);
  if (new URLSearchParams(location.search).get("rules") === "club") $("f-rules-club").checked = true;
  applyRules();
  loadGames();
  loadRenders();
  loadPacks();
  loadLeague();
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
  loadRenders();
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
  document.querySelectorAll(".team-row").forEach((row, i) => {
    row.querySelector(".team-name").placeholder = t("setup.team_n", { n: i + 1 });
    row.querySelector(".team-players").placeholder = t("setup.team_players_hint");
  });
  renderTeamWarnings();
  renderLeague();
  renderPackBox();
  loadPacks();
});
