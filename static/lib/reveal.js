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

/** Whether `state`'s round is the closed one from before a granted decisive round: its card is
 * history, and under the new «Решающий раунд» flag it would read as the decisive round itself.
 * (The decisive round's own verdict ends the game, so a closed round while it is granted is
 * always the one before.) */
export function superseded(state) {
  return !!state?.decisive?.active && state?.round?.phase === "closed";
}
