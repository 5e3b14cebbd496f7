// Server clock as seen from this page. The server owns time (timers carry `ends_at` in server
// epoch ms); we measure offset = server - local with NTP-style round trips over the socket and
// keep the sample with the smallest round-trip time, whose error is at most rtt / 2.

export class ServerClock {
  constructor() {
    this.offset = 0;        // ms to add to Date.now() to get server time
    this.rtt = Infinity;    // round-trip time of the sample in use
    this.synced = false;    // a real round trip has been measured
  }

  /** Server epoch ms, now. */
  now() {
    return Date.now() + this.offset;
  }

  /** A coarse estimate from a `server_now` stamped on a message, used only until a round
   * trip has been measured (it is late by the one-way delay). */
  hint(serverNow) {
    if (!this.synced && Number.isFinite(serverNow)) this.offset = serverNow - Date.now();
  }

  /** Runs `rounds` round trips of the `time` event; adopts the best one. Resolves to true when
   * at least one answer came back. */
  async sync(socket, rounds = 5, timeoutMs = 1500) {
    let best = null;
    for (let i = 0; i < rounds; i++) {
      if (!socket.connected) break;
      const sample = await roundTrip(socket, timeoutMs);
      if (sample && (!best || sample.rtt < best.rtt)) best = sample;
    }
    if (!best) return false;
    this.offset = best.offset;
    this.rtt = best.rtt;
    this.synced = true;
    return true;
  }
}

function roundTrip(socket, timeoutMs) {
  return new Promise((resolve) => {
    const sentWall = Date.now();
    const sent = performance.now();
    socket.timeout(timeoutMs).emit("time", {}, (err, reply) => {
      const rtt = performance.now() - sent;
      if (err || !reply || !Number.isFinite(reply.server_now)) return resolve(null);
      // The server read its clock about half-way through the round trip.
      resolve({ rtt, offset: reply.server_now - (sentWall + rtt / 2) });
    });
  });
}
