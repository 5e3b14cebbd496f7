// Renders the two preset pages as a Stream Deck shows them in the middle of a game, for
// docs/COMPANION.md: a real server, the module in the test host (test/host/), every key of each
// page placed from its preset, a tv game and a rundown played from those keys; each key drawn as
// Companion draws a text key (its text with the variables filled in, the colours of the feedbacks
// that are on) into an HTML page, photographed by the system Chromium.
//
//   node tools/render-keys.js [out-dir]     (default: ../docs/companion)
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { CompanionHost, MODULE_DIR } from '../test/host/host.js'
import { Server, TOKEN, tvSpec } from '../test/host/server.js'
import { PAGES } from '../src/presets.js'

const OUT = path.resolve(process.argv[2] || path.join(MODULE_DIR, '..', 'docs', 'companion'))
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium'
const KEY = 96
const GAP = 14
const COLUMNS = 5

const hex = (n) => `#${Number(n).toString(16).padStart(6, '0')}`
const escape = (s) => String(s).replace(/[&<>]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;' })[c])

function keyHtml(style) {
	// Companion fits "auto" text to the key and draws a number size as it is (72 px keys): the
	// page shrinks each key's text until it fits, wrapping at spaces as Companion does
	const max = style.size === 'auto' || !style.size ? 30 : Math.round((Number(style.size) * KEY) / 72)
	const lines = String(style.text ?? '').split('\n')
	return `<div class="key" data-max="${max}" style="background:${hex(style.bgcolor)};color:${hex(style.color)};font-size:${max}px">${lines
		.map((l) => `<span>${escape(l) || '&nbsp;'}</span>`)
		.join('')}</div>`
}

const FIT = `for (const key of document.querySelectorAll('.key')) {
	let size = Number(key.dataset.max)
	const spans = [...key.children]
	const over = () => spans.reduce((h, s) => h + s.offsetHeight, 0) > key.clientHeight - 6 || spans.some((s) => s.scrollWidth > s.clientWidth)
	while (size > 7 && over()) key.style.fontSize = --size + 'px'
}`

function page(title, styles) {
	const rows = Math.ceil(styles.length / COLUMNS)
	const width = COLUMNS * KEY + (COLUMNS + 1) * GAP
	const height = rows * KEY + (rows + 1) * GAP
	const html = `<!doctype html><meta charset="utf-8"><title>${escape(title)}</title><style>
body{margin:0;background:#0b0b0b;font-family:"DejaVu Sans",Arial,sans-serif}
.deck{display:grid;grid-template-columns:repeat(${COLUMNS},${KEY}px);gap:${GAP}px;padding:${GAP}px;width:${width - 2 * GAP}px}
.key{width:${KEY}px;height:${KEY}px;border-radius:10px;display:flex;flex-direction:column;align-items:center;justify-content:center;
text-align:center;line-height:1.15;overflow:hidden;box-shadow:inset 0 0 0 1px #2c2c2c}
.key span{display:block;width:${KEY - 8}px;white-space:normal;overflow-wrap:normal;word-break:normal;overflow:visible}
</style><div class="deck">${styles.map(keyHtml).join('')}</div><script>${FIT}</script>`
	return { html, width, height }
}

function shoot(name, title, styles) {
	const dir = mkdtempSync(path.join(os.tmpdir(), 'chgk-keys-'))
	try {
		const { html, width, height } = page(title, styles)
		const file = path.join(dir, `${name}.html`)
		writeFileSync(file, html)
		const png = path.join(OUT, `${name}.png`)
		execFileSync(
			CHROMIUM,
			[
				'--headless',
				'--no-sandbox',
				'--disable-gpu',
				'--hide-scrollbars',
				`--window-size=${width},${height}`,
				`--screenshot=${png}`,
				`file://${file}`,
			],
			{ stdio: 'ignore', timeout: 60000 },
		)
		console.log(`${png}: ${styles.length} keys`)
	} finally {
		rmSync(dir, { recursive: true, force: true })
	}
}

const server = new Server()
const host = new CompanionHost({ label: 'chgk' })
try {
	await server.start()
	const game = (await server.ok('POST', '/api/games', tvSpec({ minute: 60000, blitz: 20000 }))).id
	await server.ok('PUT', '/api/on-air', { game })
	const rundown = await server.ok('POST', '/api/rundowns', { name: 'Эфир' })
	for (const [label, title, subtitle] of [
		['Ведущий', 'Борис Крюк', 'ведущий'],
		['Капитан', 'Анна Иванова', 'капитан'],
		['Автор', 'Иван Петров', 'Харьков'],
	]) {
		await server.ok('POST', `/api/rundowns/${rundown.id}/items`, {
			segment: 'Начало',
			label,
			graphic: 'lower-third',
			layer: 'main',
			out: 'manual',
			data: { title, subtitle },
		})
	}
	await host.start()
	await host.init({ host: '127.0.0.1', port: server.port, lang: 'ru', rundown: '' }, { token: TOKEN })
	await host.waitFor(() => host.status?.status === 'ok', 10000, 'status ok')
	await host.waitFor(() => host.actions.spin?.name === 'Волчок', 10000, 'the Russian catalog')
	const keys = {}
	for (const [name, ids] of Object.entries(PAGES)) {
		keys[name] = []
		for (const id of ids) keys[name].push(await host.place(`${name}_${id}`))
	}
	const key = (name, id) => keys[name][PAGES[name].indexOf(id)]
	// the host's desk: one round won, the next one under way with the minute running
	await host.pressKey(key('host', 'spin'))
	await host.waitFor(() => host.variables.sector !== '', 5000, 'a sector')
	while (host.variables.phase_id !== 'closed') {
		await host.pressKey(key('host', 'minute'))
		await host.waitFor(() => host.variables.phase_id === 'discussion', 5000, 'the minute')
		const q = host.variables.question
		await host.pressKey(key('host', 'correct'))
		await host.waitFor(() => host.variables.phase_id === 'closed' || host.variables.question !== q, 5000, 'the verdict')
	}
	await server.ok('POST', `/api/games/${game}/commands`, { type: 'spin', landed: 1 }).catch(() => null)
	await host.waitFor(() => host.variables.phase_id === 'reading', 5000, 'the second round')
	await host.pressKey(key('host', 'minute'))
	await host.waitFor(
		() => host.variables.phase_id === 'discussion' && host.variables.time_left === '0:59',
		5000,
		'0:59',
	)
	// the graphics desk: the captain's strap on air, focused
	await host.press('rundown_focus', { item: 'Капитан' })
	await host.pressKey(key('graphics', 'take'))
	await host.waitFor(() => host.variables.layer_main === 'Капитан', 5000, 'the strap on air')
	await host.waitFor(() => host.render(key('graphics', 'take')).bgcolor === 0xcc0000, 5000, 'the tally')
	shoot(
		'host-desk',
		'Host desk',
		keys.host.map((k) => host.render(k)),
	)
	shoot(
		'graphics-desk',
		'Graphics desk',
		keys.graphics.map((k) => host.render(k)),
	)
} finally {
	await host.stop()
	await server.close()
}
