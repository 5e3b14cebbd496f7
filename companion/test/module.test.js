// The module as Companion runs it (its entry point in a child process, test/host/) against a real
// chgk-overlay server: presses go in, state, feedbacks and variables come back (each change
// timed from its press); refusals show their reason; a wrong token and a restarted server show in the status
// and recover.
import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { CompanionHost } from './host/host.js'
import { Server, TOKEN, tvSpec, clubSpec } from './host/server.js'

// How fast a change shows on the keys is measured, not asserted: each change's time is collected
// and the last test prints them all. A bound on a shared 2-core machine fails by chance (a median
// of 118 ms in a loaded CI run, ~10 ms unloaded); `python bench/companion_keys.py` prints the
// figures over several rounds.
const latencies = []

function config(server, extra = {}) {
	return { host: '127.0.0.1', port: server.port, lang: 'en', rundown: '', ...extra }
}

/** Waits for `name` to become `value`; returns ms from `since` (performance.now()) to the message that set it. */
async function variableBecomes(host, name, value, since, what = name) {
	await host.waitFor(
		() => host.variables[name] === value,
		5000,
		`${what} = ${JSON.stringify(value)} (now ${JSON.stringify(host.variables[name])})`,
	)
	const ms = host.variableTimes[name] - since
	latencies.push({ what, ms })
	return ms
}

async function feedbackBecomes(host, id, value, what) {
	return host.waitFor(() => host.feedback(id) === value, 5000, `${what} = ${value}`)
}

