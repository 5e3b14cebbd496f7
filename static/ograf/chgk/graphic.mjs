// One of our on-air graphics as an EBU OGraf v1 Graphic: a Web Component (load, dispose,
// playAction, updateAction, stopAction, customAction) over the same overlay module and markup
// our pages draw with (static/overlays/<name>.js over static/lib/), in its own shadow root.
//
// Each graphic's main module (ograf/chgk/<name>.mjs, made by overlay/ograf/export.py) is
// `export default ografGraphic("<name>")`. Beside it, <name>.json holds the graphic's markup and
// stylesheets as our page renders them, and i18n/<lang>.json the on-air words.
//
// Drawn only between playAction and stopAction: the stage is hidden before, and again once the
// exit has played. Game graphics draw the server's public state (Socket.IO `/overlay` at
// `data.server`, else the address baked into the export — server.json beside this file — else
// this package's origin) — never an unplayed question or an answer before its verdict, as on our
// own pages; cue graphics draw the load/update data. While a game graphic cannot reach its
// server it draws a plate that says so (never a blank frame, never a stale round's card).

import { io } from "../../vendor/socket.io/socket.io.esm.min.js";
import { ServerClock, RESYNC_MS } from "../../lib/clock.js";
import { translator } from "../../lib/i18n.js";
import { untilReveal } from "../../lib/reveal.js";

const ROOT = new URL("../../", import.meta.url); // the static tree: lib/, overlays/, themes/, fonts/
const HERE = new URL("./", import.meta.url);
const FIRST_STATE_MS = 5000; // load() waits this long for the server's first state
const ok = (extra = {}) => ({ statusCode: 200, statusMessage: "OK", ...extra });

const json = async (url) => {
  const r = await fetch(url);
  if (!r.ok) throw new Error(`${url}: ${r.status}`);
  return r.json();
};

