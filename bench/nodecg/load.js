// The load client of bench/nodecg.py: N socket.io-client sockets in ONE Node process, the same
// code for NodeCG and chgk-overlay, so that the client side costs both servers the same.
//
//   node load.js --target chgk|nodecg --url http://127.0.0.1:PORT --n 500
//                [--commands 200] [--warmup 100] [--gap-ms 10] [--token T] [--batch 50] [--patches 1]
//
// Every socket uses the websocket transport only and its own Engine.IO connection (forceNew).
//   chgk:   the `/overlay` namespace, as the overlays connect (static/lib/client.js); the server
//           sends `state` on connect and after every change; a socket holds the rev of the
//           newest `state` it got. `--patches 1`: the sockets ask for `state_patch` as
//           static/lib/client.js does, apply each to the state they hold (a patch for another
//           base: `resync`, then the whole state) and hold the resulting rev. Commands: POST /api/games/g1/commands and /undo with the
//           token, the endless demo round of bench/latency.py's send_cycle (spin, start_timer,
//           undo, undo); the new rev is in the answer.
//   nodecg: the root namespace, as NodeCG's browser API does for a Replicant: `joinRoom`
//           "replicant:<bundle>:state", then `replicant:declare` (ack: value and revision), then
//           `replicant:operations` events whose operations it applies (an assignment is one
//           "overwrite" of "/"); a socket holds the `rev` field of the value it has applied.
//           Commands: POST /bench/state {"rev": n}, which assigns a new ~2 kB value (bundle/).
// Each command is timed from just before the HTTP request until the LAST socket holds the new
// rev (stamped first thing in each socket's handler), then the next is sent `gap` ms later; the
// FIRST and the MEDIAN socket's times are recorded too (the median: what a typical client sees).
// Prints one JSON line: {"target", "n", "latency_ms": [...], "ack_ms": [...], ...}.
"use strict";

const http = require("node:http");
const { performance } = require("node:perf_hooks");
const { io } = require("socket.io-client");

const BUNDLE = "chgk-bench-bundle";
const REGULAR = [1, 2, 3, 4, 6, 7, 8, 10, 11, 12]; // the demo game's single-question sectors
const CYCLE = ["spin", "start_timer", "undo", "undo"];

