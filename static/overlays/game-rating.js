// This game's rating (club game): teams by `gain` = correct + central_correct, so an answer
// at the Central Table counts twice. Updated live: a team that moves slides to its new place
// (FLIP: the row is laid out at its new place at once and a transform carries it there from
// where it was on screen), a changed number pops. Shared places read "2–3".

import { bdi, fitLines, h, part, pulse, setName, setText, show, translateAll } from "../lib/dom.js";

const MOVE_MS = 900;
const TWO_COLUMNS_FROM = 11; // teams: above ten the table is split in two columns

/** "2026-03-01-sun" → "1 марта 2026" in the page's language; a league holding's id
 * ("s1-d2-wed") → "Игровой день 2 · среда"; anything else as it is. */
export function gameDay(day, t) {
  const holding = /^[\w-]+-d(\d+)-(sun|wed)$/.exec(day || "");
  if (holding) return `${t("league_game_day", { n: holding[1] })} · ${t(`league_weekday_${holding[2]}`)}`;
  const m = /^(\d{4})-(\d{2})-(\d{2})/.exec(day || "");
  if (!m) return day || "";
  const date = new Date(Date.UTC(+m[1], +m[2] - 1, +m[3]));
  return new Intl.DateTimeFormat(t.locale, { day: "numeric", month: "long", year: "numeric", timeZone: "UTC" })
    .format(date).replace(/\s*[гр]\.$/, ""); // no "г." / "р." after the year on air
}

const gainOf = (team) => team.gain ?? (team.correct || 0) + (team.central_correct || 0);

/** Teams in rating order with their places: gain, then table order; equal gains share a
 * place ("2–3"). */
export function ranking(teams) {
  const rows = teams.map((team, table) => ({ team, table, gain: gainOf(team) }));
  rows.sort((a, b) => b.gain - a.gain || a.table - b.table);
  let i = 0;
  while (i < rows.length) {
    let j = i;
    while (j + 1 < rows.length && rows[j + 1].gain === rows[i].gain) j++;
    const place = i === j ? String(i + 1) : `${i + 1}–${j + 1}`;
    for (let k = i; k <= j; k++) rows[k].place = place;
    i = j + 1;
  }
  return rows;
}

export default function create(root, ctx) {
  const el = part(root, "game-rating");
  const { t } = ctx;
  translateAll(el, t);
  const ref = (name) => el.querySelector(`[data-ref="${name}"]`);
  const list = ref("list");
  const cols = ref("cols");
  const sub = ref("sub");
  const rows = new Map(); // team id -> {li, place, name, correct, central, gain}
  let colCount = 0;

  function header(n) {
    if (n === colCount) return;
    colCount = n;
    el.classList.toggle("two", n === 2);
    const one = () =>
      h(
        "div",
        { class: "gr-colhead" },
        h("span", { class: "gr-c-place" }),
        h("span", { class: "gr-c-name", text: t("team") }),
        h("span", { class: "gr-c-num", text: t("col_correct") }),
        h("span", { class: "gr-c-num", text: t("col_central") }),
        h("span", { class: "gr-c-num gr-c-gain", text: t("col_points") }),
      );
    cols.replaceChildren(...Array.from({ length: n }, one));
  }

  function row(team) {
    let r = rows.get(team.id);
    if (r) return r;
    const cell = (cls) => h("span", { class: cls });
    r = {
      place: cell("gr-place"),
      name: cell("gr-name"),
      correct: cell("gr-num"),
      central: cell("gr-num gr-central"),
      gain: cell("gr-num gr-gain"),
    };
    r.li = h("li", { class: "gr-row", "data-team": team.id },
      r.place, h("span", { class: "gr-team" }, h("span", { class: "owl gr-ct", "aria-hidden": "true" }), r.name),
      r.correct, r.central, r.gain);
    rows.set(team.id, r);
    return r;
  }

  /** Where a row is on screen now, in stage pixels: its layout box plus any slide in flight. */
  function seen(li) {
    const m = new DOMMatrixReadOnly(getComputedStyle(li).transform);
    return [li.offsetLeft + m.m41, li.offsetTop + m.m42];
  }

  function render(state, prev) {
    const teams = state.teams;
    const n = teams.length > TWO_COLUMNS_FROM - 1 ? 2 : 1;
    const widthChanged = n !== colCount; // one column or two: every name is measured again
    header(n);
    const perColumn = Math.ceil(teams.length / n);
    list.style.setProperty("--rows", String(perColumn));

    const sameGame = !!prev && prev.id === state.id;
    const animate = ctx.live && sameGame && el.classList.contains("is-in");
    const before = new Map();
    if (animate) for (const [id, r] of rows) before.set(id, seen(r.li));

    const ids = new Set(teams.map((x) => x.id));
    for (const [id, r] of rows) {
      if (!ids.has(id)) {
        r.li.remove();
        rows.delete(id);
      }
    }
    const old = new Map((sameGame ? prev.teams || [] : []).map((x) => [x.id, x]));
    const seat = state.central?.team ?? null;
    const order = ranking(teams);
    const toFit = [];
    order.forEach(({ team, place, gain }, i) => {
      const r = row(team);
      r.was = r.rank ?? i;
      r.rank = i;
      setText(r.place, place);
      if (setName(r.name, team.name) || widthChanged || r.name.dataset.fit === undefined) toFit.push(r.name);
      setText(r.correct, team.correct ?? 0);
      setText(r.central, team.central_correct ?? 0);
      const changed = setText(r.gain, gain);
      if (changed && animate && old.has(team.id)) pulse(r.gain, "pop");
      r.li.classList.toggle("central", team.id === seat);
      r.li.classList.toggle("odd", (i % perColumn) % 2 === 1); // stripes line up across columns
      list.append(r.li); // in rating order: the grid lays the rows out column by column
    });
    toFit.forEach(fitName); // once laid out in their rows

    if (!animate) return;
    for (const [id, r] of rows) {
      const from = before.get(id);
      if (!from) continue;
      r.li.getAnimations().forEach((a) => a.cancel());
      const dx = from[0] - r.li.offsetLeft;
      const dy = from[1] - r.li.offsetTop;
      if (Math.abs(dx) < 0.5 && Math.abs(dy) < 0.5) continue;
      r.li.classList.toggle("rising", r.rank < r.was);
      r.li.animate(
        [{ transform: `translate(${dx}px, ${dy}px)` }, { transform: "none" }],
        { duration: MOVE_MS, easing: "cubic-bezier(0.22, 1, 0.36, 1)" },
      ).finished.then(() => r.li.classList.remove("rising"), () => {});
    }
  }

  /** A long team name shrinks, then takes two lines (between words) within its row: never cut. */
  function fitName(name) {
    if (fitLines(name, 34, 26, 1) === "over") fitLines(name, 28, 22, 2);
  }

  function refit() {
    for (const r of rows.values()) fitName(r.name);
  }
  document.fonts?.ready.then(refit); // measured again in the real face

  return {
    update(state, prev) {
      const club = !!state && state.rules === "club" && Array.isArray(state.teams) && state.teams.length > 0;
      show(el, club);
      if (!club) return;
      // the game's title may be Hebrew or Arabic too: isolated, so the date keeps its place
      const day = gameDay(state.game_day, t);
      const key = `${state.title || ""}\n${day || ""}`;
      if (sub.dataset.key !== key) {
        sub.dataset.key = key;
        sub.replaceChildren(...[state.title && bdi(state.title), day].filter(Boolean).flatMap((x, i) => (i ? [" · ", x] : [x])));
      }
      render(state, prev);
    },
  };
}
