// The panel's link to the server: the /control Socket.IO namespace (login session cookie),
// the newest state per game, the server clock, the connection banner, and commands sent in
// order with `expected_rev` (PressOrder) so that a doubled press is refused by the server
// instead of applied twice, while a quick second press of another key is not.

import { io } from "../vendor/socket.io/socket.io.esm.min.js";
import { t } from "./i18n.js";
import { api, notice } from "./common.js";

const ACK_TIMEOUT_MS = 5000;
const HEARTBEAT_MS = 4000;
const HEARTBEAT_FAILS = 2;   // missed heartbeats before the banner goes up on a "connected" socket
const CLOCK_SAMPLES = 8;

/** When the key or click being handled was pressed (its event's time, on performance.now()'s
 * clock), else now: a page busy drawing may handle two presses 80 ms apart half a second later
 * each, and they are still one doubled press. */
export function pressedAt() {
  const e = window.event;
  return e && Number.isFinite(e.timeStamp) && e.timeStamp > 0 ? e.timeStamp : performance.now();
}

/** Which rev each press goes with. Presses are sent one after another, in the order they were
 * made, and each carries `expected_rev`:
 * - a press made while this panel's previous command was still on its way goes with the rev that
 *   command returned (a sector typed, then Space at once: the start is meant for the new round);
 *   when that command was refused, the follower is not sent at all;
 * - the same press again within `doubleMs` (a bounce, a double click) of one that was done goes
 *   with the rev its first press went with, so the server answers 409 and nothing changes twice;
 * - any other press goes with the rev on screen when it was made: a change by another operator
 *   that arrived after it makes it stale (409). The server does not count the clock's own changes
 *   (a time-up) as a conflict, so a verdict at the gong is not refused. A press's time is its
 * event's (`pressedAt`). */
export class PressOrder {
  constructor(doubleMs) {
    this.doubleMs = doubleMs;
    this.last = null; // {key, at, id, rev (sent with), answeredAt, applied, resultRev}
  }

  /** {id, rev, skip} for a press of `key` made at `at` on a screen showing `seen` ({id, rev}). */
  expected(key, at, seen) {
    const last = this.last;
    if (last && last.id === seen.id) {
      if (last.key === key && at - last.at < this.doubleMs && last.applied) return { id: seen.id, rev: last.rev, double: true };
      if (last.answeredAt > at) {
        if (!last.applied) return { id: seen.id, rev: seen.rev, skip: true };
        return { id: seen.id, rev: Math.max(seen.rev, last.resultRev) };
      }
    }
    return { id: seen.id, rev: seen.rev };
  }

  record(key, at, basis, answer, answeredAt = performance.now()) {
    this.last = { key, at, id: basis.id, rev: basis.rev, answeredAt,
                  applied: !!answer.state, resultRev: answer.state?.rev ?? basis.rev };
  }
}

/** Server time from round trips to GET /api/time; the sample with the smallest round trip wins
 * (its error is at most half of it). `server_now` on a state is a coarse first guess. */
export class ServerClock {
  constructor() {
    this.offset = 0;
    this.samples = [];
    this.synced = false;
  }

  now() {
    return Date.now() + this.offset;
  }

  hint(serverNow) {
    if (!this.synced && Number.isFinite(serverNow)) this.offset = serverNow - Date.now();
  }

  async sample() {
    const wall = Date.now();
    const t0 = performance.now();
    const r = await api("GET", "/api/time");
    const rtt = performance.now() - t0;
    if (!r.ok || !Number.isFinite(r.data?.server_now)) return false;
    this.samples.push({ rtt, offset: r.data.server_now - (wall + rtt / 2) });
    if (this.samples.length > CLOCK_SAMPLES) this.samples.shift();
    const best = this.samples.reduce((a, b) => (b.rtt < a.rtt ? b : a));
    this.offset = best.offset;
    this.synced = true;
    return true;
  }
}

