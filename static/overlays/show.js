// The rundown's output (`/overlays/show`): every graphic's module over one connection, as `full`
// composes them, but each part is on air only while an item of its kind is on one of this
// page's layers — `?layers=straps,bug` (exact names; all layers when absent). With
// `?preview=1` the page shows instead the rundown's focused item, as it would go to air.
// Game graphics (question, scoreboard…) still draw from the public state; the layer only
// decides whether they are on this output.
// Stacking: each part is drawn at its level — the item's `stack`, else the graphic's own — in
// the order the server sends (`graphics.stack`, from overlay/graphics/show.py): slate and credits at
// the back, game graphics, straps, ticker and bug on top. The desk's program monitor is this
// page, so it draws the same order. An entry carries its `media` map: a picture named by its
// media id is drawn (bug, photo strap, slate background).
// Uploaded OGraf graphics (`ograf:<id>` items) each run in a sandboxed frame on their layer,
// drawn at their level like ours (static/ograf/host.js).
// The table and the question card drawn at once: the stage gets `fit-table-card` and show.css
// puts the table where `full` has it, small beside the card (the big disc would lie under it).

import ografHost from "../ograf/host.js";

export default function show(modules) {
  return function create(stage, ctx) {
    const query = ctx.config.query || {};
    const wanted = typeof query.layers === "string" && query.layers.trim()
      ? new Set(query.layers.split(",").map((s) => s.trim()).filter(Boolean))
      : null;
    const previewing = query.preview === "1";
    const parts = Object.entries(modules).map(([name, make]) => ({ name, part: make(stage, ctx) }));
    let map = {};
    let order = { levels: [], graphics: {} }; // the server's stacking order (graphics.stack)
    const ograf = ografHost(stage);
    // the table beside the card while both are drawn (in, on this output), else each its own layout
    const fitted = ["table", "question"].map((n) => stage.querySelector(`[data-part="${n}"]`)).filter(Boolean);
    // the credits' window ends above the ticker while the ticker is drawn (show.css, credits.js)
    const ticker = stage.querySelector('[data-part="ticker"]');
    const drawn = (el) => el.classList.contains("is-in") && !el.classList.contains("layer-off");
    // The slate is a background (level `back`): a question card drawn over it would cover its
    // clock, so the slate's lines rise until the clock clears the card's top (layout positions,
    // which no entrance transform moves; at most up to the safe area's top).
    const slate = stage.querySelector('[data-part="slate"]');
    const question = stage.querySelector('[data-part="question"]');
    const layoutTop = (el) => {
      let y = 0;
      for (let e = el; e && e !== stage; e = e.offsetParent) y += e.offsetTop;
      return y;
    };
    const liftSlate = () => {
      if (!slate) return;
      const body = slate.querySelector(".sl-body");
      const clock = slate.querySelector(".sl-clock");
      const card = question?.querySelector(".qc-card");
      let lift = 0;
      if (card && clock && drawn(slate) && drawn(question) && clock.offsetHeight) {
        const clear = layoutTop(card) - 24;
        const bottom = layoutTop(clock) + clock.offsetHeight;
        lift = Math.max(0, Math.min(bottom - clear, layoutTop(body.firstElementChild) - 54));
      }
      slate.style.setProperty("--slate-lift", `${Math.round(lift)}px`);
      slate.classList.toggle("under-card", lift > 0);
    };
    const fit = () => {
      stage.classList.toggle("fit-table-card", fitted.length === 2 && fitted.every(drawn));
      stage.classList.toggle("over-ticker", !!ticker && drawn(ticker));
      liftSlate();
    };
    const watch = new MutationObserver(fit);
    for (const el of [...fitted, ticker, slate].filter(Boolean)) watch.observe(el, { attributes: true, attributeFilter: ["class"] });
    // a longer question makes a taller card, a new slate line a longer body: fitted again
    const resized = new ResizeObserver(liftSlate);
    for (const el of [question?.querySelector(".qc-card"), slate?.querySelector(".sl-body")].filter(Boolean)) resized.observe(el);
    const zOf = (e) => {
      const z = order.levels.indexOf(e.stack || "game");
      return z >= 0 ? String(z + 1) : "";
    };

    function gate() {
      for (const el of stage.querySelectorAll("[data-part]")) {
        const name = el.dataset.part;
        el.classList.toggle("layer-off", !map[name]);
        const level = map[name]?.stack || order.graphics[name] || "";
        const z = order.levels.indexOf(level);
        el.dataset.stack = level;
        el.style.zIndex = z >= 0 ? String(z + 1) : "";
      }
      stage.dataset.onAir = Object.keys(map).sort().join(" ");
    }

    /** What a layer's entry (or the preview) puts on air for its graphic. */
    function entryOf(e, layer) {
      return { data: e.data || {}, shown_at: e.shown_at, expires_at: e.expires_at, layer, item: e.item,
               media: e.media || {}, stack: e.stack };
    }

    // A preview page without the operators' key draws nothing of the item: it says so, and how
    // to get the key, instead of a blank frame (gone as soon as a key in the address is taken).
    const { t } = ctx;
    let note = null;
    function refused(on) {
      if (on && !note) {
        note = document.createElement("div");
        note.className = "preview-refused";
        note.setAttribute("role", "alert");
        const title = document.createElement("strong");
        title.textContent = t("preview_needs_key");
        const how = document.createElement("span");
        how.textContent = t("preview_needs_key_how");
        note.append(title, how);
        stage.append(note);
      } else if (!on && note) {
        note.remove();
        note = null;
      }
      stage.dataset.previewRefused = on ? "true" : "";
    }

    function apply(next) {
      const prev = map;
      map = next;
      for (const { part } of parts) part.cue?.(map, prev);
      gate();
    }

    return {
      update(state, prev) {
        for (const { part } of parts) part.update(state, prev);
        gate();
      },
      cue(_graphics, _prev, msg) {
        if (msg?.stack) order = msg.stack;
        if (previewing) {
          gate();
          return;
        }
        const next = {};
        const theirs = {};
        for (const [layer, e] of Object.entries(msg?.layers || {})) {
          if (wanted && !wanted.has(layer)) continue;
          if (e.graphic?.startsWith("ograf:")) theirs[layer] = e;
          else next[e.graphic] = entryOf(e, layer);
        }
        ograf.apply(theirs, zOf);
        apply(next);
      },
      preview(p) {
        if (!previewing) return;
        refused(p?.error?.code === "preview_needs_operator");
        stage.dataset.previewItem = p?.item || "";
        // no expiry in preview: the operator looks at it as long as it is focused
        const theirs = p?.item && p.graphic?.startsWith("ograf:") && !p.error;
        ograf.apply(theirs ? { [p.layer]: { ...p, shown_at: "preview" } } : {}, zOf); // one frame while focused: edits update it
        if (theirs) return apply({});
        apply(p?.item && p.graphic && !p.error ? { [p.graphic]: { ...entryOf(p, p.layer), expires_at: null } } : {});
      },
      play() {
        for (const { part } of parts) part.play?.();
      },
      stop() {
        for (const { part } of parts) part.stop?.();
      },
    };
  };
}
