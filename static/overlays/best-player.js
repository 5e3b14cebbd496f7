// Best player of the Central Table (club game), full screen: named by the host after the
// experts' win (`best_player`), with the team they played for at the Central Table and the
// final score. On air while the game has a best player (the operator can hide it and show it
// again through `graphics`).

import { fitText, part, setName, setText, show, translateAll } from "../lib/dom.js";

/** The team a best player sat at the Central Table with: the seated teams first (in seating
 * order), then any team of the game that lists the name. */
export function teamOf(state, player) {
  const teams = state?.teams || [];
  const seated = (state?.central?.seated || []).map((id) => teams.find((x) => x.id === id)).filter(Boolean);
  return [...seated, ...teams].find((x) => (x.players || []).includes(player)) || null;
}

export default function create(root, ctx) {
  const el = part(root, "best-player");
  const { t } = ctx;
  translateAll(el, t);
  const ref = (name) => el.querySelector(`[data-ref="${name}"]`);
  const name = ref("name");
  const team = ref("team");
  const score = ref("score");

  /** One line, as large as fits; a name too long even at 72 px breaks into lines instead. */
  function fitName() {
    name.classList.remove("wrap");
    if (fitText(name, 132, 72) > 72 || name.scrollWidth <= name.clientWidth + 1) return;
    name.classList.add("wrap");
    fitText(name, 96, 64);
  }

  return {
    update(state) {
      const player = state?.rules === "club" ? state.best_player : null;
      // Leaving: keep the last name on screen while the exit runs.
      show(el, !!player);
      if (!player) return;
      if (setName(name, player)) {
        fitName();
        document.fonts?.ready.then(fitName); // measured again in the real face
      }
      setName(team, teamOf(state, player)?.name || "");
      const s = state.score || {};
      const won = state.winner === "experts" ? `${t("winner_experts")} · ` : "";
      setText(score, `${won}${s.experts ?? 0} : ${s.viewers ?? 0}`);
    },
  };
}
