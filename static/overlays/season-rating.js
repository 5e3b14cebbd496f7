// The club league season's individual rating, top players (RULES.md §5: correct + Central
// Table answers per qualifying game). Not game state but a cue: on air while `graphics` has
// "season-rating" shown, data {season?, top?, title?}. The rows come from the public league
// endpoint (lib/league.js).

import { bdi, fitLines, h, part, setText } from "../lib/dom.js";
import { LEAGUE_TOP, leagueGraphic, leagueText } from "../lib/league.js";

const NAME = "season-rating";
const DEFAULT_TOP = 10;
const TWO_COLUMNS_FROM = 11;
// The list's height inside the safe area (972 px) under the board's head: rows get shorter
// (and their words smaller) when a column holds more than ten.
const LIST_HEIGHT = 800;
const ROW_MAX = 62;

export default function create(root, ctx) {
  const el = part(root, NAME);
  const tx = leagueText(ctx.config.lang, ctx.catalog);
  const ref = (name) => el.querySelector(`[data-ref="${name}"]`);
  const f = { title: ref("title"), sub: ref("sub"), list: ref("list"), empty: ref("empty") };
  const query = new URLSearchParams(location.search);

  function top(cueData) {
    const n = Number(cueData.top ?? query.get("top") ?? DEFAULT_TOP);
    return Number.isInteger(n) && n > 0 ? Math.min(n, LEAGUE_TOP) : DEFAULT_TOP;
  }

  function draw(data, cueData) {
    if (!data) return false;
    setText(f.title, cueData.title || tx("title"));
    setText(f.sub, data.season?.name || "");
    const rows = (data.rating || []).slice(0, top(cueData));
    el.classList.toggle("two", rows.length >= TWO_COLUMNS_FROM);
    const perColumn = rows.length >= TWO_COLUMNS_FROM ? Math.ceil(rows.length / 2) : rows.length;
    const rowH = Math.min(ROW_MAX, Math.floor(LIST_HEIGHT / Math.max(perColumn, 1)));
    f.list.style.setProperty("--rows", String(perColumn));
    f.list.style.setProperty("--row-h", `${rowH}px`);
    f.list.style.setProperty("--row-font", `${Math.round(rowH * 0.55)}px`);
    const key = JSON.stringify(rows);
    if (f.list.dataset.key !== key) {
      f.list.dataset.key = key;
      f.list.replaceChildren(...rows.map((r) => h("li", { class: "sr-row", "data-player": r.player },
        h("span", { class: "sr-place", text: String(r.place) }),
        h("span", { class: "sr-name" }, bdi(r.player)),
        h("span", { class: "sr-games", text: tx.n("games_n", r.games) }),
        h("span", { class: "sr-points", text: String(r.points) }))));
    }
    fitNames(rowH);
    document.fonts?.ready.then(() => fitNames(rowH)); // measured again in the real face
    setText(f.empty, rows.length ? "" : tx("empty"));
    el.dataset.season = data.season?.id || "";
    return true;
  }

  /** A long name shrinks, then takes two lines (broken between words) within its row: never cut. */
  function fitNames(rowH) {
    const size = Math.round(rowH * 0.55);
    const twoLines = Math.max(16, Math.floor((rowH - 6) / 2.1)); // two lines at line-height 1.05 fit the row
    for (const name of f.list.querySelectorAll(".sr-name")) fitLines(name, size, Math.min(size, twoLines), 2);
  }

  return leagueGraphic(NAME, "seasons", el, ctx, draw);
}
