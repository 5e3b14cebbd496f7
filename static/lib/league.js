// What the league graphics (season-rating, final-teams, series) share: their words, where
// their data comes from (the public league endpoint, fetched again whenever the server says
// league data changed: socket "league"), and their life as cues — on air while `graphics` has
// the graphic shown, until `expires_at`. Not game state: the followed game only tells which
// season is the default.

import { show } from "./dom.js";
import { translator } from "./i18n.js";

/** The most rating rows a league graphic shows (season-rating's `top` is capped here). */
export const LEAGUE_TOP = 40;

/** Strings of the league graphics in the page's language: the catalog's `league_*` on-air keys. */
export function leagueText(lang, catalog) {
  const t = catalog ? translator(lang, catalog) : translator(lang); // the page's inline catalog, or an OGraf host's
  const tx = (key) => t(`league_${key}`);
  tx.n = (key, n) => t.n(`league_${key}`, n);
  return tx;
}

/**
 * Where a league graphic gets its data. `kind` is "seasons" or "series"; the id comes from the
 * cue's data, else the page's query (?season= / ?series=), else the followed game's season,
 * else the newest one. `onData(data)` is called with each fetched public view (null: none).
 */
function leagueSource(kind, ctx, onData) {
  const key = kind === "seasons" ? "season" : "series";
  const server = ctx.config?.server || ""; // our page: its own server; an OGraf graphic: the one it follows
  const query = new URLSearchParams(location.search);
  let cueId = null;
  let gameSeason = null;
  let wanted = null;
  let seq = 0;
  let hooked = false;

  async function pickId() {
    if (cueId) return cueId;
    if (query.get(key)) return query.get(key);
    if (kind === "seasons" && gameSeason) return gameSeason;
    const index = await (await fetch(`${server}/api/public/league`, { cache: "no-store" })).json();
    const list = index[kind] || [];
    return list.length ? list[list.length - 1].id : null;
  }

  async function refresh() {
    const mine = ++seq;
    try {
      const id = await pickId();
      if (!id) {
        if (mine === seq) onData(null);
        return;
      }
      const extra = kind === "seasons" ? `?top=${LEAGUE_TOP}` : "";
      const r = await fetch(`${server}/api/public/${kind}/${encodeURIComponent(id)}${extra}`, { cache: "no-store" });
      const data = r.ok ? await r.json() : null;
      if (mine === seq) onData(data); // a newer request supersedes this answer
    } catch {
      /* the server is away: keep what is on screen; the next notice or cue fetches again */
    }
  }

  function hook() {
    if (hooked) return;
    const socket = ctx.socket || window.chgkOverlay?.socket;
    if (!socket) return;
    hooked = true;
    socket.on("league", () => refresh());
    socket.on("connect", () => refresh()); // changes missed while disconnected
  }
  queueMicrotask(hook);

  return {
    refresh,
    /** Cue data changed: another season or series may be wanted. */
    cue(data) {
      hook();
      const id = data?.[key] ? String(data[key]) : null;
      const next = JSON.stringify([id]);
      if (next !== wanted) {
        wanted = next;
        cueId = id;
        refresh();
      }
    },
    /** The followed game's state: its season is the default one. */
    state(state) {
      hook();
      const s = state?.season ?? null;
      if (s !== gameSeason) {
        gameSeason = s;
        if (!cueId && !query.get(key)) refresh();
      }
    },
  };
}

/** Visibility of a cue-driven graphic: shown while `graphics` has it, until `expires_at`. */
function cueVisibility(name, ctx, apply) {
  let outTimer = 0;
  return (onAir) => {
    clearTimeout(outTimer);
    const entry = onAir[name];
    const ends = entry?.expires_at ?? null;
    const on = !!entry && (ends == null || ctx.clock.now() < ends);
    apply(on, entry?.data || {});
    if (on && ends != null) outTimer = setTimeout(() => apply(false, entry.data || {}), Math.max(0, ends - ctx.clock.now()));
  };
}

/**
 * Runs a league graphic over its part element `el`: `draw(data, cueData)` fills it from the
 * fetched public view (data null: none yet) and returns whether there is something to show;
 * the part is on air while the cue is and `draw` says so. `followGame`: the followed game's
 * season is the default one (seasons). Returns the module's interface (update, cue).
 */
export function leagueGraphic(name, kind, el, ctx, draw, { followGame = kind === "seasons" } = {}) {
  let data = null;
  let cueData = {};
  let onAir = false;

  function render() {
    const ready = draw(data, cueData);
    show(el, onAir && ready);
  }

  const source = leagueSource(kind, ctx, (d) => {
    data = d;
    render();
  });
  const visibility = cueVisibility(name, ctx, (on, d) => {
    onAir = on;
    cueData = d;
    if (on) source.cue(d);
    render();
  });
  source.refresh(); // ready before the first cue: the graphic comes in at once

  return {
    update(state) {
      if (followGame) source.state(state);
    },
    cue(graphics) {
      visibility(graphics);
    },
  };
}
