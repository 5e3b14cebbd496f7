// Central Table (club game): the team that sits there now and its players, as a lower third.
// On air while a team is seated and the game is being played (or while the operator has
// `central-table` shown). A new team never appears on the old strap: the strap goes out first,
// then comes back in with the new names.

import { bdi, fitLines, h, part, setName, show, translateAll } from "../lib/dom.js";

const SWAP_MS = 420; // the strap's exit (--t-out, 380 ms) and a margin

/** The team seated at the Central Table of a club state, or null. */
export function centralTeam(state) {
  if (!state || state.rules !== "club") return null;
  const id = state.central?.team;
  return (id && (state.teams || []).find((team) => team.id === id)) || null;
}

export default function create(root, ctx) {
  const el = part(root, "central-table");
  translateAll(el, ctx.t);
  const name = el.querySelector('[data-ref="name"]');
  const players = el.querySelector('[data-ref="players"]');
  let state = null;
  let cued = false;
  let shownKey = null; // what the strap holds while in (null: out)
  let outAt = -Infinity; // when the strap last started its exit
  let swapTimer = 0;

  const fitName = () => name.textContent && fitLines(name, 60, 40, 2);

  function fill(team) {
    setName(name, team.name);
    fitName();
    document.fonts?.ready.then(fitName); // measured again in the real face
    players.replaceChildren(...(team.players || []).map((p, i) => h("li", { class: "strap-line", style: `--i: ${i}`, }, bdi(p))));
  }

  function render() {
    const team = centralTeam(state);
    const want = team && (state.status === "playing" || cued) ? team : null;
    const key = want ? JSON.stringify([want.id, want.name, want.players]) : null;
    if (key === shownKey) return;
    clearTimeout(swapTimer);
    const wasIn = shownKey !== null;
    const sameTeam = wasIn && want && JSON.parse(shownKey)[0] === want.id;
    shownKey = key;
    if (!want) {
      show(el, false);
      outAt = performance.now();
      return;
    }
    if (sameTeam) {
      fill(want); // a corrected line-up: no need to take the strap out
      return;
    }
    if (wasIn) {
      show(el, false);
      outAt = performance.now();
    }
    // Still leaving (or just left): wait for the exit before the new names go on the strap.
    const wait = ctx.live ? Math.max(0, SWAP_MS - (performance.now() - outAt)) : 0;
    const enter = () => {
      fill(want);
      show(el, true);
    };
    if (wait > 0) swapTimer = setTimeout(enter, wait);
    else enter();
  }

  return {
    update(s) {
      state = s;
      render();
    },
    cue(onAir) {
      cued = !!onAir["central-table"];
      render();
    },
  };
}
