// The shared overlay client: connects to the server's /overlay namespace, keeps the newest
// state, measures the clock offset and drives one graphic through a small interface
// (CasparCG/SPX/OGraf style):
//
//   const graphic = create(stage, ctx)
//   graphic.update(state, prev)   apply a public state (null = no game on air); also draws the
//                                 first frame, so load, reconnect and change share one path;
//                                 called again with prev === state when a spun round's
//                                 `reveal_at` comes (lib/reveal.js)
//   graphic.cue(onAir, prev, msg) optional: what `graphics` says is on air (msg: the whole
//                                 message, with the rundowns' `layers`)
//   graphic.preview(p)            optional: the rundown's focused item (pages with ?preview=1)
//   graphic.play() / .stop()      optional hooks around the stage's entrance / exit
//
// The stage stays hidden until the first state has been applied and the fonts are ready, so a
// page never flashes stale or empty content; OBS visibility changes replay the entrance.

import { io } from "../vendor/socket.io/socket.io.esm.min.js";
import { RESYNC_MS, ServerClock } from "./clock.js";
import { translator } from "./i18n.js";
import { untilReveal } from "./reveal.js";

// A second clock round this long after connecting: the first one runs while the page (and, in
// OBS, every other source) is still loading, when answers are slow and lopsided.
const SECOND_SYNC_MS = 3000;

/** Reads the page's config (rendered by templates/overlays/base.html). */
export function pageConfig() {
  const el = document.getElementById("overlay-config");
  const cfg = el ? JSON.parse(el.textContent) : {};
  return {
    graphic: cfg.graphic || document.documentElement.dataset.graphic || "overlay",
    game: cfg.game ?? null,
    lang: cfg.lang || "ru",
    theme: cfg.theme || "classic",
    sound: !!cfg.sound,
    staticUrl: cfg.static || "/static/",
    query: cfg.query || {},
  };
}

/** `?preview=1` asks for the rundown's focused item, an operator's view: the server gives it to
 * a page with the panel's login cookie, or with the operators' token after `#` in its address
 * (`#token=…`, as the OBS scene collection writes it: a fragment never reaches a server or a log). */
function previewAuth(query) {
  if (query.preview !== "1") return {};
  // `#key=…`: the preview key the rundown desk shows in its copyable address (opens only this)
  const hash = new URLSearchParams(location.hash.slice(1));
  const token = hash.get("token");
  const key = hash.get("key");
  return { preview: true, ...(token ? { token } : {}), ...(key ? { key } : {}) };
}

/** A `state_patch`'s ops applied to a state: a new state that copies only the objects on each op's
 * path, so the previous one (the graphic's `prev`) stays as it was. `[path, value]` sets, `[path]`
 * deletes (overlay/broadcast/patch.py). */
export function patched(state, ops) {
  const out = { ...state };
  for (const op of ops) {
    const path = op[0];
    let node = out;
    for (let i = 0; i < path.length - 1; i++) {
      node[path[i]] = { ...node[path[i]] };
      node = node[path[i]];
    }
    const key = path[path.length - 1];
    if (op.length > 1) node[key] = op[1];
    else delete node[key];
  }
  return out;
}

/** Plays the timer signals when the page was opened with ?sound=1. */
class Sounds {
  constructor(enabled, staticUrl) {
    this.enabled = enabled;
    this.log = []; // what was played, for the operator's console and the tests
    this.audio = {};
    if (!enabled) return;
    for (const name of ["start", "warning", "timeup"]) {
      const a = new Audio(`${staticUrl}sounds/${name}.ogg`);
      a.preload = "auto";
      this.audio[name] = a;
    }
  }

  play(name) {
    if (!this.enabled || !this.audio[name]) return;
    const a = this.audio[name];
    const entry = { name, at: Date.now(), ok: null };
    this.log.push(entry);
    try {
      a.currentTime = 0;
      // Autoplay may be refused outside OBS (a browser tab without a click): stay silent.
      a.play().then(
        () => { entry.ok = true; },
        (err) => { entry.ok = false; entry.error = err?.name || String(err); },
      );
    } catch (err) {
      entry.ok = false; // media element not ready: skip this signal
      entry.error = err?.name || String(err);
    }
  }
}

