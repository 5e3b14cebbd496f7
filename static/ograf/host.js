// Uploaded OGraf graphics on the rundown's output (`/overlays/show`): one sandboxed frame per
// layer that holds an `ograf:<id>` item. The frame (`/ograf/frame/<id>`, static/ograf/frame.js)
// has `sandbox="allow-scripts"` and no allow-same-origin: the graphic runs in an opaque origin,
// reaches neither this page nor its cookies nor /api, and hears from us only by postMessage.
// The layer's entry (from the server) decides what the graphic does: a new item = load +
// playAction; a higher `step` = playAction {delta: 1} per step; other `data` or a higher `updates` (F5) = updateAction;
// more `actions` = customAction for each new one; the item gone = stopAction, then dispose.
// A page that connects late plays the entry's steps and custom actions with skipAnimation.

const RESOLUTION = { width: 1920, height: 1080 };
const STOP_WAIT_MS = 5000; // a graphic that never answers stopAction is removed after this

function frameOf(stage, entry, z, src) {
  const iframe = document.createElement("iframe");
  iframe.setAttribute("sandbox", "allow-scripts");
  iframe.setAttribute("referrerpolicy", "no-referrer");
  iframe.setAttribute("scrolling", "no");
  iframe.setAttribute("tabindex", "-1");
  iframe.className = "ograf-frame";
  iframe.style.cssText = "position:absolute;left:0;top:0;width:1920px;height:1080px;border:0;" +
    "background:transparent;color-scheme:normal;pointer-events:none";
  iframe.style.zIndex = z;
  iframe.dataset.graphic = entry.graphic;
  iframe.dataset.calls = "";
  iframe.src = src; // before it is in the page: its first load is the frame we made, never about:blank
  stage.appendChild(iframe);
  return iframe;
}

/** One graphic in one frame: calls are queued and sent in order once the frame is ready.
 * `hostile(why)`: the frame left the document we made for it (issue 37) — a graphic that sets
 * its frame's location, follows a link or a <meta refresh>. The page's CSP (frame-src 'self')
 * stops such a navigation before any request leaves, but the frame then loads again (an error
 * page, or one of our pages): any second `load`, or a `ready` from another address, is a
 * hostile graphic. */
function channel(iframe, hostile) {
  let seq = 0;
  const pending = new Map();
  let ready;
  const isReady = new Promise((resolve) => (ready = resolve));
  function onMessage(event) {
    if (event.source !== iframe.contentWindow) return; // another frame (or page) is not this graphic
    const msg = event.data;
    if (!msg || msg.ograf !== 1) return;
    if (msg.ready) {
      let url = "";
      try {
        url = new URL(String(msg.url || ""), location.href).pathname;
      } catch (_e) { /* not a URL */ }
      if (url !== new URL(iframe.src, location.href).pathname) return hostile(`its frame is at ${String(msg.url).slice(0, 200)}`);
      ready();
    }
    const p = typeof msg.id === "number" ? pending.get(msg.id) : null;
    if (!p) return;
    pending.delete(msg.id);
    p(msg);
  }
  window.addEventListener("message", onMessage);
  let loads = 0;
  const onLoad = () => {
    if (++loads > 1) hostile("it navigated its frame away from the graphic");
  };
  iframe.addEventListener("load", onLoad);
  let chain = isReady;
  return {
    call(method, params) {
      const id = ++seq;
      chain = chain.then(() => new Promise((resolve) => {
        pending.set(id, resolve);
        iframe.contentWindow?.postMessage({ ograf: 1, id, method, params }, "*");
      })).then((msg) => {
        iframe.dataset.calls += (iframe.dataset.calls ? "," : "") + method + (msg.ok ? "" : "!");
        if (!msg.ok) iframe.dataset.error = (iframe.dataset.error ? iframe.dataset.error + " | " : "") + method + ": " + (msg.error || "");
        return msg;
      });
      return chain;
    },
    close() {
      window.removeEventListener("message", onMessage);
      iframe.removeEventListener("load", onLoad);
      pending.clear();
    },
  };
}

export default function ografHost(stage) {
  const held = new Map(); // layer → {key, iframe, ch, step, data, actions}

  function retire(layer) {
    const h = held.get(layer);
    if (!h) return;
    held.delete(layer);
    if (h.refused) return h.iframe.remove();
    h.iframe.dataset.leaving = "1";
    const gone = () => {
      h.ch.close();
      h.iframe.remove();
    };
    const timer = setTimeout(gone, STOP_WAIT_MS);
    h.ch.call("stopAction", {}).then(() => h.ch.call("dispose", {})).then(() => {
      clearTimeout(timer);
      gone();
    });
  }

  /** A graphic that left its frame: the frame goes at once (nothing of it drawn again, no call
   * sent), a mark stays in its place for the desk (static/control/rundown.js says why and takes
   * the item out), and the layer's entry is not loaded again while it is on air. */
  function refuse(h, why) {
    if (h.refused) return;
    h.refused = true;
    h.ch.close();
    const mark = document.createElement("div");
    mark.className = "ograf-frame ograf-refused";
    mark.hidden = true;
    Object.assign(mark.dataset, { graphic: h.iframe.dataset.graphic, layer: h.iframe.dataset.layer,
                                  item: h.iframe.dataset.item, calls: h.iframe.dataset.calls, hostile: "1",
                                  error: `hostile: ${why}` });
    h.iframe.replaceWith(mark);
    h.iframe = mark;
  }

  function take(layer, e, z) {
    let h = null;
    const iframe = frameOf(stage, e, z, e.ograf.frame);
    iframe.dataset.layer = layer;
    iframe.dataset.item = e.item || "";
    const ch = channel(iframe, (why) => h && refuse(h, why));
    h = { key: `${e.item}@${e.shown_at}`, iframe, ch, step: 0, data: JSON.stringify(e.data || {}), actions: 0,
                updates: e.updates || 0 };
    held.set(layer, h);
    ch.call("load", { data: e.data || {}, renderType: "realtime", renderCharacteristics: { resolution: RESOLUTION } });
    ch.call("playAction", {});
    follow(h, e, true);
  }

  function follow(h, e, catchUp) {
    if (h.refused) return;
    const data = JSON.stringify(e.data || {});
    if (data !== h.data || (e.updates || 0) > h.updates) { // F5: new data, or the same sent again
      h.data = data;
      h.updates = e.updates || 0;
      h.ch.call("updateAction", { data: e.data || {} });
    }
    for (; h.step < (e.step || 0); h.step++) h.ch.call("playAction", catchUp ? { delta: 1, skipAnimation: true } : { delta: 1 });
    const actions = e.actions || [];
    for (; h.actions < actions.length; h.actions++) {
      const a = actions[h.actions];
      h.ch.call("customAction", catchUp ? { id: a.id, payload: a.payload, skipAnimation: true } : { id: a.id, payload: a.payload });
    }
  }

  return {
    /** `entries`: {layer: entry} of the `ograf:` items this page shows; `zOf(entry)`: its z-index. */
    apply(entries, zOf) {
      for (const layer of [...held.keys()]) {
        const e = entries[layer];
        if (!e || `${e.item}@${e.shown_at}` !== held.get(layer).key) retire(layer);
      }
      for (const [layer, e] of Object.entries(entries)) {
        if (!e?.ograf?.frame) continue;
        const h = held.get(layer);
        if (!h) take(layer, e, zOf(e));
        else if (!h.refused) {
          h.iframe.style.zIndex = zOf(e);
          follow(h, e, false);
        }
      }
    },
  };
}
