// Server clock as seen from this page. The server owns time (timers carry `ends_at` in server
// epoch ms); we measure offset = server - local with NTP-style round trips over the socket.
// A sample's error is at most half its round trip, so the sample with the smallest round trip
// is kept across rounds, not only within one: the first round runs while the page (and, in OBS,
// every other source) is still loading, and its slow, lopsided answers must not displace a
// better sample, nor may a later busy moment.

/** How often the client runs a sync round; a kept sample older than this is replaced anyway
 * (clocks drift). */
export const RESYNC_MS = 5 * 60_000;
/** A round trip longer than this means a stalled page or network: the sample says nothing. */
export const MAX_RTT_MS = 1000;
// Two samples disagree when their offsets differ by more than their error bounds allow, plus
// this much for whole-ms timestamps and drift.
const SLACK_MS = 2;

export class ServerClock {
  constructor(maxAgeMs = RESYNC_MS) {
    this.offset = 0;          // ms to add to the local wall clock (Date.now()) to get server time
    this.rtt = Infinity;      // round-trip time of the sample in use
    this.synced = false;      // a real round trip has been measured
    this.sampledAt = -Infinity; // performance.now() when the kept sample was taken
    this.rounds = 0;          // sync rounds completed
    this.maxAgeMs = maxAgeMs;
    this.wallMinusPerf = Date.now() - performance.now();
    this.pending = null;      // the round in progress
  }

  /** Local wall-clock ms at the performance.now() instant `t`, finer than Date.now()'s whole
   * ms: Date.now() minus a performance.now() read after it never exceeds the true difference
   * and reaches it just after Date.now() ticks, so the largest value seen is right to a
   * fraction of a ms. A clear drop is the wall clock set back (or drifting back): follow it,
   * but only on a quick reading (a busy machine may pause between the two reads). */
  localAt(t) {
    const before = performance.now();
    const wall = Date.now();
    const after = performance.now();
    const d = wall - after;
    const dropped = d < this.wallMinusPerf - 1.5 && after - before < 0.5;
    if (d > this.wallMinusPerf || dropped) this.wallMinusPerf = d;
    return t + this.wallMinusPerf;
  }

  /** Server epoch ms, now. */
  now() {
    return this.at(performance.now());
  }

  /** Server epoch ms at the performance.now() instant `t` (e.g. a frame's timestamp). */
  at(t) {
    return this.localAt(t) + this.offset;
  }

  /** A coarse estimate from a `server_now` stamped on a message, used only until a round
   * trip has been measured (it is late by the one-way delay). */
  hint(serverNow) {
    if (!this.synced && Number.isFinite(serverNow)) this.offset = serverNow - Date.now();
  }

  /** Runs a round of up to `rounds` round trips of the `time` event, offering each sample to
   * `offer`. Resolves to true when the round got an answer. A call during a round joins it,
   * so a reconnect or a resync never runs two rounds at once. */
  sync(socket, rounds = 5, timeoutMs = 1500) {
    this.pending ??= this.#round(socket, rounds, timeoutMs).finally(() => {
      this.pending = null;
    });
    return this.pending;
  }

  async #round(socket, rounds, timeoutMs) {
    let answered = false;
    for (let i = 0; i < rounds && socket.connected; i++) {
      const sample = await this.#roundTrip(socket, timeoutMs);
      if (sample && this.offer(sample) !== null) answered = true;
    }
    this.rounds++;
    return answered;
  }

  /** Considers a sample {offset, rtt, at} (`at`: performance.now() when taken). Returns null
   * when it is unusable, false when the kept sample stays, true when it is adopted. */
  offer({ offset, rtt, at }) {
    if (!Number.isFinite(offset) || !(rtt >= 0 && rtt <= MAX_RTT_MS)) return null;
    if (this.synced) {
      const better = rtt < this.rtt;
      const stale = at - this.sampledAt > this.maxAgeMs;
      // The true offset lies within rtt / 2 of each sample; when it cannot lie within both, a
      // clock was set (say NTP at boot) since the kept one was taken, which is then wrong.
      const disagree = Math.abs(offset - this.offset) > (rtt + this.rtt) / 2 + SLACK_MS;
      if (!better && !stale && !disagree) return false;
    }
    this.offset = offset;
    this.rtt = rtt;
    this.sampledAt = at;
    this.synced = true;
    return true;
  }

  #roundTrip(socket, timeoutMs) {
    return new Promise((resolve) => {
      const sent = performance.now();
      socket.timeout(timeoutMs).emit("time", {}, (err, reply) => {
        const back = performance.now();
        if (err || !reply || !Number.isFinite(reply.server_now)) return resolve(null);
        // The server read its clock somewhere in the round trip: take the middle. Its ms are
        // whole (floored), so its true time was half a ms later on average.
        const mid = this.localAt(sent + (back - sent) / 2);
        resolve({ rtt: back - sent, offset: reply.server_now + 0.5 - mid, at: back });
      });
    });
  }
}
