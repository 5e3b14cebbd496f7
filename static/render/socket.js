// Served in place of the Socket.IO client while a render draws a page (overlay/post/render.py):
// `io()` gives a socket the renderer drives — it connects when told, hands over the states and
// graphics the game recorded at their instants, and answers the clock's `time` round trips with
// the virtual clock (static/render/clock.js), half a ms early as the server's whole ms are.
const handlers = {};
const socket = {
  connected: false,
  active: true,
  id: "render",
  on(event, fn) {
    (handlers[event] ??= []).push(fn);
    return socket;
  },
  off() {
    return socket;
  },
  emit(event, ...args) {
    const ack = typeof args[args.length - 1] === "function" ? args.pop() : null;
    if (ack && event === "time") ack({ server_now: Date.now() - 0.5 });
    else if (ack) ack({});
    return socket;
  },
  timeout() {
    return { emit: (event, data, ack) => socket.emit(event, data, (reply) => ack(null, reply)) };
  },
  connect() {
    return socket;
  },
  disconnect() {
    return socket;
  },
};

function fire(event, payload) {
  for (const fn of handlers[event] || []) fn(payload);
}

window.__render.socket = {
  connect() {
    socket.connected = true;
    fire("connect");
  },
  fire,
};

export function io() {
  return socket;
}
