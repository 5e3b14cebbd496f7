// Blitz and superblitz: one mark per question, filling green or red with each verdict; the
// current question glows; after a miss the rest are greyed (not asked). Superblitz names its
// single player.

import { fitLines, part, setName, setText, show, translateAll } from "../lib/dom.js";
import { CHECK, CROSS } from "../lib/icons.js";
import { revealed, superseded } from "../lib/reveal.js";

const SVG = "http://www.w3.org/2000/svg";

/** On air in a blitz or superblitz round, once the top's arrow has stopped on its sector. */
export function blitzVisible(state, clock) {
  const r = state?.round;
  return !!r && state.status === "playing" && (r.kind === "blitz" || r.kind === "superblitz") &&
    revealed(state, clock) && !superseded(state);
}

export default function create(root, ctx) {
  const el = part(root, "blitz");
  const { t } = ctx;
  translateAll(el, t);
  const ref = (name) => el.querySelector(`[data-ref="${name}"]`);
  const title = ref("title");
  const marksBox = ref("marks");
  const playerRow = ref("player-row");
  const player = ref("player");
  let marks = [];

  function build(n) {
    if (marks.length === n) return;
    marksBox.replaceChildren();
    marks = [];
    for (let i = 0; i < n; i++) {
      const m = document.createElement("div");
      m.className = "bz-mark";
      const fill = document.createElement("span");
      fill.className = "bz-fill";
      const num = document.createElement("b");
      num.textContent = String(i + 1);
      const icon = document.createElementNS(SVG, "svg");
      icon.setAttribute("viewBox", "0 0 100 100");
      icon.append(document.createElementNS(SVG, "path"));
      m.append(fill, num, icon);
      marksBox.append(m);
      marks.push(m);
    }
  }

  return {
    update(state) {
      const visible = blitzVisible(state, ctx.clock);
      show(el, visible);
      if (!visible) return;
      const r = state.round;
      setText(title, t(`kind_${r.kind}`));
      build(Math.max(1, r.questions || 3));
      const results = r.results || [];
      const missed = results.includes("incorrect");
      marks.forEach((m, i) => {
        const res = results[i] || null;
        const cls = ["bz-mark"];
        if (res) cls.push(res);
        else if (missed || r.phase === "closed") cls.push("skipped");
        else if (i === r.question) cls.push("current");
        m.className = cls.join(" ");
        m.querySelector("path").setAttribute("d", res === "correct" ? CHECK : res === "incorrect" ? CROSS : "");
      });
      const name = r.kind === "superblitz" ? r.player || "" : "";
      playerRow.classList.toggle("none", !name);
      if (setName(player, name) || player.dataset.fit === undefined) fitLines(player, 40, 28, 2);
    },
  };
}
