// What one Socket.IO message costs the receiving socket.io-client, by size (issue 33): N sockets
// in one Node process against bench/bare_server.py, which re-broadcasts what it is POSTed.
//
//   python bench/bare_server.py --mode eventlet --port 5100 &
//   NODE_PATH=<install-dir>/client/node_modules node bench/nodecg/msg_size.js http://127.0.0.1:5100 200 30 STATE.json
//
// STATE.json: a public state (GET /api/games/g1/public of a demo server after a spin). For each
// payload — that state (Cyrillic text), the same bytes made ASCII, a typical `state_patch`, a
// 20-byte object — `reps` broadcasts one at a time, each awaited at every socket; prints the
// client's CPU (user + system) per message received.
"use strict";

const fs = require("node:fs");
const http = require("node:http");
const { performance } = require("node:perf_hooks");
const { io } = require("socket.io-client");

const [url, n, reps, statePath] = [process.argv[2], Number(process.argv[3]), Number(process.argv[4] || 30), process.argv[5]];
const state = JSON.parse(fs.readFileSync(statePath, "utf8"));
const payloads = {
	"state (as served)": state,
	"state, ASCII only": JSON.parse(JSON.stringify(state).replace(/[^\x00-\x7f]/g, "x")),
	"state_patch (start_timer)": {
		id: state.id, epoch: state.epoch, base: 1, rev: 2,
		ops: [[["timer"], { duration_ms: 60000, ends_at: 1796535072410, kind: "minute", remaining_ms: 60000, running: true }],
			[["round", "phase"], "discussion"], [["server_now"], 1796534422375]],
	},
	"tiny": { id: state.id, rev: 0 },
};

function post(body) {
	const data = JSON.stringify(body);
	return new Promise((resolve, reject) => {
		const req = http.request(`${url}/emit`, {
			method: "POST", headers: { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(data) },
		}, (res) => { res.resume(); res.on("end", resolve); });
		req.on("error", reject);
		req.end(data);
	});
}

async function main() {
	const held = new Float64Array(n).fill(-1);
	let target = -1;
	let count = 0;
	let done = null;
	for (let i = 0; i < n; i++) {
		await new Promise((resolve, reject) => {
			const s = io(`${url}/overlay`, { transports: ["websocket"], forceNew: true, reconnection: false });
			s.on("connect", resolve);
			s.on("connect_error", reject);
			s.on("state", (st) => {
				if (st.rev > held[i]) {
					held[i] = st.rev;
					if (st.rev === target && ++count === n) done();
				}
			});
		});
	}
	let rev = 0;
	for (const pass of [0, 1]) { // the first pass warms up
		for (const [name, p] of Object.entries(payloads)) {
			const bytes = Buffer.byteLength(JSON.stringify(p));
			const c0 = process.cpuUsage();
			const t0 = performance.now();
			for (let k = 0; k < reps; k++) {
				target = ++rev;
				count = 0;
				const all = new Promise((resolve) => { done = resolve; });
				await post({ ...p, rev });
				await all;
			}
			const c = process.cpuUsage(c0);
			if (pass) {
				console.log(`${name.padEnd(26)} ${String(bytes).padStart(5)} B: ${((c.user + c.system) / reps / n).toFixed(1)} µs per message`
					+ ` (user ${(c.user / reps / n).toFixed(1)}, system ${(c.system / reps / n).toFixed(1)}),`
					+ ` ${((performance.now() - t0) / reps).toFixed(1)} ms per broadcast`);
			}
		}
	}
	process.exit(0);
}

main().catch((err) => {
	process.stderr.write(`${err.stack || err}\n`);
	process.exit(1);
});
