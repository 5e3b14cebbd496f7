// A Stream Deck page made only from the module's presets runs a tv game to its end and a rundown,
// with the score, the clock and the tally on the keys (as Companion draws a key: its text with the
// variables filled in, its colours from the feedbacks that are on).
import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { CompanionHost } from './host/host.js'
import { Server, TOKEN, tvSpec } from './host/server.js'
import { PAGES } from '../src/presets.js'
import { AMBER, BLUE, GREEN, RED } from '../src/feedbacks.js'

describe('the presets make working pages', () => {
	const server = new Server()
	let host
	let game
	const keys = { host: {}, graphics: {} }

	before(async () => {
		await server.start()
		game = (await server.ok('POST', '/api/games', tvSpec({ minute: 5000, blitz: 5000 }))).id
		await server.ok('PUT', '/api/on-air', { game })
		host = new CompanionHost({ label: 'chgk' })
		await host.start()
		await host.init({ host: '127.0.0.1', port: server.port, lang: 'ru', rundown: '' }, { token: TOKEN })
		await host.waitFor(() => host.status?.status === 'ok', 10000, 'status ok')
		await host.waitFor(() => host.variables.score === '0:0', 5000, 'the first state')
		// the server's Russian catalog has come: the presets are made again in its words
		await host.waitFor(() => host.actions.spin?.name === 'Волчок', 5000, 'Russian words')
		for (const page of Object.keys(PAGES)) {
			for (const id of PAGES[page]) keys[page][id] = await host.place(`${page}_${id}`)
		}
	})

	after(async () => {
		await host?.stop()
		await server.close()
	})

	test('every preset uses actions and feedbacks the module defines, and each page is in the structure', () => {
		for (const [id, preset] of Object.entries(host.presets)) {
			for (const step of preset.steps)
				for (const a of step.down) assert.ok(host.actions[a.actionId], `${id}: action ${a.actionId}`)
			for (const f of preset.feedbacks) assert.ok(host.feedbacks[f.feedbackId], `${id}: feedback ${f.feedbackId}`)
		}
		const listed = host.structure.flatMap((s) => s.definitions.flatMap((d) => d.presets))
		for (const page of Object.keys(PAGES))
			for (const id of PAGES[page]) assert.ok(listed.includes(`${page}_${id}`), `${page}_${id}`)
		assert.ok(PAGES.host.length <= 15 && PAGES.graphics.length <= 15, 'each page fits a 15-key Stream Deck')
	})

	test('the host\u2019s page plays a tv game to the end: score, clock and round on the keys', async () => {
		const k = keys.host
		const show = (name) => host.render(k[name])
		assert.equal(show('score').text.split('\n')[0], '0:0')
		assert.match(show('undo').text, /0:0$/)
		let rounds = 0
		while (host.variables.status !== 'finished') {
			assert.ok(rounds++ < 14, 'the game ends within the table')
			const before = host.variables.round
			await host.pressKey(k.spin)
			await host.waitFor(() => host.variables.round === before + 1 || host.variables.refusal, 5000, 'a new round')
			assert.equal(host.variables.refusal, '', host.variables.refusal)
			assert.equal(show('spin').bgcolor, AMBER, 'the spin key lights while its sector plays')
			assert.match(show('spin').text, new RegExp(`\\n${host.variables.sector} `))
			while (host.variables.phase_id !== 'closed') {
				await host.pressKey(k.minute)
				await host.waitFor(() => host.variables.phase_id === 'discussion', 5000, 'minute on')
				await host.waitFor(() => show('minute').bgcolor === AMBER, 5000, 'the minute key: last 10 s')
				assert.match(show('minute').text, /^0:0[0-5]$/)
				assert.equal(show('correct').bgcolor, GREEN, 'the verdict keys light while a verdict is pending')
				assert.equal(show('incorrect').bgcolor, RED)
				const question = host.variables.question
				await host.pressKey(k.correct)
				await host.waitFor(
					() => host.variables.phase_id === 'closed' || host.variables.question !== question,
					5000,
					'the verdict taken',
				)
			}
			const score = host.variables.score
			assert.equal(show('score').text.split('\n')[0], score)
			assert.match(show('undo').text, new RegExp(`${score}$`))
			assert.equal(show('undo').bgcolor, BLUE, 'undo lights while there is something to undo')
		}
		assert.equal(host.variables.score, '6:0')
		assert.equal(host.variables.winner, 'experts')
		assert.notEqual(show('score').bgcolor, keys.host.score.preset.style.bgcolor, 'the score key shows the game is over')
		// undo from the page brings the game back
		await host.pressKey(k.undo)
		await host.waitFor(() => host.variables.score === '5:0', 5000, 'undo from its key')
		assert.match(show('undo').text, /5:0$/)
		assert.equal(host.variables.status, 'playing')
	})

	test('the graphics desk\u2019s page runs a rundown: labels on the keys, red tally while on air', async () => {
		const k = keys.graphics
		const show = (name) => host.render(k[name])
		const rundown = await server.ok('POST', '/api/rundowns', { name: 'Шоу' })
		for (const label of ['Заставка', 'Капитан', 'Автор']) {
			await server.ok('POST', `/api/rundowns/${rundown.id}/items`, {
				segment: 'Начало',
				label,
				graphic: 'lower-third',
				layer: 'main',
				out: 'manual',
				data: { title: label },
			})
		}
		await host.pressKey(k.next)
		await host.waitFor(() => host.variables.focus_label, 5000, 'a focused item')
		const first = host.variables.focus_label
		assert.match(show('take').text, new RegExp(`\\n${first}$`))
		assert.notEqual(show('take').bgcolor, RED)
		await host.pressKey(k.take)
		await host.waitFor(() => show('take').bgcolor === RED, 5000, 'the take key red: on air')
		assert.equal(show('layer_main').bgcolor, RED)
		assert.match(show('layer_main').text, new RegExp(`\\n${first}$`))
		assert.match(show('on_air').text, new RegExp(first))
		await host.pressKey(k.next)
		await host.waitFor(() => host.variables.focus_label !== first, 5000, 'the next item focused')
		assert.notEqual(show('take').bgcolor, RED, 'the next item is not on air: no tally')
		assert.match(show('previous').text, new RegExp(host.variables.focus_label))
		await host.pressKey(k.go)
		await host.waitFor(() => show('take').bgcolor === RED, 5000, 'go takes it')
		await host.pressKey(k.out)
		await host.waitFor(() => show('take').bgcolor !== RED && host.variables.layer_main === '', 5000, 'out')
		assert.equal(show('layer_main').text, 'main\n')
		await host.pressKey(k.take)
		await host.waitFor(() => host.variables.layer_main !== '', 5000, 'taken again')
		await host.pressKey(k.all_out)
		await host.waitFor(() => host.variables.on_air === '', 5000, 'all out')
		assert.match(show('score').text, /^5:0\n/)
	})
})
