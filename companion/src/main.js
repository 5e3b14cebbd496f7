// chgk-overlay for Bitfocus Companion: the operators' Socket.IO namespace `/control` (commands,
// undo, rundown actions with the server's answer, refusals with their reason) and the public
// HTTP API (the followed rundown, the words of the operator's language).
import { InstanceBase, InstanceStatus } from '@companion-module/base'
import { io } from 'socket.io-client'
import { Words, LANGS } from './words.js'
import { derive, remainingMs } from './state.js'
import { actionDefinitions } from './actions.js'
import { feedbackDefinitions } from './feedbacks.js'
import { variableDefinitions } from './variables.js'
import { presetDefinitions } from './presets.js'
import { PressOrder } from './press.js'

export const UpgradeScripts = []

const ACK_MS = 5000
const RETRY_MS = 1000
const AUTH_RETRY_MS = 3000

export default class ChgkOverlayInstance extends InstanceBase {
	constructor(internal) {
		super(internal)
		this.config = {}
		this.secrets = {}
		this.socket = null
		this.words = new Words('ru')
		this.state = null
		this.graphics = null
		this.rundown = null
		this.offset = 0
		this.refusal = ''
		this.values = {}
		this.flags = {}
		this.layers = []
		this.defsKey = ''
		this.retry = null
		this.ticker = null
		this.generation = 0
		this.presses = new PressOrder()
	}

	getConfigFields() {
		return [
			{ type: 'textinput', id: 'host', label: 'Server (host name or address)', width: 8, default: '127.0.0.1' },
			{ type: 'number', id: 'port', label: 'Port', width: 4, default: 5000, min: 1, max: 65535 },
			{ type: 'secret-text', id: 'token', label: 'Operators\u2019 token (CHGK_OVERLAY_TOKEN)', width: 12 },
			{
				type: 'dropdown',
				id: 'lang',
				label: 'Language of the actions and refusals',
				width: 6,
				default: 'ru',
				choices: LANGS.map((id) => ({ id, label: { ru: 'Русский', uk: 'Українська', en: 'English' }[id] })),
			},
			{
				type: 'textinput',
				id: 'rundown',
				label: 'Rundown id (empty: the current rundown, the one last operated)',
				width: 6,
				default: '',
			},
		]
	}

	async init(config, _isFirstInit, secrets) {
		this.config = config || {}
		this.secrets = secrets || {}
		this.words = new Words(this.config.lang)
		this.publishDefinitions(true)
		this.connect()
	}

	async configUpdated(config, secrets) {
		this.config = config || {}
		this.secrets = secrets || {}
		this.words = new Words(this.config.lang)
		this.publishDefinitions(true)
		this.connect()
	}

	async destroy() {
		this.generation++
		this.teardown()
	}

	// --- connection ------------------------------------------------------------------------

	get base() {
		const host = String(this.config.host || '127.0.0.1').trim()
		const port = Number(this.config.port) || 5000
		return `http://${host.includes(':') && !host.startsWith('[') ? `[${host}]` : host}:${port}`
	}

	get token() {
		return String(this.secrets?.token ?? this.config.token ?? '')
	}

	teardown() {
		clearTimeout(this.retry)
		this.retry = null
		clearInterval(this.ticker)
		this.ticker = null
		if (this.socket) {
			this.socket.removeAllListeners()
			this.socket.io.removeAllListeners()
			this.socket.disconnect()
			this.socket = null
		}
	}