/** Wires a graphic factory to the server. Returns the public handle (also window.chgkOverlay). */
export function mount(create, options = {}) {
  const config = { ...pageConfig(), ...options };
  const stage = document.getElementById("stage");
  const body = document.body;
  const clock = new ServerClock();
  const t = translator(config.lang);
  const sounds = new Sounds(config.sound, config.staticUrl);

  // The stage is designed at 1920×1080; a smaller window (a panel's preview) sees it scaled.
  const fit = () => {
    const k = Math.min(innerWidth / 1920, innerHeight / 1080);
    stage.style.setProperty("--fit", k > 0 && Math.abs(k - 1) > 0.001 ? String(k) : "1");
  };
  fit();
  addEventListener("resize", fit);

  const ctx = { config, clock, t, stage, sound: (name) => sounds.play(name), live: false };
  const graphic = create(stage, ctx);

  let current;              // last applied state (undefined: none yet; null: no game on air)
  let onAir = {};           // last applied graphics map
  let graphicsSeq = -1;
  let freshConnection = true;
  let revealed = false;

  function setStatus(name) {
    body.dataset.connection = name;
  }

  // ---- state ------------------------------------------------------------------------------

  function accept(state) {
    if (state && typeof state !== "object") return false;
    if (state && config.game != null && String(state.id) !== String(config.game)) {
      return false; // a pinned page never shows another game, even for one frame
    }
    if (current && state && String(state.id) === String(current.id) && older(state, current)) {
      return false; // stale: we already have a newer state of this game
    }
    return true;
  }

  // Newer means a later (epoch, rev): `epoch` is the writer's start, so a state from a restarted
  // writer (whose revs may start again) wins, and an edge still on the old one cannot go back.
  function older(a, b) {
    const ea = Number(a.epoch) || 0;
    const eb = Number(b.epoch) || 0;
    return ea !== eb ? ea < eb : a.rev < b.rev;
  }

  function applyState(state) {
    if (!accept(state)) return;
    if (state?.timer) clock.hint(state.timer.server_now);
    const prev = current === undefined ? undefined : current;
    current = state ?? null;
    graphic.update(current, prev);
    held = false; // just drawn as it is now
    awaitReveal();
    body.dataset.rev = current ? String(current.rev) : "";
    body.dataset.game = current ? String(current.id) : "";
    if (!revealed) reveal();
  }

  // A round held back until the arrow stops (`round.reveal_at`): the graphic draws the same state
  // again at that moment, and then shows what it held back. The wait is measured again whenever
  // the clock is corrected (a page loaded mid-round starts from a coarse `server_now` hint that
  // may be seconds off): a timer armed on the coarse clock alone could fire long after the arrow
  // stopped. `data-revealed` says which round's reveal is drawn (its `reveal_at`), as `data-rev`
  // says which state is: what the desk and the tests wait on, never a guess of the page's timing.
  let revealTimer = null;
  let held = false; // the drawn state's round is held back, waiting for its reveal_at
  function awaitReveal() {
    clearTimeout(revealTimer);
    const wait = untilReveal(current, clock);
    if (wait > 0) {
      held = true;
      revealTimer = setTimeout(awaitReveal, wait);
      return;
    }
    if (held) {
      held = false;
      graphic.update(current, current);
    }
    markRevealed();
  }

  function markRevealed() {
    const at = current?.round?.reveal_at;
    body.dataset.revealed = Number.isFinite(at) ? String(at) : "";
  }

  function applyGraphics(msg) {
    if (!msg || typeof msg !== "object") return;
    const seq = Number.isFinite(msg.seq) ? msg.seq : 0;
    // The first message of a connection is the server's whole truth (its counter may have
    // restarted with it); later ones must be newer.
    if (!freshConnection && seq < graphicsSeq) return;
    freshConnection = false;
    graphicsSeq = seq;
    if (Number.isFinite(msg.server_now)) clock.hint(msg.server_now);
    const prev = onAir;
    onAir = msg.graphics || {};
    // Parts the operator took out (`hide`) leave the air even when the state gives them content;
    // hiding this page's own graphic (e.g. "full") takes out all of its parts.
    const hidden = new Set(Array.isArray(msg.hidden) ? msg.hidden : []);
    const pageHidden = hidden.has(config.graphic);
    for (const el of stage.querySelectorAll("[data-part]")) {
      el.classList.toggle("op-hidden", pageHidden || hidden.has(el.dataset.part));
    }
    graphic.cue?.(onAir, prev, msg);
    body.dataset.graphicsSeq = String(seq);
  }

  // ---- entrance / exit --------------------------------------------------------------------

  async function reveal() {
    revealed = true;
    try {
      await document.fonts.ready;
    } catch {
      /* fonts API unavailable: show anyway */
    }
    body.classList.add("ready");
    requestAnimationFrame(() => requestAnimationFrame(play));
  }

  function play() {
    stage.classList.add("live");
    ctx.live = true;
    graphic.play?.();
  }

  function stop() {
    stage.classList.remove("live");
    ctx.live = false;
    graphic.stop?.();
  }

  /** Takes everything out at once (no exit animation) and plays the entrance again. */
  function replay() {
    if (!revealed || current === undefined) return;
    stage.classList.add("instant");
    stop();
    void stage.offsetWidth;
    stage.classList.remove("instant");
    requestAnimationFrame(() => requestAnimationFrame(play));
  }

  // OBS browser source: replay the entrance when the source goes to program or becomes visible.
  window.addEventListener("obsSourceActiveChanged", (e) => {
    if (e.detail?.active) replay();
  });
  window.addEventListener("obsSourceVisibleChanged", (e) => {
    if (e.detail?.visible) replay();
    else {
      stage.classList.add("instant");
      stop();
    }
  });

  // ---- connection -------------------------------------------------------------------------

  const socket = io("/overlay", {
    // A websocket first, which the server holds at a few kB (overlay/broadcast/lean.py); long-polling
    // where a proxy refuses websockets.
    transports: ["websocket", "polling"],
    tryAllTransports: true,
    reconnection: true,
    reconnectionAttempts: Infinity,
    reconnectionDelay: 500,
    reconnectionDelayMax: 5000,
    randomizationFactor: 0.5,
    timeout: 5000,
    // patches: after the first state, changes come as `state_patch` (docs/PATCHES.md)
    auth: { graphic: config.graphic, game: config.game, patches: 1, ...previewAuth(config.query) },
  });

  let manualRetry = 500;
  function retryLater() {
    // The manager retries lost transports by itself; a connection the server refused or closed
    // on purpose is not retried automatically, so do it here, with the same backoff.
    setTimeout(() => {
      if (!socket.connected && !socket.active) socket.connect();
    }, manualRetry);
    manualRetry = Math.min(manualRetry * 2, 5000);
  }

  let resyncing = false; // a `resync` is on its way: patches wait for the whole state
  let resyncTimer = null;
  let secondSync = null;
  const syncClock = () =>
    clock.sync(socket).then(() => {
      body.dataset.clock = clock.synced ? "synced" : "coarse";
      if (current !== undefined) awaitReveal(); // the clock moved: a held round's wait with it
    });
  socket.on("connect", () => {
    setStatus("connected");
    manualRetry = 500;
    freshConnection = true;
    if (config.game != null) socket.emit("follow", { game: config.game });
    socket.emit("hello", { graphic: config.graphic, page: location.href, game: config.game });
    syncClock();
    clearTimeout(secondSync);
    secondSync = setTimeout(syncClock, SECOND_SYNC_MS);
    clearInterval(resyncTimer);
    resyncTimer = setInterval(syncClock, RESYNC_MS);
  });
  socket.on("disconnect", (reason) => {
    // On air nothing changes: the last state stays and timers keep counting locally.
    setStatus("lost");
    clearTimeout(secondSync);
    clearInterval(resyncTimer);
    if (reason === "io server disconnect") retryLater();
  });
  socket.on("connect_error", () => {
    setStatus("lost");
    if (!socket.active) retryLater();
  });
  socket.on("state", (state) => {
    resyncing = false;
    applyState(state);
  });
  socket.on("state_patch", (p) => {
    if (resyncing || !p || !Array.isArray(p.ops)) return;
    if (!current || String(current.id) !== String(p.id) || (Number(current.epoch) || 0) !== (Number(p.epoch) || 0)
        || current.rev !== p.base) {
      // not the state this patch applies to (a lost message, a newer page): ask for the whole one
      resyncing = true;
      socket.emit("resync");
      return;
    }
    applyState(patched(current, p.ops));
  });
  socket.on("graphics", applyGraphics);
  socket.on("reload", () => location.reload());
  // ?preview=1 (the rundown's output): the focused item, as it would go to air
  socket.on("preview", (p) => graphic.preview?.(p));
  // a key or token changed in the address (#key=…): the page asks again with it, no reload
  if (config.query.preview === "1") {
    addEventListener("hashchange", () => {
      socket.auth = { ...socket.auth, token: undefined, key: undefined, ...previewAuth(config.query) };
      socket.disconnect().connect();
    });
  }

  const handle = {
    config,
    clock,
    socket,
    sounds: sounds.log,
    get state() {
      return current;
    },
    get onAir() {
      return onAir;
    },
    update: applyState,
    cue: (graphics) => applyGraphics({ seq: graphicsSeq + 1, graphics }),
    play,
    stop,
    replay,
  };
  window.chgkOverlay = handle;
  return handle;
}
