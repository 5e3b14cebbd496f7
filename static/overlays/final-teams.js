// The season Final (seed 004): the Club team and the Central Table team (as proposed, then as
// they play: a Final game's line-up replaces the proposal), each team's tv game
// score once it is played, the winner and the Crystal Sphinx once decided. A cue: on air while
// `graphics` has "final-teams" shown, data {season?}. Data from the public league endpoint
// (lib/league.js).

import { bdi, h, part, setText } from "../lib/dom.js";
import { leagueGraphic, leagueText } from "../lib/league.js";

const NAME = "final-teams";

export default function create(root, ctx) {
  const el = part(root, NAME);
  const tx = leagueText(ctx.config.lang, ctx.catalog);
  const ref = (name) => el.querySelector(`[data-ref="${name}"]`);
  const f = {
    title: ref("title"), sub: ref("sub"), foot: ref("foot"),
    club: ref("club"), central: ref("central"), clubName: ref("club-name"), centralName: ref("central-name"),
    clubScore: ref("club-score"), centralScore: ref("central-score"),
  };

  function players(list, names) {
    const key = JSON.stringify(names);
    if (list.dataset.key === key) return;
    list.dataset.key = key;
    list.replaceChildren(...names.map((n) => h("li", { class: "ft-player" }, bdi(n))));
  }

  function score(box, game) {
    setText(box, game ? `${game.score.experts} : ${game.score.viewers}` : "");
    box.classList.toggle("playing", !!game && game.status !== "finished");
  }

  function draw(data) {
    const teams = data?.final_teams;
    if (!teams) return false;
    setText(f.title, tx("final"));
    setText(f.sub, data.season?.name || "");
    setText(f.clubName, tx("club"));
    setText(f.centralName, tx("central_table"));
    const games = data.final?.games || [];
    // once a Final game is made, its line-up is the team (six who played, not the proposal)
    const played = (team) => games.find((g) => g.final_team === team && g.players?.length)?.players;
    players(f.club, played("club") || teams.club);
    players(f.central, played("central_table") || teams.central_table);
    const proposal = !played("club") || !played("central_table"); // a team still shown as proposed
    score(f.clubScore, games.find((g) => g.final_team === "club"));
    score(f.centralScore, games.find((g) => g.final_team === "central_table"));
    const winner = data.final?.winner;
    for (const box of el.querySelectorAll(".ft-team")) box.classList.toggle("won", box.dataset.team === winner);
    el.dataset.winner = winner || "";
    const sphinx = data.awards?.crystal_sphinx;
    const foot = winner
      ? [`${tx("winner")}: ${tx(winner)}`, ...(sphinx ? [` · ${tx("sphinx")}: `, bdi(sphinx)] : [])]
      : [teams.provisional && proposal ? tx("provisional") : ""];
    if (f.foot.textContent !== foot.map((x) => x.textContent ?? x).join("")) f.foot.replaceChildren(...foot);
    return true;
  }

  return leagueGraphic(NAME, "seasons", el, ctx, draw);
}