describe('chgk-overlay module against a real server', () => {
	const server = new Server()
	let host
	let game
	const fb = {}

	before(async () => {
		await server.start()
		// the server's first command loads what it loads lazily: not part of what is measured
		const warm = (await server.ok('POST', '/api/games', tvSpec())).id
		await server.ok('POST', `/api/games/${warm}/commands`, { type: 'spin', landed: 1 })
		await server.ok('POST', `/api/games/${warm}/undo`, {})
		game = (await server.ok('POST', '/api/games', tvSpec())).id
		await server.ok('PUT', '/api/on-air', { game })
		host = new CompanionHost()
		await host.start()
		await host.init(config(server), { token: TOKEN })
		await host.waitFor(() => host.status?.status === 'ok', 10000, 'status ok')
		await host.waitFor(() => host.variables.score === '0:0', 5000, 'the first state')
		const ids = await host.watch([
			{ feedbackId: 'timer_running' },
			{ feedbackId: 'timer_last10' },
			{ feedbackId: 'time_up' },
			{ feedbackId: 'sector_playing', options: { sector: 0 } },
			{ feedbackId: 'sector_playing', options: { sector: 2 } },
			{ feedbackId: 'verdict_pending' },
			{ feedbackId: 'undo_available' },
			{ feedbackId: 'game_finished' },
			{ feedbackId: 'refused' },
			{ feedbackId: 'focus_on_air' },
			{ feedbackId: 'layer_on_air', options: { layer: 'main' } },
			{ feedbackId: 'command_possible', options: { command: 'spin' } },
		])
		;[
			fb.running,
			fb.last10,
			fb.timeUp,
			fb.anySector,
			fb.sector2,
			fb.verdict,
			fb.undo,
			fb.finished,
			fb.refused,
			fb.focusOnAir,
			fb.layerMain,
			fb.canSpin,
		] = ids
	})

	after(async () => {
		await host?.stop()
		await server.close()
	})

	test('connects: status ok, actions for every command, feedbacks, variables and presets', () => {
		assert.equal(host.status.status, 'ok')
		for (const id of [
			'spin',
			'start_timer',
			'pause_timer',
			'resume_timer',
			'early_answer',
			'extra_minute',
			'club_help',
			'judge',
			'choose_player',
			'request_decisive_round',
			'decide_decisive_round',
			'club_answers',
			'seat_team',
			'best_player',
			'undo',
			'rundown_take',
			'rundown_continue',
			'rundown_update',
			'rundown_out',
			'rundown_next',
			'rundown_previous',
			'rundown_go',
			'rundown_all_out',
			'rundown_focus',
			'rundown_cue',
			'rundown_take_cued',
			'rundown_lock',
			'rundown_unlock',
		]) {
			assert.ok(host.actions[id], `action ${id}`)
		}
		// the operator's language comes from the server's catalog: here English
		assert.equal(host.actions.spin.name, 'Spin')
		assert.deepEqual(
			host.actions.judge.options.find((o) => o.id === 'correct').choices.map((c) => c.label),
			['Correct', 'Incorrect'],
		)
		for (const id of [
			'timer_running',
			'timer_last10',
			'time_up',
			'sector_playing',
			'verdict_pending',
			'undo_available',
			'focus_on_air',
			'layer_on_air',
			'game_finished',
		]) {
			assert.equal(host.feedbacks[id]?.type, 'boolean', `feedback ${id}`)
			assert.ok(host.feedbacks[id].defaultStyle, `default style of ${id}`)
		}
		for (const id of ['score', 'time_left', 'round', 'sector', 'author', 'focus_label', 'on_air', 'next_label']) {
			assert.ok(host.variableDefinitions[id], `variable ${id}`)
		}
		assert.ok(Object.keys(host.presets).some((id) => id.startsWith('host_')))
		assert.ok(Object.keys(host.presets).some((id) => id.startsWith('graphics_')))
		assert.equal(host.feedback(fb.canSpin), true)
	})

	test('spin, the minute, verdict and undo: state, feedbacks and variables, each timed', async () => {
		let t = performance.now()
		await host.press('spin', { landed: 2, game: '' })
		await variableBecomes(host, 'sector', 2, t, 'sector after spin')
		assert.equal(host.variables.author, 'Ольга (Киев)')
		assert.equal(host.variables.round, 1)
		assert.equal(host.variables.phase, 'the question is read')
		await feedbackBecomes(host, fb.sector2, true, 'sector 2 playing')
		assert.equal(host.feedback(fb.anySector), true)
		assert.equal(host.feedback(fb.canSpin), false)
		assert.equal(host.feedback(fb.undo), true)

		t = performance.now()
		await host.press('start_timer', { game: '' })
		await variableBecomes(host, 'phase', 'discussion', t, 'minute started')
		await feedbackBecomes(host, fb.running, true, 'timer running')
		await feedbackBecomes(host, fb.last10, true, 'last 10 s')
		assert.equal(host.feedback(fb.verdict), true)
		// the clock runs on the key by itself, to time up
		await host.waitFor(() => host.variables.time_left === '0:01', 3000, 'the clock at 0:01')
		const state = await server.ok('GET', `/api/games/${game}`)
		const endsAt = state.timer.ends_at ?? Date.now()
		await feedbackBecomes(host, fb.timeUp, true, 'time up')
		const late = Date.now() - endsAt
		latencies.push({ what: 'time up after the timer ends', ms: late })
		assert.equal(host.variables.time_left, '0:00')
		await feedbackBecomes(host, fb.running, false, 'timer stopped')

		t = performance.now()
		await host.press('judge', { correct: 'correct', game: '' })
		await variableBecomes(host, 'score', '1:0', t, 'score after the verdict')
		await feedbackBecomes(host, fb.verdict, false, 'no verdict pending')
		await feedbackBecomes(host, fb.timeUp, false, 'time up gone with the round')

		t = performance.now()
		await host.press('undo', { game: '' }, 'bank:undo')
		await variableBecomes(host, 'score', '0:0', t, 'score after undo')
		await feedbackBecomes(host, fb.verdict, true, 'verdict pending again')
		t = performance.now()
		await host.press('judge', { correct: 'incorrect', game: '' })
		await variableBecomes(host, 'score', '0:1', t, 'score after incorrect')
	})

	test('a change made elsewhere (the HTTP API) shows on the keys, timed', async () => {
		const before = performance.now()
		await server.ok('POST', `/api/games/${game}/commands`, { type: 'spin', landed: 7 })
		const answered = performance.now()
		await host.waitFor(() => host.variables.sector === 7, 5000, 'sector 7')
		assert.ok(host.variableTimes.sector > before)
		latencies.push({ what: 'sector after a spin over HTTP, from its answer', ms: host.variableTimes.sector - answered })
		assert.equal(host.variables.sector_kind, 'blitz')
		assert.equal(host.variables.question, '1/3')
	})

	test('a refused command shows its reason in the operator\u2019s words, and nothing changes', async () => {
		const rev = (await server.ok('GET', `/api/games/${game}`)).rev
		await host.press('spin', { landed: 0, game: '' })
		await feedbackBecomes(host, fb.refused, true, 'refused')
		assert.match(host.variables.refusal, /^A round is in progress: /)
		assert.match(host.variables.refusal, /give the verdict first/)
		assert.ok(host.logs.some((l) => l.level === 'warn' && /spin refused/.test(l.message)))
		assert.equal((await server.ok('GET', `/api/games/${game}`)).rev, rev)
		// a press that goes through clears it
		await host.press('start_timer', { game: '' })
		await feedbackBecomes(host, fb.refused, false, 'refusal cleared')
		assert.equal(host.variables.refusal, '')
		await host.press('pause_timer', { game: '' })
		await feedbackBecomes(host, fb.running, false, 'paused')
		await host.press('resume_timer', { game: '' })
		await feedbackBecomes(host, fb.running, true, 'resumed')
		// blitz: three verdicts, each moving to the next question
		for (const q of [2, 3]) {
			await host.press('judge', { correct: 'correct', game: '' })
			await host.waitFor(() => host.variables.question === `${q}/3`, 5000, `blitz question ${q}`)
			await host.press('start_timer', { game: '' })
			await feedbackBecomes(host, fb.running, true, `blitz timer ${q}`)
		}
		const t = performance.now()
		await host.press('judge', { correct: 'correct', game: '' })
		await variableBecomes(host, 'score', '1:1', t, 'score after the blitz')
	})

	test('the same key pressed twice within 400 ms is done once', async () => {
		const rev = (await server.ok('GET', `/api/games/${game}`)).rev
		await Promise.all([
			host.press('spin', { landed: 1, game: '' }, 'bank:9'),
			host.press('spin', { landed: 1, game: '' }, 'bank:9'),
		])
		const state = await server.ok('GET', `/api/games/${game}`)
		assert.equal(state.rev, rev + 1)
		assert.equal(host.variables.refusal, '')
		await host.press('start_timer', { game: '' })
		await host.press('early_answer', { game: '' }) // refused: the minute has started — reason shown
		await host.waitFor(() => host.variables.refusal !== '', 5000, 'early answer refused')
		await host.press('judge', { correct: 'correct', game: '' })
		await host.waitFor(() => host.variables.score === '2:1', 5000, 'score 2:1')
	})

	test('graphics desk: take, continue, update, out, next, previous with labels and tally', async () => {
		const rundown = await server.ok('POST', '/api/rundowns', { name: 'Эфир' })
		for (const [label, title] of [
			['Анна', 'Анна Иванова'],
			['Борис', 'Борис Петров'],
			['Вера', 'Вера Сидорова'],
		]) {
			await server.ok('POST', `/api/rundowns/${rundown.id}/items`, {
				segment: 'Начало',
				label,
				graphic: 'lower-third',
				layer: 'main',
				out: 'manual',
				data: { title, subtitle: 'капитан' },
			})
		}
		await host.press('rundown_focus', { item: 'Анна' })
		await host.waitFor(() => host.variables.focus_label === 'Анна', 5000, 'focus Анна')
		assert.equal(host.variables.next_label, 'Борис')
		assert.equal(host.feedback(fb.focusOnAir), false)

		let t = performance.now()
		await host.press('rundown_take', { item: '' })
		await variableBecomes(host, 'layer_main', 'Анна', t, 'layer main after take')
		await feedbackBecomes(host, fb.focusOnAir, true, 'tally on')
		await feedbackBecomes(host, fb.layerMain, true, 'layer main on air')
		assert.equal(host.variables.on_air, 'Анна')
		assert.ok(host.variableDefinitions.layer_main, 'a variable for the layer')

		await host.press('rundown_continue', { item: '' }) // a lower-third has no more steps: refused with its reason
		await host.waitFor(() => /no more steps/.test(host.variables.refusal), 5000, 'continue refused with its reason')
		assert.match(host.variables.refusal, /«Анна»/)

		await server
			.ok('PATCH', `/api/rundowns/${rundown.id}/items/Анна`, {
				data: { title: 'Анна Иванова', subtitle: 'капитан команды' },
			})
			.catch(async () => {
				const doc = await server.ok('GET', `/api/rundowns/${rundown.id}`)
				const id = doc.segments[0].items[0].id
				await server.ok('PATCH', `/api/rundowns/${rundown.id}/items/${id}`, {
					data: { title: 'Анна Иванова', subtitle: 'капитан команды' },
				})
			})
		await host.press('rundown_update', { item: '' })
		await host.waitFor(() => host.variables.refusal === '', 5000, 'update went through')
		const graphics = await server.ok('GET', '/api/graphics')
		assert.equal(graphics.layers.main.data.subtitle, 'капитан команды')

		t = performance.now()
		await host.press('rundown_next', {})
		await variableBecomes(host, 'focus_label', 'Борис', t, 'focus after next')
		await feedbackBecomes(host, fb.focusOnAir, false, 'tally off: the focused item is not on air')
		assert.equal(host.variables.next_label, 'Вера')
		await host.press('rundown_take', { item: '' })
		await host.waitFor(() => host.variables.layer_main === 'Борис', 5000, 'Борис replaces Анна on main')
		await host.press('rundown_previous', {})
		await host.waitFor(() => host.variables.focus_label === 'Анна', 5000, 'focus back to Анна')
		await feedbackBecomes(host, fb.focusOnAir, false, 'Анна is no longer on air')

		t = performance.now()
		await host.press('rundown_out', { item: 'Борис' })
		await variableBecomes(host, 'layer_main', '', t, 'layer main after out')
		await feedbackBecomes(host, fb.layerMain, false, 'layer main off air')
		assert.equal(host.variables.on_air, '')
	})

	test('club game: seat a team, record the tables\u2019 answers', async () => {
		const club = (await server.ok('POST', '/api/games', clubSpec())).id
		await server.ok('PUT', '/api/on-air', { game: club })
		await host.waitFor(() => host.variables.game === club, 5000, 'the club game followed')
		await host.press('seat_team', { team: 't1', game: '' })
		await host.waitFor(() => host.variables.refusal === '' && host.variables.game === club, 5000, 'seated')
		assert.equal((await server.ok('GET', `/api/games/${club}`)).central.team, 't1')
		await host.press('spin', { landed: 3, game: '' })
		await host.waitFor(() => host.variables.sector === 3, 5000, 'club spin')
		await host.press('start_timer', { game: '' })
		await host.press('club_answers', { correct: 't2', game: '' })
		assert.equal(host.variables.refusal, '', host.variables.refusal)
		const state = await server.ok('GET', `/api/games/${club}`)
		assert.equal(state.teams.find((t) => t.id === 't2').correct, 1)
		// a tv-only command is refused with the rule's words
		await host.press('club_help', { game: '' })
		await host.waitFor(() => /TV rules only/.test(host.variables.refusal), 5000, 'club help refused under club rules')
		await server.ok('PUT', '/api/on-air', { game })
		await host.waitFor(() => host.variables.game === game, 5000, 'back to the tv game')
	})

	test('tv extras: early answer, extra minute, club help, superblitz player, decisive round', async () => {
		const q = (text, author) => [{ text, answer: 'a', author: { name: author, city: 'Львов' } }]
		const spec = {
			...tvSpec(),
			target: 3,
			sectors: [
				{ number: 1, kind: 'regular', questions: q('1', 'Один') },
				{ number: 2, kind: 'regular', questions: q('2', 'Два') },
				{ number: 3, kind: 'regular', questions: q('3', 'Три') },
				{ number: 4, kind: 'regular', questions: q('4', 'Четыре') },
				{ number: 9, kind: 'superblitz', questions: [{ text: 's1' }, { text: 's2' }, { text: 's3' }] },
			],
		}
		const extras = (await server.ok('POST', '/api/games', spec)).id
		await server.ok('PUT', '/api/on-air', { game: extras })
		await host.waitFor(() => host.variables.game === extras, 5000, 'the new game followed')
		const get = () => server.ok('GET', `/api/games/${extras}`)
		const ok = async (what) => {
			await host.waitFor(() => host.variables.refusal === '', 5000, `${what} went through`)
		}
		// early answer won: one extra minute banked
		await host.press('spin', { landed: 1, game: '' })
		await host.press('early_answer', { game: '' })
		await ok('early answer')
		await host.press('judge', { correct: 'correct', game: '' })
		await host.waitFor(() => host.variables.score === '1:0', 5000, '1:0')
		assert.equal((await get()).extra_minutes, 1)
		// spent in the next round
		await host.press('spin', { landed: 2, game: '' })
		await host.press('start_timer', { game: '' })
		await host.press('extra_minute', { game: '' })
		await ok('extra minute')
		assert.equal((await get()).extra_minutes, 0)
		await host.press('judge', { correct: 'incorrect', game: '' })
		await host.press('spin', { landed: 3, game: '' })
		await host.press('start_timer', { game: '' })
		await host.press('judge', { correct: 'incorrect', game: '' })
		await host.waitFor(() => host.variables.score === '1:2', 5000, '1:2: the experts behind')
		// club help: after the minute, experts behind
		await host.press('spin', { landed: 4, game: '' })
		await host.press('start_timer', { game: '' })
		await host.waitFor(() => host.variables.phase_id === 'answer', 5000, 'the minute over')
		await host.press('club_help', { game: '' })
		await ok('club help')
		await host.waitFor(() => host.variables.phase_id === 'club_help', 5000, 'club help phase')
		await host.press('judge', { correct: 'correct', game: '' })
		await host.waitFor(() => host.variables.score === '2:2', 5000, '2:2')
		// superblitz: the captain names the player first
		await host.press('spin', { landed: 9, game: '' })
		await host.press('start_timer', { game: '' })
		await host.waitFor(() => /superblitz/.test(host.variables.refusal), 5000, 'the player first')
		await host.press('choose_player', { player: 'Борис', game: '' })
		await ok('player chosen')
		assert.equal((await get()).round.player, 'Борис')
		await host.press('start_timer', { game: '' })
		await host.press('judge', { correct: 'incorrect', game: '' })
		await host.waitFor(
			() => host.variables.score === '2:3' && host.variables.status === 'finished',
			5000,
			'viewers won',
		)
		// four undos from four keys (one key pressed again within 400 ms is a bounce: done once)
		await host.press('undo', { game: '' }, 'bank:u1')
		await host.waitFor(() => host.variables.score === '2:2', 5000, 'undone')
		await host.press('undo', { game: '' }, 'bank:u2')
		await host.press('undo', { game: '' }, 'bank:u3')
		await host.press('undo', { game: '' }, 'bank:u4')
		await host.waitFor(() => host.variables.phase_id === 'closed', 5000, 'back before the superblitz')
		// the decisive round: asked at target - 1, granted with three players
		await host.press('request_decisive_round', { game: '' })
		await ok('decisive round asked')
		await host.press('decide_decisive_round', { granted: 'grant', players: '', game: '' })
		await host.waitFor(() => /three/.test(host.variables.refusal), 5000, 'three players needed')
		await host.press('decide_decisive_round', { granted: 'grant', players: 'Анна, Борис, Вера', game: '' })
		await ok('decisive round granted')
		const state = await get()
		assert.equal(state.decisive.active, true)
		assert.deepEqual(state.decisive.players, ['Анна', 'Борис', 'Вера'])
		await server.ok('PUT', '/api/on-air', { game })
		await host.waitFor(() => host.variables.game === game, 5000, 'back to the first game')
	})

	test('a server restart shows as a connection failure and recovers by itself', async () => {
		await server.stop()
		await host.waitFor(() => host.status.status === 'connection_failure', 10000, 'connection failure')
		await server.start()
		await host.waitFor(() => host.status.status === 'ok', 15000, 'ok again')
		await host.waitFor(() => host.variables.score === '2:1', 5000, 'the state after the restart')
		const t = performance.now()
		await host.press('undo', { game: '' })
		await variableBecomes(host, 'score', '1:1', t, 'undo after the restart')
	})
})

