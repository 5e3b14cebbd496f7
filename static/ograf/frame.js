// The runtime inside one uploaded graphic's sandboxed frame (/ograf/frame/<id>): imports the
// graphic's `main` module, puts its Web Component in the page and calls its methods (EBU OGraf
// v1 GraphicsAPI: load, playAction, updateAction, stopAction, customAction, dispose) as the
// parent asks by postMessage. Answers go back the same way. The frame is an opaque origin (no
// allow-same-origin), so nothing here can reach the parent's page, cookies or /api.
(function () {
  "use strict";
  const METHODS = ["load", "playAction", "updateAction", "stopAction", "customAction", "dispose"];
  const main = document.body.dataset.main;
  let element = null;
  let chain = Promise.resolve(); // one call at a time, in the order the parent sent them

  // WebRTC is governed by no Content-Security-Policy: a peer connection's ICE (STUN, TURN) would
  // reach any address from the frame (issue 37). Gone before the graphic's code runs, for good
  // (not configurable); a frame it nests is another origin, so it cannot fetch them from there.
  for (const name of ["RTCPeerConnection", "webkitRTCPeerConnection", "RTCDataChannel", "RTCIceTransport",
                      "RTCDtlsTransport", "RTCSctpTransport", "RTCRtpSender", "RTCRtpReceiver", "RTCRtpTransceiver"]) {
    try {
      Object.defineProperty(window, name, { value: undefined, writable: false, configurable: false, enumerable: false });
    } catch (_e) { /* absent in this browser */ }
  }

  function reply(msg) {
    window.parent.postMessage({ ograf: 1, ...msg }, "*");
  }

  async function mount() {
    const mod = await import(new URL(main, document.baseURI).href); // absolute: a cross-origin classic script has no base URL
    const Graphic = mod.default;
    if (typeof Graphic !== "function") throw new Error("the main module has no default export (a Web Component class)");
    const tag = "ograf-graphic-" + Math.random().toString(36).slice(2, 10);
    customElements.define(tag, Graphic);
    element = document.createElement(tag);
    document.body.appendChild(element);
  }

  async function call(method, params) {
    if (!METHODS.includes(method)) throw new Error("unknown method " + method);
    if (method === "load") await mount();
    if (!element || typeof element[method] !== "function") {
      if (method === "dispose") return undefined;
      throw new Error("the graphic has no " + method + "()");
    }
    const result = await element[method](params || {});
    if (method === "dispose") {
      element.remove();
      element = null;
    }
    return result;
  }

  window.addEventListener("message", (event) => {
    if (event.source !== window.parent) return; // only the renderer that holds this frame
    const msg = event.data;
    if (!msg || msg.ograf !== 1 || typeof msg.id !== "number") return;
    chain = chain.then(() => call(msg.method, msg.params)).then(
      (result) => {
        let safe;
        try {
          safe = JSON.parse(JSON.stringify(result ?? null));
        } catch (_e) {
          safe = null;
        }
        reply({ id: msg.id, ok: true, result: safe });
      },
      (err) => reply({ id: msg.id, ok: false, error: String(err?.message || err).slice(0, 300) }),
    );
  });
  reply({ ready: true, url: location.href }); // the host checks that this is the frame it made
})();