	connect() {
		this.teardown()
		const generation = ++this.generation
		this.state = null
		this.graphics = null
		this.rundown = null
		this.updateStatus(InstanceStatus.Connecting)
		this.loadWords(generation)
		const socket = io(`${this.base}/control`, {
			auth: { token: this.token },
			reconnectionDelay: 250,
			reconnectionDelayMax: RETRY_MS,
			randomizationFactor: 0.2,
			timeout: 5000,
			forceNew: true,
		})
		this.socket = socket
		const mine =
			(fn) =>
			(...args) => {
				if (generation === this.generation && this.socket === socket) fn(...args)
			}
		socket.on(
			'connect',
			mine(() => {
				this.updateStatus(InstanceStatus.Ok)
				this.log('info', `connected to ${this.base}`)
				this.loadRundown(generation)
				this.loadWords(generation)
			}),
		)
		socket.on(
			'state',
			mine((state) => this.takeState(state)),
		)
		socket.on(
			'graphics',
			mine((payload) => this.takeGraphics(payload)),
		)
		socket.on(
			'rundown',
			mine((doc) => this.takeRundownEvent(doc, generation)),
		)
		socket.on(
			'rundown_deleted',
			mine(() => this.loadRundown(generation)),
		)
		socket.on(
			'rundown_done',
			mine(() => this.loadRundown(generation)),
		)
		socket.on(
			'disconnect',
			mine((reason) => {
				// the keys keep what they showed; the next connection's state is taken whatever its
				// rev (a restarted server may number its revs anew)
				this.fresh = true
				this.freshGraphics = true
				this.updateStatus(InstanceStatus.ConnectionFailure, `connection lost (${reason})`)
				this.refresh()
				if (reason === 'io server disconnect') this.scheduleConnect(generation, RETRY_MS)
			}),
		)
		socket.on(
			'connect_error',
			mine(async (err) => {
				const probe = await this.probe()
				if (generation !== this.generation) return
				if (probe === 'unauthorized') {
					this.updateStatus(InstanceStatus.AuthenticationFailure, 'bad token')
				} else {
					this.updateStatus(InstanceStatus.ConnectionFailure, String(err?.message || probe))
				}
				// a refused namespace connection is not retried by socket.io itself
				if (!socket.active) this.scheduleConnect(generation, probe === 'unauthorized' ? AUTH_RETRY_MS : RETRY_MS)
			}),
		)
	}

	scheduleConnect(generation, delay) {
		clearTimeout(this.retry)
		this.retry = setTimeout(() => {
			if (generation === this.generation) this.connect()
		}, delay)
	}

	/** Why a connection failed: 'unauthorized' (the server answers, the token is wrong),
	 * 'refused' (it answers but refuses otherwise) or the network error. */
	async probe() {
		try {
			const res = await fetch(`${this.base}/api/games`, {
				headers: { Authorization: `Bearer ${this.token}` },
				signal: AbortSignal.timeout(3000),
			})
			if (res.status === 401 || res.status === 429) return 'unauthorized'
			return res.ok ? 'ok' : `HTTP ${res.status}`
		} catch (err) {
			return err?.cause?.code || err?.message || 'unreachable'
		}
	}

	async http(path) {
		const res = await fetch(`${this.base}${path}`, {
			headers: { Authorization: `Bearer ${this.token}` },
			signal: AbortSignal.timeout(5000),
		})
		const body = await res.json().catch(() => null)
		return { status: res.status, body }
	}

	async loadWords(generation) {
		try {
			const { status, body } = await this.http(`/i18n/${this.words.lang}.json?scope=panel`)
			if (generation !== this.generation || status !== 200 || !body?.messages) return
			this.words = new Words(this.words.lang, body.messages)
			this.publishDefinitions(true)
			this.refresh()
		} catch {
			// the module's own words stay until the server answers
		}
	}

	get rundownId() {
		return String(this.config.rundown || '').trim()
	}

	async loadRundown(generation) {
		try {
			const { status, body } = await this.http(`/api/rundowns/${encodeURIComponent(this.rundownId || 'current')}`)
			if (generation !== this.generation) return
			this.rundown = status === 200 ? body : null
			this.refresh()
		} catch {
			// shown again on the next change or connection
		}
	}

	takeRundownEvent(doc, generation) {
		if (!doc || typeof doc !== 'object') return
		if (this.rundownId ? doc.id === this.rundownId : !this.rundown || doc.id === this.rundown.id) {
			if (!this.rundown || doc.id !== this.rundown.id || (doc.rev ?? 0) >= (this.rundown.rev ?? 0)) {
				this.rundown = doc
				this.refresh()
			}
		}
		if (!this.rundownId && doc.id !== this.rundown?.id) this.loadRundown(generation) // another one became current
	}

	takeState(state) {
		if (!state) {
			this.state = null
		} else if (this.fresh || !this.state || state.id !== this.state.id || state.rev >= this.state.rev) {
			this.fresh = false
			this.state = state
			if (typeof state.server_now === 'number') this.offset = state.server_now - Date.now()
		} else {
			return
		}
		this.refresh()
	}

	takeGraphics(payload) {
		if (!payload || typeof payload !== 'object') return
		if (!this.freshGraphics && this.graphics && typeof payload.seq === 'number' && payload.seq < this.graphics.seq)
			return
		this.freshGraphics = false
		this.graphics = payload
		this.refresh()
	}

	serverNow() {
		return Date.now() + this.offset
	}