export class ControlConnection {
  /** options: {doubleMs (settleMs: its older name)} — see PressOrder */
  constructor({ settleMs = 250, doubleMs = settleMs } = {}) {
    this.state = undefined;        // undefined: nothing yet; null: no game on air
    this.graphicsPayload = null;
    this.status = "connecting";    // connecting | connected | lost | unauthorized
    this.everConnected = false;
    this.fresh = true;             // the next state is the server's whole truth (after a (re)connect)
    this.order = new PressOrder(doubleMs);
    this.queue = Promise.resolve();  // the panel's commands, one at a time, in the order pressed
    this.clock = new ServerClock();
    this.listeners = { state: [], graphics: [], status: [] };
    this.missed = 0;

    this.socket = io("/control", {
      reconnection: true,
      reconnectionAttempts: Infinity,
      reconnectionDelay: 300,
      reconnectionDelayMax: 2000,
      randomizationFactor: 0.3,
      timeout: 4000,
      withCredentials: true,
    });
    this.socket.on("connect", () => this.onConnect());
    this.socket.on("disconnect", (reason) => this.onDisconnect(reason));
    this.socket.on("connect_error", (err) => this.onConnectError(err));
    this.socket.on("state", (s) => this.acceptState(s));
    this.socket.on("graphics", (g) => this.acceptGraphics(g));
    this.heartbeat = setInterval(() => this.beat(), HEARTBEAT_MS);
  }

  on(kind, fn) {
    this.listeners[kind].push(fn);
    if (kind === "state" && this.state !== undefined) fn(this.state, undefined);
    if (kind === "graphics" && this.graphicsPayload) fn(this.graphicsPayload);
    if (kind === "status") fn(this.status);
  }

  emitLocal(kind, ...args) {
    for (const fn of this.listeners[kind]) {
      try { fn(...args); } catch (e) { console.error(e); }
    }
  }

  // ---- connection status -------------------------------------------------------------------

  setStatus(status) {
    if (status === this.status) return;
    this.status = status;
    document.body.dataset.connection = status;
    const banner = document.getElementById("conn-banner");
    const dot = document.getElementById("conn-dot");
    if (dot) dot.title = t(`conn.${status}`);
    if (banner) {
      const show = status === "lost" || status === "unauthorized";
      banner.hidden = !show;
      const title = document.getElementById("conn-banner-title");
      const text = document.getElementById("conn-banner-text");
      if (show) {
        title.dataset.i18n = status === "lost" ? "conn.lost.title" : "conn.unauthorized.title";
        text.dataset.i18n = status === "lost" ? "conn.lost.text" : "conn.unauthorized.text";
        title.textContent = t(title.dataset.i18n);
        text.textContent = t(text.dataset.i18n);
      }
    }
    this.emitLocal("status", status);
  }

  onConnect() {
    const again = this.everConnected;
    this.everConnected = true;
    this.fresh = true;
    this.freshGraphics = true;
    this.missed = 0;
    this.setStatus("connected");
    if (again) notice("ok", t("conn.back"), t("conn.back.detail"), { code: "reconnected", ms: 8000 });
    this.clock.sample().then(() => this.clock.sample());
  }

  onDisconnect(reason) {
    this.setStatus("lost");
    // "io server disconnect": the server closed us on purpose (e.g. logged out): it will not be
    // retried by the manager, so check the login and retry ourselves.
    if (reason === "io server disconnect") this.retryLater();
  }

  async onConnectError(err) {
    if (this.socket.active) {          // the manager keeps retrying: the server is unreachable
      this.setStatus("lost");
      return;
    }
    // The server refused the connection: the login session is gone, or it was a hiccup.
    const r = await api("GET", "/api/games");
    if (r.status === 401) this.setStatus("unauthorized");
    else {
      this.setStatus("lost");
      this.retryLater();
    }
  }

