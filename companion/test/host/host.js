// The Companion side of the test host: runs the module's entry point in a child process (runner.js,
// node's IPC channel), keeps what the module reported (status, definitions, variables, feedback
// values, log) and presses actions and preset keys as Companion does when a key is pressed.
import { fork } from 'node:child_process'
import { EventEmitter } from 'node:events'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const HERE = path.dirname(fileURLToPath(import.meta.url))
export const MODULE_DIR = path.resolve(HERE, '..', '..')
export const MANIFEST = path.join(MODULE_DIR, 'companion', 'manifest.json')

export class CompanionHost extends EventEmitter {
	constructor({ label = 'chgk', manifest = MANIFEST } = {}) {
		super()
		this.label = label
		this.manifest = manifest
		this.status = null
		this.statusHistory = []
		this.actions = {}
		this.feedbacks = {}
		this.presets = {}
		this.structure = []
		this.variableDefinitions = {}
		this.variables = {}
		this.variableTimes = {}
		this.feedbackValues = {} // feedback instance id -> value
		this.feedbackInstances = {}
		this.logs = []
		this.nextId = 1
		this.replies = new Map()
		this.nextFeedback = 1
	}

	start() {
		this.child = fork(path.join(HERE, 'runner.js'), [this.manifest], {
			cwd: MODULE_DIR,
			stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
			env: { ...process.env, COMPANION_TEST_LABEL: this.label },
		})
		this.output = ''
		this.child.stdout.on('data', (d) => (this.output += d))
		this.child.stderr.on('data', (d) => (this.output += d))
		this.child.on('message', (m) => this.receive(m))
		this.child.on('exit', (code) => this.emit('exit', code))
		return this.waitFor(() => this.ready, 10000, 'the module process to load')
	}

	receive(m) {
		const now = performance.now()
		switch (m.type) {
			case 'ready':
				this.ready = true
				break
			case 'reply': {
				const waiting = this.replies.get(m.id)
				this.replies.delete(m.id)
				if (waiting) m.error ? waiting.reject(new Error(m.error)) : waiting.resolve()
				break
			}
			case 'status':
				this.status = { status: m.status, message: m.message, at: now }
				this.statusHistory.push(this.status)
				break
			case 'actions':
				this.actions = m.definitions
				break
			case 'feedbacks':
				this.feedbacks = m.definitions
				break
			case 'presets':
				this.presets = m.presets
				this.structure = m.structure
				break
			case 'variableDefinitions':
				this.variableDefinitions = m.definitions
				break
			case 'variables':
				for (const [k, v] of Object.entries(m.values)) {
					this.variables[k] = v
					this.variableTimes[k] = now
				}
				break
			case 'feedbackValues':
				for (const v of m.values) this.feedbackValues[v.id] = v.value
				break
			case 'log':
				this.logs.push(m)
				break
			case 'configFields':
				this.configFields = m.fields
				break
			case 'saveConfig':
				break
		}
		this.emit('change', m)
	}

	request(message) {
		const id = this.nextId++
		return new Promise((resolve, reject) => {
			this.replies.set(id, { resolve, reject })
			this.child.send({ ...message, id })
		})
	}

	init(config, secrets) {
		return this.request({ type: 'init', config, secrets })
	}

	configUpdated(config, secrets) {
		return this.request({ type: 'configUpdated', config, secrets })
	}

	/** Press an action with options, as a key does; resolves when the module's callback has returned. */
	press(actionId, options = {}, controlId = 'bank:1') {
		return this.request({ type: 'executeAction', action: { id: `a${this.nextId}`, actionId, controlId, options } })
	}

	/** Place feedbacks on a key; returns their instance ids. */
	async watch(list, controlId = 'bank:1') {
		const instances = list.map(({ feedbackId, options = {} }) => ({
			id: `f${this.nextFeedback++}`,
			feedbackId,
			controlId,
			options,
		}))
		for (const inst of instances) this.feedbackInstances[inst.id] = inst
		await this.request({ type: 'feedbackInstances', instances })
		return instances.map((i) => i.id)
	}

	/** Place a preset on a key (its feedbacks watched); returns the key. */
	async place(presetId) {
		const preset = this.presets[presetId]
		if (!preset) throw new Error(`no preset ${presetId}`)
		const controlId = `preset:${presetId}`
		const ids = await this.watch(preset.feedbacks, controlId)
		return { presetId, preset, controlId, feedbackIds: ids }
	}

	/** Press a placed preset key: its first step's down actions, in order, as Companion runs them. */
	async pressKey(key) {
		for (const action of key.preset.steps[0].down) {
			const options = {}
			for (const [k, v] of Object.entries(action.options || {})) {
				options[k] = v && typeof v === 'object' && 'isExpression' in v ? v.value : v
			}
			await this.press(action.actionId, this.parse(options), key.controlId)
		}
	}

	parse(value) {
		if (typeof value === 'string') {
			return value.replace(/\$\(([^:)]+):([^)]+)\)/g, (m, label, name) =>
				label === this.label && name in this.variables ? String(this.variables[name]) : m,
			)
		}
		if (value && typeof value === 'object') {
			return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, this.parse(v)]))
		}
		return value
	}

	/** What a placed key shows: its text with the variables filled in, and its style with the
	 * styles of the feedbacks that are on (in order, later ones win), as Companion draws it. */
	render(key) {
		const style = { ...key.preset.style }
		key.preset.feedbacks.forEach((fb, i) => {
			if (this.feedbackValues[key.feedbackIds[i]] === true) Object.assign(style, fb.style)
		})
		return { ...style, text: this.parse(style.text) }
	}

	feedback(id) {
		return this.feedbackValues[id]
	}

	/** Resolves with the check's value once it is true (checked on every message from the module
	 * and every 10 ms); rejects after `ms` with `what` and the module's last log lines. */
	waitFor(check, ms = 5000, what = 'a condition') {
		return new Promise((resolve, reject) => {
			let timer = null
			let poll = null
			const done = (fn, value) => {
				clearTimeout(timer)
				clearInterval(poll)
				this.off('change', test)
				fn(value)
			}
			const test = () => {
				let value
				try {
					value = check()
				} catch (err) {
					return done(reject, err)
				}
				if (value) done(resolve, value)
			}
			timer = setTimeout(() => {
				const tail = this.logs
					.slice(-8)
					.map((l) => `${l.level}: ${l.message}`)
					.join('\n')
				done(
					reject,
					new Error(
						`timed out after ${ms} ms waiting for ${what}\nstatus: ${JSON.stringify(this.status)}\n${tail}\n${this.output?.slice(-2000) ?? ''}`,
					),
				)
			}, ms)
			poll = setInterval(test, 10)
			this.on('change', test)
			test()
		})
	}

	async stop() {
		if (!this.child || this.child.exitCode !== null) return
		const exited = new Promise((resolve) => this.child.once('exit', resolve))
		try {
			await Promise.race([this.request({ type: 'destroy' }), new Promise((r) => setTimeout(r, 3000))])
		} catch {
			// the process may go before it answers
		}
		const killer = setTimeout(() => this.child.kill('SIGKILL'), 3000)
		if (this.child.connected) this.child.disconnect()
		await exited
		clearTimeout(killer)
	}
}
