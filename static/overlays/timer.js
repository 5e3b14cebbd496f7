// Timer: counts down locally from the server's `ends_at` (corrected by the clock offset), so
// every screen shows the same tenth; each frame shows the countdown as it is when that frame
// reaches the screen, not when it was drawn. Warning look in the last 10 s, time-up look at zero,
// optional signals (?sound=1) at start, at 10 s left and at time-up.
//
// Cheap to leave on air: the hand sweeps on the compositor (an animation, not a script each
// frame), and the page's frames run only around the instants when digits or ticks change (from
// LEAD_MS before each), sleeping in between — a running minute cost Chromium ~0.3 of a core in
// software compositing when every frame ran the script.

import { part, setText, show } from "../lib/dom.js";
import { revealed } from "../lib/reveal.js";
import { FramePace, WARNING_MS, formatRemaining, remainingMs } from "../lib/timer.js";

const TICKS = 60;
const LEAD_MS = 120; // frames run from this long before a change: a late wake still draws it on time
const SHOWN_PHASES = new Set(["discussion", "answer", "club_help"]);

/** Identity of one countdown: a new minute, blitz question, extra minute or club help. */
function countdownKey(state) {
  const r = state?.round;
  const tm = state?.timer;
  if (!tm) return "";
  return [state.id, r?.sector, r?.question, tm.kind, tm.duration_ms].join("|");
}

/** Whether the timer is on air. Never while the top still turns (`round.reveal_at`): a blitz
 * timer's «Блиц», or any countdown of the new round, would give the sector away; the shared
 * client draws the state again at the reveal. */
export function timerVisible(state, clock) {
  const tm = state?.timer;
  if (!tm || state.status !== "playing") return false;
  if (clock && !revealed(state, clock)) return false;
  if (tm.running) return true;
  const r = state.round;
  if (!r || !SHOWN_PHASES.has(r.phase)) return false;
  // An early answer never started the minute: there is nothing to count.
  return !(r.early && (tm.remaining_ms ?? 0) >= tm.duration_ms);
}

/** Milliseconds (of `rem`) until the next change of the digits (formatRemaining) or of the
 * ticks gone (`nGone` of TICKS, over `duration`). */
export function untilChange(rem, duration, nGone) {
  const digits = rem > WARNING_MS ? Math.max((Math.ceil(rem / 1000) - 1) * 1000, WARNING_MS)
    : rem === WARNING_MS ? rem : (Math.ceil(rem / 100) - 1) * 100; // at 10 s the tenths begin at once
  const tick = nGone < TICKS ? duration * (1 - (nGone + 1) / TICKS) : 0;
  return rem - Math.max(digits, tick, 0);
}

