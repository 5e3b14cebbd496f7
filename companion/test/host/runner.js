// The module's side of the test host: a child process that loads the module as Companion loads a
// @companion-module/base 2.x module (its manifest's entrypoint, the default export a subclass of
// InstanceBase, `UpgradeScripts` beside it), constructs it with an InstanceContext (the package's
// host API, `@companion-module/base/host-api`) and speaks to its parent over node's IPC channel.
//
// Written from the package's public types (dist/host-api/context.d.ts, dist/module-api/*.d.ts);
// the messages are this host's own: {type, ...} objects both ways.
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { readFile } from 'node:fs/promises'

const manifestPath = path.resolve(process.argv[2])
const send = (message) => process.connected && process.send(message)

// the module's log lines go to the host, as Companion shows them in its log
globalThis.COMPANION_LOGGER = (source, level, message) => send({ type: 'log', source, level, message })

const manifest = JSON.parse(await readFile(manifestPath, 'utf8'))
const entry = path.resolve(path.dirname(manifestPath), manifest.runtime.entrypoint)
const loaded = await import(pathToFileURL(entry).href)
const Factory = loaded.default
if (typeof Factory !== 'function') throw new Error(`${entry} has no default export (the module's class)`)

let actions = {}
let feedbacks = {}
const feedbackInstances = new Map() // id -> {id, feedbackId, controlId, options}
const variables = {}

/** What crosses the process boundary: definitions without their callbacks. */
function plain(defs) {
	const out = {}
	for (const [id, def] of Object.entries(defs || {})) {
		if (!def) continue
		const copy = {}
		for (const [k, v] of Object.entries(def)) if (typeof v !== 'function') copy[k] = v
		out[id] = copy
	}
	return out
}

async function evaluate(ids) {
	const values = []
	for (const inst of feedbackInstances.values()) {
		if (ids && !ids(inst)) continue
		const def = feedbacks[inst.feedbackId]
		let value
		try {
			value = def
				? await def.callback({ type: def.type, ...inst, previousOptions: null }, { type: 'feedback' })
				: undefined
		} catch (err) {
			send({ type: 'log', level: 'error', message: `feedback ${inst.feedbackId}: ${err?.stack || err}` })
		}
		values.push({ id: inst.id, controlId: inst.controlId, feedbackId: inst.feedbackId, value })
	}
	if (values.length) send({ type: 'feedbackValues', values })
}

const context = {
	_isInstanceContext: true,
	id: 'chgk-test-connection',
	label: process.env.COMPANION_TEST_LABEL || 'chgk',
	upgradeScripts: loaded.UpgradeScripts || [],
	sharedUdpSocketHandlers: new Map(),
	saveConfig: (config, secrets) => send({ type: 'saveConfig', config, secrets }),
	updateStatus: (status, message) => send({ type: 'status', status, message }),
	oscSend: () => send({ type: 'log', level: 'error', message: 'oscSend is not used by this module' }),
	recordAction: () => {},
	setActionDefinitions: (defs) => {
		actions = defs
		send({ type: 'actions', definitions: plain(defs) })
	},
	subscribeActions: () => {},
	unsubscribeActions: () => {},
	setFeedbackDefinitions: (defs) => {
		feedbacks = defs
		send({ type: 'feedbacks', definitions: plain(defs) })
		void evaluate()
	},
	unsubscribeFeedbacks: () => {},
	checkFeedbacks: (types) => void evaluate((inst) => types.includes(inst.feedbackId)),
	checkAllFeedbacks: () => void evaluate(),
	checkFeedbacksById: (ids) => void evaluate((inst) => ids.includes(inst.id)),
	setPresetDefinitions: (structure, presets) => send({ type: 'presets', structure, presets }),
	setVariableDefinitions: (defs) => send({ type: 'variableDefinitions', definitions: defs }),
	setVariableValues: (values) => {
		Object.assign(variables, values)
		send({ type: 'variables', values })
	},
	getVariableValue: (id) => variables[id],
	sharedUdpSocketJoin: async () => {
		throw new Error('not supported by the test host')
	},
	sharedUdpSocketLeave: async () => {},
	sharedUdpSocketSend: async () => {},
}

const instance = new Factory(context)

process.on('message', async (message) => {
	try {
		switch (message.type) {
			case 'init':
				send({ type: 'configFields', fields: instance.getConfigFields() })
				await instance.init(message.config, true, message.secrets)
				send({ type: 'reply', id: message.id })
				break
			case 'configUpdated':
				await instance.configUpdated(message.config, message.secrets)
				send({ type: 'reply', id: message.id })
				break
			case 'feedbackInstances':
				for (const inst of message.instances) feedbackInstances.set(inst.id, inst)
				await evaluate((inst) => message.instances.some((i) => i.id === inst.id))
				send({ type: 'reply', id: message.id })
				break
			case 'executeAction': {
				const def = actions[message.action.actionId]
				if (!def) throw new Error(`unknown action ${message.action.actionId}`)
				await def.callback(
					{ surfaceId: 'test-surface', ...message.action },
					{ type: 'action', setCustomVariableValue: () => {} },
				)
				send({ type: 'reply', id: message.id })
				break
			}
			case 'destroy':
				await instance.destroy()
				send({ type: 'reply', id: message.id })
				process.disconnect()
				break
			default:
				throw new Error(`unknown message ${message.type}`)
		}
	} catch (err) {
		send({ type: 'reply', id: message.id, error: String(err?.stack || err) })
	}
})

send({ type: 'ready', upgradeScripts: (loaded.UpgradeScripts || []).length })
