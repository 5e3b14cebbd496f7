// Club tables (club game): every team of the game as a numbered table, lit when it wrote a
// correct answer to this question (`round.club_correct`). The team at the Central Table
// carries the owl; teams that have already lost a round at the Central Table carry a stripe.
// On air while a club game is followed (the operator hides it between questions if wanted).

import { bdi, fitLines, h, part, setText, show, translateAll } from "../lib/dom.js";
import { CHECK } from "../lib/icons.js";
import { revealed } from "../lib/reveal.js";

const SVG = "http://www.w3.org/2000/svg";
const STAGGER_MS = 55; // correct tables light up one after another, in table order

function icon(d, cls) {
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", "0 0 100 100");
  svg.setAttribute("class", cls);
  svg.setAttribute("aria-hidden", "true");
  const path = document.createElementNS(SVG, "path");
  path.setAttribute("d", d);
  path.setAttribute("fill-rule", "evenodd");
  svg.append(path);
  return svg;
}

/** Columns and tile width for n tables: the board grows with the club, up to five columns. */
function gridFor(n) {
  if (n <= 4) return { cols: 2, tile: 520 };
  if (n <= 9) return { cols: 3, tile: 460 };
  if (n <= 16) return { cols: 4, tile: 405 };
  return { cols: 5, tile: 328 };
}

export default function create(root, ctx) {
  const el = part(root, "club-tables");
  const { t } = ctx;
  translateAll(el, t);
  const ref = (name) => el.querySelector(`[data-ref="${name}"]`);
  const grid = ref("grid");
  const sector = ref("sector");
  const count = ref("count");
  let tiles = new Map(); // team id -> <li>
  let layoutKey = "";
  let answersKey = null; // the round and list whose marks are shown

  function build(teams) {
    const key = JSON.stringify(teams.map((x) => [x.id, x.name]));
    if (key === layoutKey) return;
    layoutKey = key;
    answersKey = null;
    const { cols, tile } = gridFor(teams.length);
    el.style.setProperty("--cols", String(cols));
    el.style.setProperty("--tile-w", `${tile}px`);
    tiles = new Map();
    grid.replaceChildren(
      ...teams.map((team, i) => {
        const li = h(
          "li",
          { class: "ctb-tile", "data-team": team.id },
          h("span", { class: "ctb-glow", "aria-hidden": "true" }),
          h("span", { class: "ctb-num", text: String(i + 1) }),
          h(
            "span",
            { class: "ctb-badges" },
            h("span", { class: "ctb-ok" }, icon(CHECK, "ctb-check")),
            h("span", { class: "owl ctb-owl", "aria-hidden": "true" }),
          ),
          h("span", { class: "ctb-name" }, bdi(team.name)),
        );
        tiles.set(team.id, li);
        return li;
      }),
    );
    fitNames();
    document.fonts?.ready.then(fitNames); // measured again in the real face
  }

  /** A long team name shrinks, then takes two lines broken between words — never mid-word;
   * a name still too long takes a tile two tables wide (up to three lines there). Never cut. */
  function fitNames() {
    for (const li of tiles.values()) li.classList.remove("wide");
    const over = [...grid.querySelectorAll(".ctb-name")].filter((name) => fitLines(name, 32, 28, 2) === "over");
    for (const name of over) name.closest(".ctb-tile").classList.add("wide");
    for (const name of over) fitLines(name, 32, 28, 3);
  }

  function paint(state) {
    const round = state.round;
    const answered = round?.club_correct ?? null;
    const correct = new Set(answered || []);
    const asked = round?.central_team ?? null; // answered aloud this question
    const seated = state.central?.team ?? null;
    const verdict = round?.judged ? round.results?.[round.results.length - 1] : null;
    // A new list lights its tables one by one; the same list repainted does not replay.
    const key = JSON.stringify([round?.sector ?? null, answered]);
    const reveal = answered && key !== answersKey && ctx.live;
    answersKey = key;
    let k = 0;
    for (const team of state.teams) {
      const li = tiles.get(team.id);
      if (!li) continue;
      const ok = correct.has(team.id) || (team.id === asked && verdict === "correct");
      li.classList.toggle("ok", ok);
      li.classList.toggle("miss", !!answered && !ok && team.id !== seated);
      li.classList.toggle("central", team.id === seated);
      li.classList.toggle("lost", !!team.lost_round && team.id !== seated);
      li.style.setProperty("--k", reveal && ok ? String(k++) : "0");
    }
    el.style.setProperty("--stagger", reveal ? `${STAGGER_MS}ms` : "0ms");

    // The sector once the top's arrow has stopped on it (the client draws again then).
    setText(sector, round && revealed(state, ctx.clock) ? t("sector_n", { n: round.sector }) : "");
    const tables = state.teams.filter((x) => x.id !== asked).length;
    if (!round) setText(count, "");
    else if (answered) setText(count, t("answered_n_of", { n: answered.length, total: tables }));
    else setText(count, t("answers_pending"));
    count.classList.toggle("pending", !!round && !answered);
  }

  return {
    update(state) {
      const club = !!state && state.rules === "club" && Array.isArray(state.teams) && state.teams.length > 0;
      show(el, club);
      if (!club) return;
      build(state.teams);
      paint(state);
    },
  };
}
