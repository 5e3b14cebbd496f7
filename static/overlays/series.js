// The «Star Wars» series (seed 000 §2): the qualifying duels (each team's score against the
// viewers, the team that advances in gold) and the final series table (best margin first).
// A cue: on air while `graphics` has "series" shown, data {series?}. Public data only.

import { bdi, h, part, setText } from "../lib/dom.js";
import { leagueGraphic, leagueText } from "../lib/league.js";

const NAME = "series";

const margin = (g) => g.score.experts - g.score.viewers;

export default function create(root, ctx) {
  const el = part(root, NAME);
  const tx = leagueText(ctx.config.lang, ctx.catalog);
  const ref = (name) => el.querySelector(`[data-ref="${name}"]`);
  const f = { title: ref("title"), duels: ref("duels"), final: ref("final"), winner: ref("winner"),
              duelsLabel: ref("duels-label"), finalLabel: ref("final-label"), none: ref("none") };
  function entry(g, winner) {
    const finished = g.status === "finished";
    return h("div", { class: `sw-entry${g.team === winner ? " won" : ""}${finished ? "" : " playing"}`, "data-team": g.team },
      h("span", { class: "sw-team" }, bdi(g.team)),
      h("span", { class: "sw-score", text: `${g.score.experts}:${g.score.viewers}` }));
  }

  function draw(data) {
    if (!data) return false;
    setText(f.title, data.name || tx("series"));
    setText(f.duelsLabel, tx("duels"));
    setText(f.finalLabel, tx("final_series"));
    const key = JSON.stringify([data.duels, data.final]);
    if (f.duels.dataset.key !== key) {
      f.duels.dataset.key = key;
      f.duels.replaceChildren(...data.duels.map((d) => h("div", { class: "sw-duel panel", "data-scope": d.scope },
        ...d.games.map((g) => entry(g, d.winner)))));
      // the final table: finished games by margin (the rules' order), games still playing after
      const games = [...(data.final?.games || [])].sort((a, b) =>
        (b.status === "finished") - (a.status === "finished") || margin(b) - margin(a));
      f.final.replaceChildren(...games.map((g, i) => h("li", {},
        h("span", { class: "sw-place", text: String(i + 1) }), entry(g, data.final.winner))));
      f.final.classList.toggle("empty", !games.length);
      setText(f.none, games.length ? "" : tx("to_play"));
    }
    const won = data.winner ? `${tx("winner")}: ${data.winner}` : "";
    if (f.winner.textContent !== won) f.winner.replaceChildren(...(data.winner ? [`${tx("winner")}: `, bdi(data.winner)] : []));
    el.dataset.winner = data.winner || "";
    return true;
  }

  // cue-driven only: the followed game does not choose the series
  return leagueGraphic(NAME, "series", el, ctx, draw);
}
