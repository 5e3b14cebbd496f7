// The draw for the Central Table (club game). While the seat is free the candidates are on
// air (`central.candidates`; after a lost round only once the club tables' answers are in,
// since they decide who the candidates are). When a team sits down after several candidates,
// the reel spins through their names, decelerates and lands on the team the server seated,
// while the top turns above it; a single candidate just sits. The chosen team stays on air
// for HOLD_MS, or until the next round starts, or while the operator has `draw` shown.

import { bdi, fitLines, h, part, setText, show, translateAll } from "../lib/dom.js";

export const ITEM_H = 100;   // px: one name in the reel (the window shows three)
export const SPIN_MS = 4600; // the whole spin, deceleration and settle included
const MIN_STEPS = 24;        // names that pass the window, at least
const HOLD_MS = 8000;        // the chosen team stays this long after landing
const OVERSHOOT = 22;        // px past the chosen name before settling on it

const mod = (a, n) => ((a % n) + n) % n;
const reelAt = (index) => `translateY(${(1 - index) * ITEM_H}px)`; // item `index` in the middle row

/** The reel's order for a spin of `ids` ending on `target`: one name above the first, the
 * names passing the window in a fixed cycle, `target` at index `last`, one name below it. */
export function reelOrder(ids, target) {
  const pool = ids.includes(target) ? ids : [...ids, target];
  const n = pool.length;
  const steps = Math.max(MIN_STEPS, 3 * n);
  const start = mod(pool.indexOf(target) - steps, n);
  const order = [];
  for (let i = -1; i <= steps + 1; i++) order.push(pool[mod(start + i, n)]);
  return { order, last: steps + 1 };
}

