// The audience page: score, the round (once the arrow has stopped; the answer once judged: the
// public state holds nothing earlier), club tables, game table, the league's season rating
// (fetched again on each `league` notice). Plain, for a phone: redrawn from each state.

import { bdi, endLine, h, setName, setText } from "../lib/dom.js";
import { leagueText } from "../lib/league.js";
import { revealed } from "../lib/reveal.js";
import { formatRemaining, remainingMs } from "../lib/timer.js";

export default function create(stage, ctx) {
  const { t } = ctx;
  const field = (name) => stage.querySelector(`[data-field="${name}"]`);
  for (const el of stage.querySelectorAll("[data-t]")) setText(el, t(el.dataset.t));
  document.title = t("live_title");
  let state = null;
  let ticking = null;

  function drawTimer() {
    const timer = state?.timer;
    setText(field("timer"), timer ? formatRemaining(remainingMs(timer, ctx.clock), t.locale?.startsWith("en") ? "." : ",") : "");
    field("timer").classList.toggle("running", !!timer?.running);
  }

  function update(next) {
    state = next;
    document.body.classList.toggle("no-game", !state);
    clearInterval(ticking);
    if (!state) return;
    // a club game: the team at the Central Table
    const team = (state.teams || []).find((x) => x.id === state.central?.team);
    setName(field("experts"), (team || state.experts)?.name || t("experts"));
    setText(field("score-experts"), String(state.score?.experts ?? 0));
    setText(field("score-viewers"), String(state.score?.viewers ?? 0));
    setText(field("winner"), endLine(state, t));
    const round = revealed(state, ctx.clock) ? state.round : null;
    document.body.classList.toggle("has-round", !!round);
    if (round) {
      const kind = t(`kind_${round.kind}`);
      setText(field("sector"), `${kind} ${round.sector}` + (round.questions > 1 ? ` · ${round.question + 1}/${round.questions}` : ""));
      setText(field("question"), round.text || "");
      setText(field("answer"), round.answer || "");
      field("answer").parentElement.hidden = !round.answer;
    }
    const teams = Array.isArray(state.teams) ? state.teams : [];
    stage.querySelector(".tables").hidden = !teams.length;
    field("tables").replaceChildren(...[...teams].sort((a, b) => (b.gain ?? 0) - (a.gain ?? 0))
      .map((team) => h("li", {}, h("span", {}, bdi(team.name)), h("b", {}, String(team.gain ?? 0)))));
    const cur = round?.sector;  // the sector in play, once the arrow has stopped
    field("sectors").replaceChildren(...(state.sectors || []).map((s) =>
      h("li", { class: `sector ${s.played ? "played" : ""} ${s.result || ""} ${s.number === cur ? "current" : ""}`,
                title: t(`kind_${s.kind}`), "aria-current": s.number === cur ? "true" : null }, String(s.number))));
    drawTimer();
    if (state.timer?.running) ticking = setInterval(drawTimer, 100);
  }

  const league = stage.querySelector(".league");
  setText(field("league-title"), leagueText(t.lang)("title"));
  async function loadLeague() {
    try {
      const index = await (await fetch("/api/public/league", { cache: "no-store" })).json();
      const season = (index.seasons || []).at(-1);
      if (!season) return;
      const view = await (await fetch(`/api/public/seasons/${encodeURIComponent(season.id)}?top=10`,
        { cache: "no-store" })).json();
      const rows = view.rating || [];
      league.hidden = !rows.length;
      field("league-title").replaceChildren(`${leagueText(t.lang)("title")} · `, bdi(season.name));
      field("league").replaceChildren(...rows.map((r) =>
        h("li", {}, h("span", {}, `${r.place}. `, bdi(r.player)), h("b", {}, t.number(r.points)))));
    } catch {
      /* away: keep what is shown; the next notice fetches again */
    }
  }
  loadLeague();
  setTimeout(() => window.chgkOverlay?.socket.on("league", loadLeague), 0);

  return { update };
}