	// --- what the keys show -------------------------------------------------------------------

	/** Recompute every variable and feedback; only what changed goes to Companion. */
	refresh() {
		const view = derive({
			state: this.state,
			graphics: this.graphics,
			rundown: this.rundown,
			serverNow: this.serverNow(),
			words: this.words,
		})
		view.values.refusal = this.refusal
		view.values.connection = this.socket?.connected ? 'ok' : 'offline'
		this.view = view
		const layers = Object.keys(view.values).filter((k) => k.startsWith('layer_'))
		if (layers.join() !== this.layers.join()) {
			this.layers = layers
			this.publishDefinitions(false)
		}
		const changed = {}
		for (const key of Object.keys(this.values)) {
			// a layer no longer in the rundown nor on air: its key goes blank
			if (key.startsWith('layer_') && !(key in view.values) && this.values[key] !== '') changed[key] = ''
		}
		for (const [key, value] of Object.entries(view.values)) {
			if (this.values[key] !== value) changed[key] = value
		}
		this.values = { ...this.values, ...changed }
		this.flags = view.flags
		if (Object.keys(changed).length) this.setVariableValues(changed)
		this.checkAllFeedbacks()
		this.tick()
	}

	/** While a timer runs, the clock on the keys moves by itself (the server sends no state per second). */
	tick() {
		const running = !!this.state?.timer?.running
		if (running && !this.ticker) {
			this.ticker = setInterval(() => {
				const left = remainingMs(this.state, this.serverNow())
				const text = derive({ state: this.state, serverNow: this.serverNow() }).values.time_left
				if (text !== this.values.time_left || left <= 10000 !== !!this.flags.timer_last10 || left <= 0) this.refresh()
			}, 50)
		} else if (!running && this.ticker) {
			clearInterval(this.ticker)
			this.ticker = null
		}
	}

	publishDefinitions(all) {
		const key = `${this.words.lang}:${Object.keys(this.words.catalog).length}:${this.layers.join()}`
		if (!all && key === this.defsKey) return
		this.defsKey = key
		if (all) {
			this.setActionDefinitions(actionDefinitions(this))
			this.setFeedbackDefinitions(feedbackDefinitions(this))
			const { structure, presets } = presetDefinitions(this)
			this.setPresetDefinitions(structure, presets)
		}
		this.setVariableDefinitions(variableDefinitions(this))
	}

	// --- presses ------------------------------------------------------------------------------

	refused(error, what) {
		this.refusal = error ? this.words.refusal(error) : ''
		if (error) this.log('warn', `${what} refused: ${this.refusal}${error.message ? ` (${error.message})` : ''}`)
		this.refresh()
	}

	async ask(event, body) {
		const socket = this.socket
		if (!socket?.connected) return { error: { code: 'disconnected' } }
		try {
			return await socket.timeout(ACK_MS).emitWithAck(event, body)
		} catch {
			return { error: { code: 'no_answer' } }
		}
	}

	/** A game command or undo, in the order pressed, with the rev it was based on (see press.js). */
	async command(type, fields, game, pressKey) {
		const gameId = String(game || '').trim() || this.state?.id
		const shown = this.state && (!gameId || this.state.id === gameId) ? this.state.rev : undefined
		return this.presses.press(pressKey, shown, async (rev, { bounce }) => {
			const body = { ...fields }
			if (type !== 'undo') body.type = type
			if (String(game || '').trim()) body.game = String(game).trim()
			if (typeof rev === 'number') body.expected_rev = rev
			const answer = await this.ask(type === 'undo' ? 'undo' : 'command', body)
			if (answer?.error) {
				if (bounce && answer.error.code === 'stale_rev') {
					this.log('info', `${type}: the same key again within 400 ms, done once`)
					return { ok: false }
				}
				this.refused(answer.error, type)
				return { ok: false }
			}
			this.refused(null)
			if (answer?.state) this.takeState(answer.state)
			return { ok: true, rev: answer?.state?.rev }
		})
	}

	async rundownAction(action, item, extra = {}) {
		const body = { ...extra, action }
		if (this.rundownId) body.rundown = this.rundownId
		if (String(item || '').trim()) body.item = String(item).trim()
		const answer = await this.ask('rundown', body)
		if (answer?.error) {
			this.refused(answer.error, `rundown ${action}`)
			return
		}
		this.refused(null)
		if (answer && answer.id) this.takeRundownEvent(answer, this.generation)
	}
}
