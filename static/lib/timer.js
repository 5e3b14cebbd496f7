// Timer arithmetic shared by the graphics. A timer from the state is
// {kind, duration_ms, remaining_ms, running, ends_at, server_now}; while running, the truth is
// `ends_at` in server time, so every screen counts down to the same instant.

export const WARNING_MS = 10_000;

/** Milliseconds left now, given the server clock. */
export function remainingMs(timer, clock) {
  if (!timer) return 0;
  if (timer.running && Number.isFinite(timer.ends_at)) {
    return Math.max(0, timer.ends_at - clock.now());
  }
  return Math.max(0, timer.remaining_ms ?? 0);
}

/** "1:00", "0:42"; in the last 10 s "9,4" (tenths, decimal mark of the locale). */
export function formatRemaining(ms, decimal = ",") {
  if (ms < WARNING_MS) {
    const tenths = Math.ceil(ms / 100);
    return `${Math.floor(tenths / 10)}${decimal}${tenths % 10}`;
  }
  const s = Math.ceil(ms / 1000);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}
