// The rundown's output (`/overlays/show`): every graphic's module over one connection, as `full`
// composes them, but each part is on air only while an item of its kind is on one of this
// page's layers — `?layers=straps,bug` (exact names; all layers when absent). With
// `?preview=1` the page shows instead the rundown's focused item, as it would go to air.
// Game graphics (question, scoreboard…) still draw from the public state; the layer only
// decides whether they are on this output.

export default function show(modules) {
  return function create(stage, ctx) {
    const query = ctx.config.query || {};
    const wanted = typeof query.layers === "string" && query.layers.trim()
      ? new Set(query.layers.split(",").map((s) => s.trim()).filter(Boolean))
      : null;
    const previewing = query.preview === "1";
    const parts = Object.entries(modules).map(([name, make]) => ({ name, part: make(stage, ctx) }));
    let map = {};

    function gate() {
      for (const el of stage.querySelectorAll("[data-part]")) el.classList.toggle("layer-off", !map[el.dataset.part]);
      stage.dataset.onAir = Object.keys(map).sort().join(" ");
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
        if (previewing) return;
        const next = {};
        for (const [layer, e] of Object.entries(msg?.layers || {})) {
          if (wanted && !wanted.has(layer)) continue;
          next[e.graphic] = { data: e.data, shown_at: e.shown_at, expires_at: e.expires_at, layer, item: e.item };
        }
        apply(next);
      },
      preview(p) {
        if (!previewing) return;
        stage.dataset.previewItem = p?.item || "";
        // no expiry in preview: the operator looks at it as long as it is focused
        apply(p?.item && p.graphic && !p.error
          ? { [p.graphic]: { data: p.data || {}, shown_at: p.shown_at, expires_at: null, layer: p.layer, item: p.item } }
          : {});
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