test('every timed change reached the keys (their times printed)', (t) => {
	assert.ok(latencies.length >= 10, `${latencies.length} changes measured`)
	const sorted = latencies.map((l) => l.ms).sort((a, b) => a - b)
	const median = sorted[Math.floor(sorted.length / 2)]
	for (const l of latencies) t.diagnostic(`${l.what}: ${l.ms.toFixed(1)} ms`)
	t.diagnostic(`median ${median.toFixed(1)} ms, max ${sorted.at(-1).toFixed(1)} ms over ${sorted.length} changes`)
})

describe('the connection\u2019s token', () => {
	const server = new Server()
	let host

	before(async () => {
		await server.start()
	})

	after(async () => {
		await host?.stop()
		await server.close()
	})

	test('a wrong token shows as bad token, and the right one recovers', async () => {
		host = new CompanionHost()
		await host.start()
		await host.init(config(server), { token: 'a-wrong-token-of-some-length' })
		await host.waitFor(() => host.status?.status === 'authentication_failure', 10000, 'bad token')
		assert.equal(host.status.message, 'bad token')
		await host.configUpdated(config(server), { token: TOKEN })
		await host.waitFor(() => host.status?.status === 'ok', 10000, 'ok with the right token')
	})

	test('no server at the address: connection failure, then ok once it is up', async () => {
		await server.stop()
		await host.configUpdated(config(server), { token: TOKEN })
		await host.waitFor(() => host.status?.status === 'connection_failure', 10000, 'connection failure')
		await server.start()
		await host.waitFor(() => host.status?.status === 'ok', 15000, 'ok once the server is up')
	})
})
