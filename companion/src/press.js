// Presses go to the server one after another, in the order they were pressed, each with the rev it
// was based on (`expected_rev`), as the panel's PressOrder does (docs/API.md, "expected_rev"):
// - a press made while the previous one is still on its way goes with the rev that one returned
//   (spin, then the minute at once: the minute is for the new round); if that one was refused,
//   the follower is not sent;
// - the same key again within 400 ms (a bounce, a double press) goes with its first press's rev,
//   so the server answers 409 and it is done once;
// - any other press goes with the rev the keys showed when it was pressed, so a change made
//   meanwhile by a panel or another desk makes it stale instead of acting on a game it did not see.
export const BOUNCE_MS = 400

export class PressOrder {
	constructor(bounceMs = BOUNCE_MS) {
		this.bounceMs = bounceMs
		this.tail = Promise.resolve({ ok: true })
		this.pending = 0
		this.first = null
	}

	/** `send(rev, {bounce})` sends the press and resolves `{ok, rev}`; returns what it resolves. */
	press(key, shownRev, send) {
		const now = Date.now()
		const bounce = !!this.first && this.first.key === key && now - this.first.at < this.bounceMs
		if (!bounce) this.first = { key, at: now, rev: shownRev }
		const rev = bounce ? this.first.rev : shownRev
		const follows = this.pending > 0 && !bounce
		this.pending++
		const run = this.tail
			.then(async (before) => {
				if (follows && !before?.ok) return { ok: false, skipped: true }
				return send(follows && typeof before?.rev === 'number' ? before.rev : rev, { bounce })
			})
			.finally(() => {
				this.pending--
			})
		this.tail = run.catch(() => ({ ok: false }))
		return run
	}
}
