// The club league season's individual rating, top players (RULES.md §5: correct + Central
// Table answers per qualifying game). Not game state but a cue: on air while `graphics` has
// "season-rating" shown, data {season?, top?, title?}. The rows come from the public league
// endpoint (lib/league.js).

import { bdi, h, part, setText } from "../lib/dom.js";
import { leagueGraphic, leagueText } from "../lib/league.js";

const NAME = "season-rating";
const DEFAULT_TOP = 10;
const TWO_COLUMNS_FROM = 11;

export default function create(root, ctx) {
  const el = part(root, NAME);
  const tx = leagueText(ctx.config.lang, ctx.catalog);
  const ref = (name) => el.querySelector(`[data-ref="${name}"]`);
  const f = { title: ref("title"), sub: ref("sub"), list: ref("list"), empty: ref("empty") };
  const query = new URLSearchParams(location.search);

  function top(cueData) {
    const n = Number(cueData.top ?? query.get("top") ?? DEFAULT_TOP);
    return Number.isInteger(n) && n > 0 ? Math.min(n, 20) : DEFAULT_TOP;
  }

  function draw(data, cueData) {
    if (!data) return false;
    setText(f.title, cueData.title || tx("title"));
    setText(f.sub, data.season?.name || "");
    const rows = (data.rating || []).slice(0, top(cueData));
    el.classList.toggle("two", rows.length >= TWO_COLUMNS_FROM);
    f.list.style.setProperty("--rows", String(rows.length >= TWO_COLUMNS_FROM ? Math.ceil(rows.length / 2) : rows.length));
    const key = JSON.stringify(rows);
    if (f.list.dataset.key !== key) {
      f.list.dataset.key = key;
      f.list.replaceChildren(...rows.map((r) => h("li", { class: "sr-row", "data-player": r.player },
        h("span", { class: "sr-place", text: String(r.place) }),
        h("span", { class: "sr-name" }, bdi(r.player)),
        h("span", { class: "sr-games", text: tx.n("games_n", r.games) }),
        h("span", { class: "sr-points", text: String(r.points) }))));
    }
    setText(f.empty, rows.length ? "" : tx("empty"));
    el.dataset.season = data.season?.id || "";
    return true;
  }

  return leagueGraphic(NAME, "seasons", el, ctx, draw);
}
