// A real chgk-overlay server for the tests, as tests/support.py starts one: `python -m overlay
// serve` on a free port with its own data folder, waited for until GET /api/time answers.
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { MODULE_DIR } from './host.js'

export const TOKEN = 'companion-test-token-1'
export const PASSWORD = 'companion-test-password-1'
const PYTHON = process.env.PYTHON || 'python3'

export function freePort() {
	return new Promise((resolve, reject) => {
		const server = net.createServer()
		server.unref()
		server.on('error', reject)
		server.listen(0, '127.0.0.1', () => {
			const { port } = server.address()
			server.close(() => resolve(port))
		})
	})
}

export class Server {
	constructor() {
		this.data = mkdtempSync(path.join(os.tmpdir(), 'chgk-companion-'))
	}

	get base() {
		return `http://127.0.0.1:${this.port}`
	}

	/** Starts the server; a restart keeps its port. A port chosen here that another program takes
	 * before the server binds it (another test's server picked the same free port) is given up for a
	 * new one, as tests/support.py does: that program may even answer /api/time meanwhile, so the
	 * server counts as up only once it says it listens on its port. */
	async start(port) {
		const movable = !port && !this.port
		this.port = port || this.port || (await freePort())
		for (let attempt = 1; ; attempt++) {
			try {
				return await this.#startOnce()
			} catch (err) {
				if (!movable || attempt === 3 || !this.said.includes('Address already in use')) throw err
				this.port = await freePort()
			}
		}
	}

	async #startOnce() {
		this.said = '' // this start's own words
		this.proc = spawn(
			PYTHON,
			[
				'-m',
				'overlay',
				'serve',
				'--host',
				'127.0.0.1',
				'--port',
				String(this.port),
				'--data',
				this.data,
				'--async-mode',
				'threading',
			],
			{
				cwd: path.resolve(MODULE_DIR, '..'),
				env: { ...process.env, CHGK_OVERLAY_TOKEN: TOKEN, CHGK_OVERLAY_PASSWORD: PASSWORD, PYTHONUNBUFFERED: '1' },
				stdio: ['ignore', 'pipe', 'pipe'],
			},
		)
		const heard = (d) => (this.said = (this.said + d).slice(-20000))
		this.proc.stdout.on('data', heard)
		this.proc.stderr.on('data', heard)
		const listening = new RegExp(`listening on https?://\\S+:${this.port}\\b`)
		const deadline = Date.now() + 60000
		while (Date.now() < deadline) {
			if (this.proc.exitCode !== null) throw new Error(`server exited with ${this.proc.exitCode}: ${this.said}`)
			if (listening.test(this.said)) {
				try {
					const res = await fetch(`${this.base}/api/time`, { signal: AbortSignal.timeout(5000) })
					if (res.ok) return this
				} catch {
					// not answering yet
				}
			}
			await new Promise((r) => setTimeout(r, 50))
		}
		throw new Error(`server did not start in 60 s: ${this.said}`)
	}

	async stop() {
		const proc = this.proc
		if (!proc || proc.exitCode !== null) return
		const exited = new Promise((resolve) => proc.once('exit', resolve))
		proc.kill('SIGTERM')
		const killer = setTimeout(() => proc.kill('SIGKILL'), 10000)
		await exited
		clearTimeout(killer)
	}

	async close() {
		await this.stop()
		rmSync(this.data, { recursive: true, force: true })
	}

	/** An operator's HTTP call: the parsed JSON answer and its status. */
	async api(method, route, body, token = TOKEN) {
		const res = await fetch(`${this.base}${route}`, {
			method,
			headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
			body: body === undefined ? undefined : JSON.stringify(body),
			signal: AbortSignal.timeout(10000),
		})
		const text = await res.text()
		let json
		try {
			json = JSON.parse(text)
		} catch {
			json = text
		}
		return { status: res.status, body: json }
	}

	async ok(method, route, body) {
		const { status, body: answer } = await this.api(method, route, body)
		if (status >= 300) throw new Error(`${method} ${route} → ${status} ${JSON.stringify(answer)}`)
		return answer
	}
}

const PLAYERS = ['Анна', 'Борис', 'Вера', 'Глеб', 'Дина', 'Егор']

/** A tv game with short timers: a regular sector by Иван Петров, a blitz, a sponsor sector. */
export function tvSpec(timers = {}) {
	return {
		rules: 'tv',
		title: 'Companion',
		target: 6,
		experts: { name: 'Команда Иванова', players: PLAYERS, captain: 'Анна' },
		timers: { minute: 1500, blitz: 1500, extra_minute: 1500, club_help: 1500, ...timers },
		sectors: [
			{
				number: 1,
				kind: 'regular',
				questions: [{ text: 'Вопрос', answer: 'Ответ', author: { name: 'Иван Петров', city: 'Харьков' } }],
			},
			{
				number: 2,
				kind: 'regular',
				questions: [{ text: 'Второй', answer: 'Два', author: { name: 'Ольга', city: 'Киев' } }],
			},
			{
				number: 7,
				kind: 'blitz',
				questions: [
					{ text: 'b1', answer: 'a1' },
					{ text: 'b2', answer: 'a2' },
					{ text: 'b3', answer: 'a3' },
				],
			},
		],
	}
}

export function clubSpec() {
	return {
		rules: 'club',
		title: 'Club',
		game_day: '2026-03-01-sun',
		experts: { name: 'Знатоки', players: PLAYERS, captain: 'Анна' },
		teams: [
			{ id: 't1', name: 'Альфа', players: ['А1', 'А2', 'А3', 'А4', 'А5', 'А6'] },
			{ id: 't2', name: 'Бета', players: ['Б1', 'Б2', 'Б3', 'Б4', 'Б5', 'Б6'] },
		],
		timers: { minute: 1500, blitz: 1500 },
	}
}
