// Actions: one per game command and per rundown action, their option fields made from the
// vocabulary (vocabulary.js) and named in the operator's language (the server's catalogs).
import { COMMANDS, RUNDOWN_ACTIONS } from './vocabulary.js'

const list = (text) =>
	String(text ?? '')
		.split(',')
		.map((s) => s.trim())
		.filter(Boolean)

/** The option fields of one command field, and how the option's value becomes the field's. */
function fieldOption(field, words, state) {
	const label = (key) => words.t(key)
	switch (field.kind) {
		case 'sector': {
			const n = state?.sectors?.length || 13
			return {
				option: {
					type: 'number',
					id: field.id,
					label: label('opt.landed'),
					default: 0,
					min: 0,
					max: Math.max(13, n),
					asInteger: true,
				},
				value: (v) => (Number(v) > 0 ? Math.round(Number(v)) : undefined),
			}
		}
		case 'verdict':
			return {
				option: {
					type: 'dropdown',
					id: field.id,
					label: label('opt.correct'),
					default: 'correct',
					choices: [
						{ id: 'correct', label: label('act.correct') !== 'act.correct' ? label('act.correct') : label('correct') },
						{
							id: 'incorrect',
							label: label('act.incorrect') !== 'act.incorrect' ? label('act.incorrect') : label('incorrect'),
						},
					],
				},
				value: (v) => v !== 'incorrect' && v !== false,
			}
		case 'grant':
			return {
				option: {
					type: 'dropdown',
					id: field.id,
					label: label('opt.granted'),
					default: 'grant',
					choices: [
						{ id: 'grant', label: label('grant') },
						{ id: 'refuse', label: words.has('act.refuse') ? label('act.refuse') : label('refuse') },
					],
				},
				value: (v) => v !== 'refuse' && v !== false,
			}
		case 'player':
			return {
				option: { type: 'textinput', id: field.id, label: label('opt.player'), default: '', useVariables: true },
				value: (v) => String(v ?? '').trim(),
			}
		case 'players':
			return {
				option: { type: 'textinput', id: field.id, label: label('opt.players'), default: '', useVariables: true },
				value: (v) => (list(v).length ? list(v) : undefined),
			}
		case 'teams':
			return {
				option: { type: 'textinput', id: field.id, label: label('opt.teams'), default: '', useVariables: true },
				value: (v) => list(v),
			}
		case 'team':
			return {
				option: { type: 'textinput', id: field.id, label: label('opt.team'), default: '', useVariables: true },
				value: (v) => String(v ?? '').trim() || undefined,
			}
		default:
			throw new Error(`no option for field kind ${field.kind}`)
	}
}

/** The body fields of a command from an action's options (fields left empty stay out). */
export function commandFields(command, options, words, state) {
	const body = {}
	for (const field of command.fields) {
		const value = fieldOption(field, words, state).value(options?.[field.id])
		if (value !== undefined) body[field.id] = value
	}
	return body
}

function rulesTag(command) {
	return command.rules ? ` (${command.rules})` : ''
}

export function actionDefinitions(instance) {
	const words = instance.words
	const gameOption = { type: 'textinput', id: 'game', label: words.t('opt.game'), default: '', useVariables: true }
	const defs = {}
	for (const command of COMMANDS) {
		defs[command.type] = {
			name: `${words.t(command.words)}${rulesTag(command)}`,
			description: `command ${command.type}`,
			options: [...command.fields.map((f) => fieldOption(f, words, instance.state).option), gameOption],
			callback: async (action) => {
				const fields = commandFields(command, action.options, instance.words, instance.state)
				await instance.command(
					command.type,
					fields,
					action.options.game,
					`${action.controlId}:${command.type}:${JSON.stringify(fields)}`,
				)
			},
		}
	}
	defs.undo = {
		name: words.has('act.undo') ? words.t('act.undo') : words.t('undo'),
		description: 'undo: revert the last command (and any time-up after it)',
		options: [gameOption],
		callback: async (action) => {
			await instance.command('undo', {}, action.options.game, `${action.controlId}:undo`)
		},
	}
	for (const entry of RUNDOWN_ACTIONS) {
		const custom = entry.custom
			? [
					{ type: 'textinput', id: 'id', label: words.t('opt.custom_id'), default: '', useVariables: true },
					{ type: 'textinput', id: 'payload', label: words.t('opt.payload'), default: '', useVariables: true },
				]
			: []
		const options = entry.item
			? [
					{
						type: 'textinput',
						id: 'item',
						label: words.t(entry.required ? 'opt.item_required' : 'opt.item'),
						default: '',
						useVariables: true,
					},
					...custom,
				]
			: []
		defs[`rundown_${entry.action}`] = {
			name: `${words.t('rd.rundown')}: ${words.t(entry.words)}`,
			description: `rundown action ${entry.action}`,
			options,
			callback: async (action) => {
				const extra = {}
				if (entry.custom) {
					extra.id = String(action.options.id ?? '').trim()
					try {
						extra.payload = String(action.options.payload ?? '').trim() ? JSON.parse(action.options.payload) : {}
					} catch {
						instance.refused({ code: 'bad_json', message: 'the payload is not JSON' }, 'rundown custom')
						return
					}
				}
				await instance.rundownAction(entry.action, action.options.item, extra)
			},
		}
	}
	return defs
}