function parseArgs(argv) {
	const a = { commands: 200, warmup: 100, "gap-ms": 10, batch: 50, token: "", "timeout-ms": 60000, patches: 0 };
	for (let i = 0; i < argv.length; i += 2) {
		const key = argv[i].replace(/^--/, "");
		a[key] = argv[i + 1];
	}
	for (const k of ["n", "commands", "warmup", "gap-ms", "batch", "timeout-ms", "patches"]) a[k] = Number(a[k]);
	if (!["chgk", "nodecg"].includes(a.target) || !a.url || !(a.n > 0)) {
		throw new Error("usage: load.js --target chgk|nodecg --url URL --n N [--commands C] [--warmup W]");
	}
	return a;
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** static/lib/client.js's `patched`: a new state, copying only the objects on each op's path. */
function patched(state, ops) {
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

/** Which rev each socket holds, and when the last socket reached a given rev. */
class Holders {
	constructor(n) {
		this.n = n;
		this.held = new Float64Array(n).fill(-1);
		this.at = new Float64Array(n); // when held[i] last changed
		this.target = null;
		this.count = 0;
		this.first = Infinity; // when the FIRST socket got the target: the server's part, mostly
		this.last = 0;
		this.done = null;
		this.stale = 0; // messages older than what a socket holds (must stay 0: per-client order)
	}

	got(i, rev, t) {
		if (rev <= this.held[i]) {
			this.stale += rev < this.held[i] ? 1 : 0;
			return;
		}
		const before = this.held[i];
		this.held[i] = rev;
		this.at[i] = t;
		if (this.target !== null && rev >= this.target && before < this.target) {
			this.count++;
			this.first = Math.min(this.first, t);
			this.last = Math.max(this.last, t);
			if (this.count === this.n) this._finish();
		}
	}

	/** Resolves with the time the last socket got `rev` (some may have it already). */
	wait(rev, timeoutMs) {
		this.target = rev;
		this.count = 0;
		this.first = Infinity;
		this.last = 0;
		for (let i = 0; i < this.n; i++) {
			if (this.held[i] >= rev) {
				this.count++;
				this.first = Math.min(this.first, this.at[i]);
				this.last = Math.max(this.last, this.at[i]);
			}
		}
		return new Promise((resolve, reject) => {
			const timer = setTimeout(() => {
				this.done = null;
				reject(new Error(`rev ${rev}: only ${this.count} of ${this.n} sockets got it in ${timeoutMs} ms`));
			}, timeoutMs);
			this.done = () => {
				clearTimeout(timer);
				this.done = null;
				resolve(this.last);
			};
			if (this.count === this.n) this._finish();
		});
	}

	_finish() {
		if (this.done) this.done();
	}

	/** When the median socket got the target: what a typical client sees (once all have it). */
	median() {
		const at = Float64Array.from(this.at).sort();
		return at[(this.n - 1) >> 1];
	}
}

class Http {
	constructor(base, headers) {
		const u = new URL(base);
		this.host = u.hostname;
		this.port = Number(u.port);
		this.headers = headers;
		this.agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
	}

	post(path, body) {
		const data = JSON.stringify(body);
		return new Promise((resolve, reject) => {
			const req = http.request(
				{
					host: this.host, port: this.port, path, method: "POST", agent: this.agent,
					headers: { ...this.headers, "Content-Type": "application/json", "Content-Length": Buffer.byteLength(data) },
				},
				(res) => {
					const chunks = [];
					res.on("data", (c) => chunks.push(c));
					res.on("end", () => {
						const text = Buffer.concat(chunks).toString("utf8");
						if (res.statusCode !== 200) {
							reject(new Error(`POST ${path} -> ${res.statusCode} ${text.slice(0, 300)}`));
							return;
						}
						resolve(JSON.parse(text));
					});
				},
			);
			req.on("error", reject);
			req.end(data);
		});
	}
}

// the two servers: how a socket subscribes, and how a command is sent --------------------------

const targets = {
	chgk: {
		connect(url, i, holders, ready, fail, errors, patches) {
			const s = io(`${url}/overlay`, {
				transports: ["websocket"], forceNew: true, reconnection: false, auth: patches ? { patches: 1 } : {},
			});
			let first = true;
			let held = null;
			let resyncing = false;
			s.on("state", (state) => {
				const t = performance.now();
				held = state;
				resyncing = false;
				if (state && typeof state.rev === "number") holders.got(i, state.rev, t);
				if (first) {
					first = false;
					ready();
				}
			});
			s.on("state_patch", (p) => {
				const t = performance.now();
				if (resyncing) return;
				if (!held || held.id !== p.id || held.epoch !== p.epoch || held.rev !== p.base) {
					errors.push(`patch for rev ${p.base}, holding ${held && held.rev}`);
					resyncing = true;
					s.emit("resync");
					return;
				}
				held = patched(held, p.ops);
				holders.got(i, held.rev, t);
			});
			s.on("connect_error", fail);
			return s;
		},
		commander(url, token) {
			const h = new Http(url, token ? { Authorization: `Bearer ${token}` } : {});
			let i = 0;
			const send = async () => {
				const step = CYCLE[i % CYCLE.length];
				const body = step === "spin" ? { type: "spin", landed: REGULAR[Math.floor(i / CYCLE.length) % REGULAR.length] }
					: step === "undo" ? {} : { type: step };
				i++;
				const answer = await h.post(step === "undo" ? "/api/games/g1/undo" : "/api/games/g1/commands", body);
				return answer.state.rev;
			};
			// the rest of the cycle, untimed: the next row's client starts from a spin
			send.finish = async () => {
				while (i % CYCLE.length) await send();
			};
			return send;
		},
	},
	nodecg: {
		connect(url, i, holders, ready, fail, errors) {
			const s = io(url, { transports: ["websocket"], forceNew: true, reconnection: false });
			let revision = null;
			s.on("replicant:operations", (data) => {
				const t = performance.now();
				if (data.name !== "state" || data.namespace !== BUNDLE || revision === null) return;
				if (data.revision !== revision + 1) errors.push(`revision ${data.revision} after ${revision}`);
				revision = data.revision;
				let value;
				for (const op of data.operations) {
					if (op.method === "overwrite" && op.path === "/") value = op.args.newValue;
					else errors.push(`unexpected operation ${op.method} ${op.path}`);
				}
				if (value && typeof value.rev === "number") holders.got(i, value.rev, t);
			});
			s.on("connect", () => {
				s.emit("joinRoom", `replicant:${BUNDLE}:state`, (err) => {
					if (err) return fail(new Error(`joinRoom: ${err}`));
					s.emit("replicant:declare", { name: "state", namespace: BUNDLE, opts: {} }, (err2, data) => {
						if (err2 || !data) return fail(new Error(`replicant:declare: ${err2}`));
						revision = data.revision;
						holders.got(i, data.value.rev, performance.now());
						ready();
					});
				});
			});
			s.on("connect_error", fail);
			return s;
		},
		commander(url) {
			const h = new Http(url, {});
			let rev = null;
			return async () => {
				if (rev === null) rev = (await new Promise((resolve, reject) => {
					http.get(`${url}/bench/state`, (res) => {
						const chunks = [];
						res.on("data", (c) => chunks.push(c));
						res.on("end", () => resolve(JSON.parse(Buffer.concat(chunks).toString())));
					}).on("error", reject);
				})).rev;
				rev++;
				return (await h.post("/bench/state", { rev })).rev;
			};
		},
	},
};

async function main() {
	const a = parseArgs(process.argv.slice(2));
	const target = targets[a.target];
	const holders = new Holders(a.n);
	const errors = [];
	const sockets = [];
	const c0 = performance.now();
	for (let start = 0; start < a.n; start += a.batch) {
		const batch = [];
		for (let i = start; i < Math.min(a.n, start + a.batch); i++) {
			batch.push(new Promise((resolve, reject) => {
				sockets[i] = target.connect(a.url, i, holders, resolve, reject, errors, a.patches);
			}));
		}
		await Promise.all(batch);
	}
	const connectMs = performance.now() - c0;
	const send = target.commander(a.url, a.token);
	const latency = [];
	const first = [];
	const median = [];
	const ack = [];
	const sentAt = []; // CLOCK_MONOTONIC ns of each timed send, to line up with a server-side trace
	const cpu0 = process.cpuUsage();
	for (let k = 0; k < a.warmup + a.commands; k++) {
		const mono = process.hrtime.bigint();
		const t0 = performance.now();
		const rev = await send();
		const t1 = performance.now();
		const last = await holders.wait(rev, a["timeout-ms"]);
		if (k >= a.warmup) {
			latency.push(last - t0);
			first.push(holders.first - t0);
			median.push(holders.median() - t0);
			ack.push(t1 - t0);
			sentAt.push(Number(mono));
		}
		await sleep(a["gap-ms"]);
	}
	const cpu = process.cpuUsage(cpu0);
	if (send.finish) await send.finish();
	for (const s of sockets) s.close();
	process.stdout.write(JSON.stringify({
		target: a.target, n: a.n, commands: a.commands, warmup: a.warmup, connect_ms: connectMs,
		latency_ms: latency, first_ms: first, median_ms: median, ack_ms: ack, sent_ns: sentAt, stale: holders.stale, errors: errors.slice(0, 20),
		client_cpu_ms: (cpu.user + cpu.system) / 1000,
	}) + "\n", () => process.exit(0)); // a pipe is written asynchronously: exit once all of it is out
}

main().catch((err) => {
	process.stderr.write(`${err.stack || err}\n`);
	process.exit(1);
});
