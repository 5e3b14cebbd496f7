// The whole broadcast layout in one page: every graphic's module over one shared connection,
// each updating its own part; the layout only arranges who gives way to whom.

import blitz from "./blitz.js";
import lowerThird from "./lower-third.js";
import question, { questionVisible } from "./question.js";
import result from "./result.js";
import scoreboard from "./scoreboard.js";
import table from "./table.js";
import timer from "./timer.js";

export default function create(stage, ctx) {
  const parts = [table, scoreboard, blitz, question, timer, lowerThird, result].map((make) => make(stage, ctx));
  let state = null;
  let onAir = {};

  const card = stage.querySelector(".qc");

  function arrange() {
    const final = !!state && (state.status === "finished" || !!onAir.result);
    const hasCard = !final && questionVisible(state, ctx.clock);
    stage.classList.toggle("final", final);
    stage.classList.toggle("has-card", hasCard);
    // A long question makes a taller card: lift the lower-third clear of it.
    if (hasCard) stage.style.setProperty("--lift", `${card.offsetHeight + 24}px`);
  }

  return {
    update(s, prev) {
      state = s;
      for (const p of parts) p.update(s, prev);
      arrange();
    },
    cue(graphics, prev) {
      onAir = graphics;
      for (const p of parts) p.cue?.(graphics, prev);
      arrange();
    },
    play() {
      for (const p of parts) p.play?.();
    },
    stop() {
      for (const p of parts) p.stop?.();
    },
  };
}