  retryLater() {
    clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => {
      if (!this.socket.connected) this.socket.connect();
    }, 1000);
  }

  async beat() {
    if (this.status !== "connected") return;
    const ok = await this.clock.sample();
    this.missed = ok ? 0 : this.missed + 1;
    if (this.missed >= HEARTBEAT_FAILS && this.socket.connected) {
      // The socket looks open but the server does not answer: say so and start over.
      this.setStatus("lost");
      this.socket.disconnect();
      this.socket.connect();
    }
  }

  get connected() {
    return this.status === "connected";
  }

  // ---- incoming ----------------------------------------------------------------------------

  acceptState(state) {
    if (state === undefined) state = null; // Socket.IO sends a null payload as no argument at all
    if (state !== null && (typeof state !== "object" || !Number.isFinite(state.rev))) return;
    const prev = this.state;
    const sameGame = prev && state && prev.id === state.id;
    // Every state carries rev; a state older than one we have is ignored — except the first
    // one of a connection, which is the server's truth.
    if (!this.fresh && sameGame && state.rev < prev.rev) return;
    if (!this.fresh && sameGame && state.rev === prev.rev) return; // the ack and the broadcast
    this.fresh = false;
    if (state?.server_now) this.clock.hint(state.server_now);
    this.state = state;
    document.body.dataset.rev = state ? String(state.rev) : "";
    document.body.dataset.basisRev = state ? String(state.rev) : "";  // what a press now goes with
    document.body.dataset.game = state ? state.id : "";
    this.emitLocal("state", state, prev);
  }

  acceptGraphics(payload) {
    if (!payload || typeof payload !== "object") return;
    if (this.graphicsPayload && payload.seq < this.graphicsPayload.seq && !this.freshGraphics) return;
    this.freshGraphics = false;
    this.graphicsPayload = payload;
    this.emitLocal("graphics", payload);
  }

  // ---- outgoing ----------------------------------------------------------------------------

  emitAck(event, body) {
    return new Promise((resolve) => {
      if (!this.socket.connected) {
        resolve({ error: { code: "disconnected", message: t("err.disconnected") }, status: 0 });
        return;
      }
      this.socket.timeout(ACK_TIMEOUT_MS).emit(event, body, (err, answer) => {
        if (err) resolve({ error: { code: "no_answer", message: t("err.no_answer") }, status: 0 });
        else resolve(answer || { error: { code: "no_answer", message: "" }, status: 0 });
      });
    });
  }

  /** Sends one command (or `undo` when body.type === "undo") for the game the operator sees,
   * after the panel's earlier commands; `expected_rev` as PressOrder says. `basis` ({id, rev}):
   * what the press was based on, when not the screen now (an undo confirmed against what it
   * showed). */
  command(body, basis = null) {
    const at = pressedAt();
    const seen = basis || (this.state ? { id: this.state.id, rev: this.state.rev } : null);
    const job = this.queue.then(() => this.sendInOrder(body, at, seen, !!basis));
    this.queue = job.catch(() => {});
    return job;
  }

  async sendInOrder(body, at, seen, fixed) {
    if (!this.state || !seen) {
      return { error: { code: "no_game_on_air", message: t("err.no_game_on_air") }, status: 0 };
    }
    if (seen.id !== this.state.id) {
      return { error: { code: "game_switched", message: t("err.game_switched") }, status: 409 };
    }
    const key = JSON.stringify(body);
    const basis = fixed ? seen : this.order.expected(key, at, seen);
    if (basis.skip) {
      const answer = { error: { code: "after_refusal", message: "" }, status: 0 };
      this.order.record(key, at, basis, answer);
      return answer;
    }
    const { type, ...fields } = body;
    const answer = type === "undo"
      ? await this.emitAck("undo", { game: basis.id, expected_rev: basis.rev })
      : await this.emitAck("command", { type, ...fields, game: basis.id, expected_rev: basis.rev });
    this.order.record(key, at, basis, answer);
    if (answer.state) this.acceptState(answer.state);
    return basis.double && !answer.state ? { ...answer, double: true } : answer;
  }

  graphics(body) {
    return this.emitAck("graphics", body);
  }
}
