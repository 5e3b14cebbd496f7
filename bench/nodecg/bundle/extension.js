// bench/nodecg.py's NodeCG bundle: one replicant, `state`, of the same size and shape as
// chgk-overlay's public state (state.json, written by the bench from a real chgk public view),
// and POST /bench/state {"rev": n} that makes a new value (the template with that rev) and
// assigns it. NodeCG sends the assignment to every socket in the replicant's room and saves it
// to its SQLite database afterwards (throttled, default 100 ms), as any bundle's would be.
"use strict";

const fs = require("node:fs");
const path = require("node:path");

module.exports = function (nodecg) {
	const template = fs.readFileSync(path.join(__dirname, "state.json"), "utf8");
	const state = nodecg.Replicant("state", { defaultValue: { ...JSON.parse(template), rev: 0 } });
	const router = nodecg.Router();
	router.post("/state", (req, res) => {
		const rev = req.body && req.body.rev;
		if (!Number.isInteger(rev)) {
			res.status(400).json({ error: "send {\"rev\": <integer>}" });
			return;
		}
		const value = JSON.parse(template);
		value.rev = rev;
		state.value = value;
		res.json({ rev });
	});
	router.get("/state", (_req, res) => res.json({ rev: state.value.rev, revision: state.revision }));
	nodecg.mount("/bench", router);
};
