// The reveal after the spin: a round's sector, its question card and the superblitz box wait
// until the arrow stops, at `round.reveal_at` (server epoch ms, set by the rules), so every
// screen shows them on the same frame. A round without it (a game recorded before) is revealed.

/** Milliseconds until `state`'s round may be shown, by the server clock (0: it may be now). */
export function untilReveal(state, clock) {
  const at = state?.round?.reveal_at;
  return Number.isFinite(at) ? Math.max(0, at - clock.now()) : 0;
}

/** Whether `state`'s round may be shown now. */
export function revealed(state, clock) {
  return untilReveal(state, clock) === 0;
}