// A relative url() in a stylesheet (a font, the owl): not data:, blob:, an address or a fragment.
const RELATIVE_URL = /url\(\s*(['"]?)(?!data:|blob:|https?:|#)([^'")]+)\1\s*\)/g;

/** A stylesheet for a shadow root: `:root` (the themes' variables) becomes `:host`; url()s are
 * made absolute against the file's own address — a constructed sheet's `baseURL` is not applied
 * to them in every browser (in another renderer they resolved against its page: no fonts). */
async function sheet(url) {
  const text = (await (await fetch(url)).text()).replace(/:root\b/g, ":host")
    .replace(RELATIVE_URL, (_, _q, path) => `url("${new URL(path, url)}")`);
  const s = new CSSStyleSheet();
  await s.replace(text);
  return s;
}

// @font-face does not work inside a shadow root: the fonts are declared once on the document.
let fontsAdded = null;
function addFonts() {
  fontsAdded ??= sheet(new URL("fonts/fonts.css", ROOT)).then((s) => {
    document.adoptedStyleSheets = [...document.adoptedStyleSheets, s];
  });
  return fontsAdded;
}

// What our pages' <body> gives the stage, for the shadow root's wrapper.
const HOST_CSS = `
:host { display: block; position: absolute; inset: 0; overflow: hidden; pointer-events: none; }
.chgk-body { position: absolute; inset: 0; overflow: hidden; background: transparent;
  font-family: var(--font-sans); font-size: 32px; color: var(--c-text);
  -webkit-font-smoothing: antialiased; text-rendering: optimizeLegibility; font-variant-numeric: tabular-nums; }
#stage.off, #stage.offline { visibility: hidden; }
.chgk-offline { position: absolute; left: calc(96px * var(--fit, 1)); bottom: calc(86px * var(--fit, 1));
  transform-origin: left bottom; transform: scale(var(--fit, 1)); display: flex; align-items: center; gap: 22px;
  padding: 18px 34px 18px 22px; border-radius: var(--radius); background: var(--panel-bg);
  box-shadow: var(--shadow), inset 0 0 0 2px var(--c-edge); color: var(--c-text); }
.chgk-offline[hidden] { display: none; }
.chgk-offline .dot { width: 22px; height: 22px; border-radius: 50%; background: var(--c-warn);
  box-shadow: 0 0 18px var(--c-warn); animation: chgk-offline-pulse 1.6s ease-in-out infinite; }
.chgk-offline b { display: block; font-size: 40px; font-weight: 700; letter-spacing: 0.02em; }
.chgk-offline small { display: block; font-size: 24px; color: var(--c-text-dim); }
@keyframes chgk-offline-pulse { 50% { opacity: 0.35; } }`;

/** The class of graphic `name` (a new class per call: a renderer may define several tags). */
export function ografGraphic(name) {
  return class ChgkOgrafGraphic extends HTMLElement {
    constructor() {
      super();
      this.attachShadow({ mode: "open" });
      this.step = undefined; // OGraf's current step: undefined at the start and the end
      this.data = {};
      this.state = undefined;
      this.held = false; // the drawn state's round waits for its reveal_at
      this.timers = new Set();
    }

    async load(params = {}) {
      this.data = { ...(params.data || {}) };
      const lang = ["ru", "uk", "en"].includes(this.data.lang) ? this.data.lang : "ru";
      const theme = ["classic", "light"].includes(this.data.theme) ? this.data.theme : "classic";
      const spec = await json(new URL(`${name}.json`, HERE));
      this.spec = spec;
      const catalog = await json(new URL(`i18n/${lang}.json`, HERE));
      const styles = await Promise.all([`themes/${theme}.css`, ...spec.styles].map((p) => sheet(new URL(p, ROOT))));
      const host = new CSSStyleSheet();
      host.replaceSync(HOST_CSS);
      this.shadowRoot.adoptedStyleSheets = [...styles, host];
      await addFonts();

      const body = document.createElement("div");
      body.className = "chgk-body";
      body.dataset.theme = theme;
      const stage = document.createElement("div");
      stage.id = "stage";
      stage.className = `layout-${name} off`;
      stage.innerHTML = spec.html; // our own markup, rendered from our templates (no data in it)
      const offline = document.createElement("div");
      offline.className = "chgk-offline";
      offline.hidden = true;
      offline.setAttribute("role", "status");
      body.append(stage, offline);
      this.shadowRoot.replaceChildren(body);
      this.stage = stage;
      this.offline = offline;
      this.fit();
      this.resize = new ResizeObserver(() => this.fit());
      this.resize.observe(this);

      const baked = spec.kind === "cue" ? {} : await json(new URL("server.json", HERE)).catch(() => ({}));
      const server = String(this.data.server || baked.server || new URL(import.meta.url).origin).replace(/\/+$/, "");
      this.clock = new ServerClock();
      this.ctx = {
        config: { graphic: name, game: null, lang, theme, sound: false, staticUrl: ROOT.href, query: {}, server },
        clock: this.clock, t: translator(lang, catalog), catalog, stage, sound: () => {}, live: false,
      };
      const module = await import(new URL(`overlays/${spec.module}.js`, ROOT));
      this.graphic = module.default(stage, this.ctx);
      if (spec.kind === "cue") this.graphic.update(null, undefined);
      else await this.connect(server); // game and league graphics follow the server
      this.cue();
      try {
        await document.fonts.ready;
      } catch {
        /* no fonts API: draw anyway */
      }
      return ok();
    }

    /** The no-connection plate, shown while the graphic plays and its server is out of reach:
     * the stage under it is emptied of the game (a lost round's card must not stay on air). */
    showConnection() {
      if (!this.offline || this.spec.kind === "cue") return;
      const lost = !this.socket?.connected;
      const shown = lost && this.step !== undefined;
      if (shown && this.offline.hidden) {
        const t = this.ctx.t;
        this.offline.replaceChildren(Object.assign(document.createElement("i"), { className: "dot" }),
          Object.assign(document.createElement("span"), {}));
        this.offline.lastChild.append(Object.assign(document.createElement("b"), { textContent: t("ograf.offline") }),
          Object.assign(document.createElement("small"), { textContent: t("ograf.offline_hint", { server: this.ctx.config.server }) }));
      }
      this.offline.hidden = !shown;
      this.stage?.classList.toggle("offline", lost);
      this.dataset.connection = lost ? "lost" : "ok";
    }

    /** The server's public feed, as our pages get it; resolves at the first state (or after a wait). */
    connect(server) {
      const socket = io(`${server}/overlay`, { reconnectionDelayMax: 5000, auth: { graphic: name } });
      this.socket = this.ctx.socket = socket;
      socket.on("disconnect", () => this.showConnection());
      socket.on("connect_error", () => this.showConnection());
      socket.on("connect", () => this.showConnection());
      if (this.spec.kind === "league") socket.on("connect", () => this.cue()); // league data fetched again
      const sync = () => this.clock.sync(socket).then(() => this.redraw());
      socket.on("connect", () => {
        socket.emit("hello", { graphic: name, page: `ograf:${location.href}` });
        sync();
        clearInterval(this.resync);
        this.resync = setInterval(sync, RESYNC_MS);
      });
      socket.on("graphics", (msg) => {
        if (Number.isFinite(msg?.server_now)) this.clock.hint(msg.server_now);
      });
      return new Promise((resolve) => {
        const done = setTimeout(resolve, FIRST_STATE_MS);
        socket.on("state", (state) => {
          if (state?.timer) this.clock.hint(state.timer.server_now);
          const prev = this.state;
          this.state = state ?? null;
          this.graphic.update(this.state, prev);
          this.held = false; // drawn on the clock of now: redraw() says whether it is held
          this.redraw();
          clearTimeout(done);
          resolve();
        });
      });
    }

    /** A spun round is held until its arrow stops (`round.reveal_at`): draw it again then. The
     * wait is measured again whenever the clock is corrected: a graphic loaded mid-round starts
     * on a coarse `server_now` hint, and a correction that finds the reveal already passed must
     * draw the held round at once (as lib/client.js does), not leave it held. */
    redraw() {
      clearTimeout(this.revealTimer);
      const wait = untilReveal(this.state, this.clock);
      if (wait > 0) {
        this.held = true;
        this.revealTimer = setTimeout(() => this.redraw(), wait);
      } else if (this.held) {
        this.held = false;
        this.graphic.update(this.state, this.state);
      }
    }

    /** What is "on air" for the overlay module: our own data for a cue graphic, the step for
     * a stepped one (the question card: card → text → answer; a step only holds back). */
    cue() {
      if (!this.graphic?.cue) return;
      const steps = this.spec.steps || [];
      const playing = this.step !== undefined;
      const onAir = {};
      if (this.spec.kind !== "game" && playing) { // cue and league graphics: our data is the cue's
        const data = { ...this.data };
        delete data.server;
        delete data.lang;
        delete data.theme;
        // a controller's form fills every field ("" for a text, [] for a list, 0 for a time):
        // a field left so is not given (a strap with `duration_ms: 0` would leave at once)
        for (const [k, v] of Object.entries(data)) {
          if (v === "" || v === null || (Array.isArray(v) && !v.length)) delete data[k];
        }
        if (Number.isFinite(data.countdown_ms) && data.countdown_ms > 0) data.ends_at = this.shownAt + data.countdown_ms;
        onAir[name] = { data, shown_at: this.shownAt, expires_at: null, media: {} };
      } else if (steps.length && playing) {
        onAir[name] = { data: { step: steps[this.step] } };
      }
      this.graphic.cue(onAir, {}, { graphics: onAir, layers: {} });
    }

    fit() {
      const w = this.clientWidth || innerWidth;
      const h = this.clientHeight || innerHeight;
      const k = Math.min(w / 1920, h / 1080);
      this.stage?.style.setProperty("--fit", k > 0 ? String(k) : "1");
    }

    /** Resolves when the stage's transitions have finished (or at once with nothing moving). */
    async settled() {
      await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
      const running = this.shadowRoot.getAnimations ? this.shadowRoot.getAnimations() : [];
      await Promise.all(running.filter((a) => a.effect?.getTiming().iterations !== Infinity)
        .map((a) => a.finished.catch(() => {})));
    }

    instant(skip) {
      this.stage.classList.toggle("instant", !!skip);
    }

    async playAction(params = {}) {
      const count = this.spec.steps?.length || 1;
      const target = params.goto ?? (this.step ?? -1) + (params.delta ?? 1);
      if (target >= count) { // past the last step: the end, at the step count (as our Server API says)
        await this.stopAction(params);
        return ok({ currentStep: count });
      }
      const first = this.step === undefined;
      this.step = Math.max(0, target);
      if (first) this.shownAt = this.clock.now();
      this.instant(params.skipAnimation);
      this.stage.classList.remove("off");
      this.cue();
      this.showConnection();
      if (first) {
        void this.stage.offsetWidth; // the parts' "out" look is laid out first: the entrance plays
        this.stage.classList.add("live");
        this.ctx.live = true;
        this.graphic.play?.();
      }
      await this.settled();
      return ok({ currentStep: this.step });
    }

    async stopAction(params = {}) {
      this.instant(params.skipAnimation);
      this.step = undefined;
      this.stage.classList.remove("live");
      this.ctx.live = false;
      this.graphic.stop?.();
      this.cue();
      this.showConnection();
      await this.settled();
      if (this.step === undefined) this.stage.classList.add("off"); // not played again meanwhile
      return ok();
    }

    async updateAction(params = {}) {
      this.data = { ...this.data, ...(params.data || {}) };
      this.instant(params.skipAnimation);
      if (this.step !== undefined) this.cue();
      await this.settled();
      return ok();
    }

    async customAction(params = {}) {
      if (params.id !== "replay") throw new Error(`No custom action ${params.id}: this graphic has "replay"`);
      if (this.step === undefined) return ok({ statusMessage: "Not playing: nothing to replay" });
      this.stage.classList.add("instant");
      this.stage.classList.remove("live");
      this.graphic.stop?.();
      void this.stage.offsetWidth;
      this.stage.classList.remove("instant");
      this.stage.classList.add("live");
      this.graphic.play?.();
      await this.settled();
      return ok();
    }

    async dispose() {
      this.socket?.close();
      clearInterval(this.resync);
      clearTimeout(this.revealTimer);
      this.resize?.disconnect();
      this.shadowRoot.replaceChildren();
      return ok();
    }
  };
}