export default function create(root, ctx) {
  const el = part(root, "timer");
  const { t, clock } = ctx;
  const ref = (name) => el.querySelector(`[data-ref="${name}"]`);
  const digits = ref("digits");
  const kind = ref("kind");
  const hand = ref("hand");
  const up = ref("up");
  up.textContent = t("time_up");
  const decimal = t.lang === "en" ? "." : ",";

  const ticks = [];
  const tickBox = ref("ticks");
  for (let i = 0; i < TICKS; i++) {
    const tick = document.createElement("i");
    tick.className = "tm-tick";
    tick.style.transform = `rotate(${i * (360 / TICKS)}deg)`;
    tickBox.append(tick);
    ticks.push(tick);
  }

  let timer = null;
  let key = "";
  let visible = false;
  let raf = 0;
  let wake = 0; // a timeout while the frames sleep between changes
  let sweep = null; // the hand's turn while the countdown runs
  let gone = -1;
  let lastRemaining = null; // what the previous frame showed for this countdown
  const pace = new FramePace();
  const signalled = { start: "", warning: "", timeup: "" };

  function signal(name) {
    if (signalled[name] === key) return;
    signalled[name] = key;
    ctx.sound(name);
  }

  /** The hand at `elapsed` ms of `duration`: while running, one turn a countdown on the
   * compositor, put right only when it is more than a frame off (a new countdown, a clock resync);
   * at rest, set where the countdown stands. Endless, as the table's glow: waits for entrances to
   * end never wait for it. */
  function placeHand(elapsed, duration, running) {
    if (!running) {
      sweep?.cancel();
      sweep = null;
      hand.style.transform = `rotate(${(elapsed / duration) * 360}deg)`;
      return;
    }
    if (sweep?.effect.getTiming().duration !== duration) {
      sweep?.cancel();
      sweep = hand.animate([{ transform: "rotate(0deg)" }, { transform: "rotate(360deg)" }],
        { duration, iterations: Infinity, easing: "linear" });
      sweep.currentTime = elapsed;
    } else if (sweep.playState === "running" && Math.abs(sweep.currentTime - elapsed) > pace.interval) {
      sweep.currentTime = elapsed; // (one paused by someone else, a test's still picture, stays)
    }
  }

  function halt() {
    if (raf) cancelAnimationFrame(raf);
    clearTimeout(wake);
    raf = wake = 0;
  }

  /** Draws one frame; `ts` is its requestAnimationFrame timestamp, none for a redraw on a new
   * state (shown by the next frame at the earliest). */
  function frame(ts) {
    raf = 0;
    if (!timer) {
      placeHand(0, 1, false);
      pace.stop();
      return;
    }
    if (ts !== undefined) pace.tick(ts);
    const shownAt = clock.at(pace.presentAt(ts ?? performance.now()));
    const duration = Math.max(1, timer.duration_ms || 1);
    const rem = remainingMs(timer, clock, shownAt);
    setText(digits, formatRemaining(rem, decimal));
    const elapsed = Math.min(1, Math.max(0, 1 - rem / duration));
    const nGone = Math.min(TICKS, Math.floor(elapsed * TICKS + 1e-6));
    if (nGone !== gone) {
      ticks.forEach((tick, i) => tick.classList.toggle("gone", i < nGone));
      gone = nGone;
    }
    const running = !!timer.running && rem > 0;
    placeHand(elapsed * duration, duration, running);
    el.classList.toggle("warn", rem > 0 && rem <= WARNING_MS);
    el.classList.toggle("up", rem === 0 && visible);
    el.classList.toggle("running", running);
    el.classList.toggle("paused", !timer.running && rem > 0);

    if (lastRemaining !== null && visible) {
      if (lastRemaining > WARNING_MS && rem <= WARNING_MS && rem > 0) signal("warning");
      if (lastRemaining > 0 && rem === 0) signal("timeup");
    }
    lastRemaining = rem;
    if (!running) {
      pace.stop();
      return;
    }
    const sleep = untilChange(rem, duration, nGone) - LEAD_MS;
    if (sleep <= 0) {
      raf = requestAnimationFrame(frame);
      return;
    }
    pace.stop(); // the next frame's gap is a sleep, not a frame interval
    wake = setTimeout(() => {
      wake = 0;
      raf = requestAnimationFrame(frame);
    }, sleep);
  }

  // A hidden page's timeouts are throttled (to a second, later to a minute): shown again, it draws
  // at once and counts on from there.
  document.addEventListener("visibilitychange", () => {
    if (document.hidden || !timer) return;
    halt();
    frame();
  });

  return {
    update(state, prev) {
      const prevTimer = prev?.timer ?? null;
      const prevKey = countdownKey(prev);
      timer = state?.timer ?? null;
      const newKey = countdownKey(state);
      if (newKey !== key) {
        key = newKey;
        lastRemaining = null;
      }
      const wasVisible = visible;
      visible = timerVisible(state, clock);
      show(el, visible);
      // a superblitz question's 20 s run on the blitz clock: name it as the round is named
      if (timer) setText(kind, t(`timer_${timer.kind === "blitz" && state.round?.kind === "superblitz" ? "superblitz" : timer.kind}`));

      // A fresh start seen live (not on load): the countdown is new, or it was waiting full.
      if (prev !== undefined && timer?.running && visible) {
        const fresh =
          prevKey !== key || !wasVisible || // (a start held back until the reveal sounds then)
          !prevTimer?.running && (prevTimer?.remaining_ms ?? 0) >= (prevTimer?.duration_ms ?? 1);
        // a start sounds within 3 s of itself (a page that joins later stays quiet); one held back
        // while the top turned sounds within 3 s of the reveal, however long the top took
        const revealAt = state.round?.reveal_at;
        const heldBack = !wasVisible && revealAt != null && clock.now() - revealAt < 3000;
        if (fresh && (heldBack || remainingMs(timer, clock) > timer.duration_ms - 3000)) signal("start");
      }
      halt();
      frame();
    },
  };
}
