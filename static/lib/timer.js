// Timer arithmetic shared by the graphics. A timer from the state is
// {kind, duration_ms, remaining_ms, running, ends_at, server_now}; while running, the truth is
// `ends_at` in server time, so every screen counts down to the same instant.

export const WARNING_MS = 10_000;

/** Milliseconds left at server time `at` (server epoch ms; default: now). */
export function remainingMs(timer, clock, at = clock.now()) {
  if (!timer) return 0;
  if (timer.running && Number.isFinite(timer.ends_at)) {
    return Math.max(0, timer.ends_at - at);
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

// Frame intervals outside this range are stalls, a hidden page or a loop that was stopped.
const MIN_INTERVAL_MS = 4;   // 240 Hz
const MAX_INTERVAL_MS = 100; // 10 fps
const KEEP = 31;
const TRUST = 8; // deltas needed before the estimate replaces the last (a page's first frames are slow)

/** When a frame being drawn reaches the screen. A countdown drawn for "now" is a frame late by
 * the time it shows, so a graphic draws each frame for its presentation time instead. The frame
 * interval is learnt from requestAnimationFrame timestamps (OBS renders browser sources at the
 * output's rate: 60, 50, 30 or 25 fps); 60 Hz until measured. */
export class FramePace {
  constructor(interval = 1000 / 60) {
    this.interval = interval;
    this.deltas = [];
    this.last = null; // timestamp of the previous frame of an uninterrupted loop
  }

  /** Notes the timestamp of a requestAnimationFrame callback. */
  tick(ts) {
    const d = this.last === null ? NaN : ts - this.last;
    this.last = ts;
    if (!(d >= MIN_INTERVAL_MS && d <= MAX_INTERVAL_MS)) return;
    this.deltas.push(d);
    if (this.deltas.length > KEEP) this.deltas.shift();
    if (this.deltas.length < TRUST) return;
    // Timestamps fall on vsyncs, so a frame the page was too busy to make shows up as a double
    // interval: the lower quartile is the vsync even while half the frames are skipped (a
    // frame made late still reaches the next vsync, not one a "30 fps" interval on).
    const sorted = [...this.deltas].sort((a, b) => a - b);
    this.interval = sorted[sorted.length >> 2];
  }

  /** The loop stopped: the gap to its next frame is no frame interval. */
  stop() {
    this.last = null;
  }

  /** performance.now() instant at which the frame that began at `ts` is shown: the next vsync,
   * one interval on. A callback that runs late (a busy page) misses that vsync and shows at the
   * first one after it runs. Pass `performance.now()` as `ts` outside a frame. */
  presentAt(ts, now = performance.now()) {
    const late = Math.max(0, Math.floor((now - ts) / this.interval));
    return ts + (late + 1) * this.interval;
  }
}