export default function create(root, ctx) {
  const el = part(root, "draw");
  const { t } = ctx;
  translateAll(el, t);
  const ref = (name) => el.querySelector(`[data-ref="${name}"]`);
  const title = ref("title");
  const reel = ref("reel");
  const chips = ref("chips");
  const needle = ref("needle");

  let state = null;
  let cued = false;
  let mode = "off"; // off | waiting | spinning | landed
  let spin = null; // {target, pool, anims, raf} while the reel runs
  let landed = null; // {team, game, round, until}
  let holdTimer = 0;
  let chipsKey = "";
  let reelKey = "";

  /** One line of the reel: the name in its own box, fitted to the window by fitReel(). */
  const reelItem = (text, attrs) => h("div", attrs, h("span", { class: "dr-name" }, bdi(text)));

  /** A long name shrinks, then takes two lines: whole in the window, never cut at its sides. */
  function fitReel() {
    // One layout to find the names that overflow (most fit): only those are measured again.
    const over = [...reel.querySelectorAll(".dr-item:not(.ask) .dr-name")]
      .filter((name) => name.dataset.fit || name.scrollWidth > name.clientWidth + 1);
    for (const name of over) fitLines(name, 62, 32, 2);
  }

  const nameOf = (id) => (state?.teams || []).find((x) => x.id === id)?.name ?? String(id);
  const roundKey = (s) => JSON.stringify([s?.round?.sector ?? null, s?.round?.phase === "closed"]);

  function setChips(ids, chosen) {
    const key = JSON.stringify([ids.map((id) => [id, nameOf(id)])]);
    if (key !== chipsKey) {
      chipsKey = key;
      chips.replaceChildren(
        ...ids.map((id, i) => h("li", { class: "dr-chip", "data-team": id, style: `--i: ${i}` }, bdi(nameOf(id)))),
      );
    }
    chips.classList.toggle("single", ids.length < 2);
    for (const li of chips.children) {
      li.classList.toggle("chosen", li.dataset.team === chosen);
      li.classList.toggle("dim", chosen != null && li.dataset.team !== chosen);
      li.classList.remove("hot");
    }
  }

  /** One still line in the middle row: a name, or "?" while nobody has been drawn yet. */
  function setReel(text, cls) {
    const key = JSON.stringify([text, cls]);
    if (key === reelKey) return;
    reelKey = key;
    reel.getAnimations().forEach((a) => a.cancel());
    reel.classList.remove("done");
    reel.replaceChildren(reelItem(text, { class: `dr-item ${cls}` }));
    reel.style.transform = reelAt(0);
    fitReel();
  }

  function stopSpin() {
    if (!spin) return;
    cancelAnimationFrame(spin.raf);
    spin.anims.forEach((a) => a.cancel());
    spin = null;
  }

  /** The chosen team on air: after a spin the reel stays where it stopped and its neighbours
   * fade; otherwise the name is put straight in the middle row. */
  function land(team, game, pool, { spun = false } = {}) {
    stopSpin();
    mode = "landed";
    el.dataset.mode = mode;
    el.dataset.landed = team;
    clearTimeout(holdTimer);
    landed = { team, game, round: roundKey(state), until: performance.now() + HOLD_MS };
    holdTimer = setTimeout(render, HOLD_MS + 20);
    setText(title, t("draw_seated"));
    if (spun) {
      const items = [...reel.children];
      const last = items.length - 2;
      items.forEach((item, i) => item.classList.toggle("won", i === last));
      reel.classList.add("done");
    } else {
      setReel(nameOf(team), "won");
    }
    setChips(pool, team);
  }

  function startSpin(ids, team, game) {
    stopSpin();
    mode = "spinning";
    el.dataset.mode = mode;
    delete el.dataset.landed;
    setText(title, t("draw_spinning"));
    setChips(ids, null);
    const { order, last } = reelOrder(ids, team);
    reelKey = "";
    reel.classList.remove("done");
    reel.replaceChildren(...order.map((id) => reelItem(nameOf(id), { class: "dr-item", "data-team": id })));
    reel.style.transform = reelAt(last);
    fitReel();
    const end = (1 - last) * ITEM_H;
    const run = reel.animate(
      [
        { transform: reelAt(0), easing: "cubic-bezier(0.16, 0.62, 0.2, 1)" },
        { transform: `translateY(${end - OVERSHOOT}px)`, offset: 0.9, easing: "ease-in-out" },
        { transform: `translateY(${end}px)` },
      ],
      { duration: SPIN_MS },
    );
    const turn = needle.animate(
      [{ transform: "rotate(0deg)" }, { transform: "rotate(1800deg)" }], // five turns, back to the top
      { duration: SPIN_MS, easing: "cubic-bezier(0.16, 0.62, 0.2, 1)" },
    );
    spin = { target: team, pool: ids, anims: [run, turn], raf: 0 };
    // The candidate in the middle row lights its chip as the reel passes it.
    let hot = null;
    const follow = () => {
      if (!spin) return;
      const m = new DOMMatrixReadOnly(getComputedStyle(reel).transform);
      const item = reel.children[Math.round(1 - m.m42 / ITEM_H)];
      const id = item?.dataset.team ?? null;
      if (id !== hot) {
        hot = id;
        for (const li of chips.children) li.classList.toggle("hot", li.dataset.team === id);
      }
      spin.raf = requestAnimationFrame(follow);
    };
    spin.raf = requestAnimationFrame(follow);
    run.finished.then(
      () => {
        if (spin?.target !== team) return;
        land(team, game, ids, { spun: true });
      },
      () => {
        /* cancelled: whoever cancelled has drawn the next frame */
      },
    );
  }

  function waiting(ids) {
    stopSpin();
    mode = "waiting";
    el.dataset.mode = mode;
    delete el.dataset.landed;
    landed = null;
    setText(title, t(ids.length > 1 ? "draw_title" : "draw_seated"));
    if (ids.length > 1) setReel("?", "ask");
    else setReel(nameOf(ids[0]), "single");
    setChips(ids, null);
  }

  function off() {
    stopSpin();
    mode = "off";
    el.dataset.mode = mode;
    landed = null;
    show(el, false);
  }

  function render(prev) {
    const c = state?.rules === "club" ? state.central : null;
    if (!c) return off();
    const seat = c.team ?? null;
    const ids = c.candidates || [];

    // A team has just sat down: spin through the candidates it was drawn from.
    const before = prev && prev.id === state.id && prev.rules === "club" ? prev.central : null;
    if (seat && before && before.team == null && (before.candidates || []).length) {
      const pool = before.candidates;
      if (pool.length > 1 && ctx.live) startSpin(pool, seat, state.id);
      else land(seat, state.id, pool);
      show(el, true);
      return;
    }
    if (spin && seat === spin.target) return; // let it land
    if (seat == null && state.status === "playing") {
      // After a lost round the candidates depend on the club tables' answers: wait for them.
      const known = c.left == null || state.round?.club_correct != null;
      if (known && ids.length) {
        waiting(ids);
        show(el, true);
        return;
      }
      return off();
    }
    const holding = landed && landed.team === seat && landed.game === state.id
      && performance.now() < landed.until && landed.round === roundKey(state);
    if (seat && (holding || cued)) {
      if (mode !== "landed" || el.dataset.landed !== seat) {
        land(seat, state.id, [seat]);
        if (!holding) landed.until = -Infinity;
      }
      show(el, true);
      return;
    }
    off();
  }

  document.fonts?.ready.then(fitReel); // measured again in the real face

  return {
    update(s, prev) {
      state = s;
      render(prev);
    },
    cue(onAir) {
      cued = !!onAir.draw;
      render();
    },
    stop() {
      // Taken off the program mid-spin: the result is what matters when it comes back.
      if (spin) land(spin.target, state?.id, spin.pool, { spun: true });
    },
  };
}
