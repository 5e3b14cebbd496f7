// Boolean feedbacks with their default styles: the clock, the round, the verdict, undo, the
// rundown's tally and layers, the end of the game, a refused press.
import { COMMANDS } from './vocabulary.js'

export const RED = 0xcc0000
export const GREEN = 0x00a651
export const AMBER = 0xe0a800
export const BLUE = 0x1f5fbf
export const GREY = 0x333333
export const WHITE = 0xffffff
export const BLACK = 0x000000

export function feedbackDefinitions(instance) {
	const words = instance.words
	const flag = (name, style, extra = {}) => ({
		type: 'boolean',
		name: words.t(`fb.${name}`),
		defaultStyle: style,
		options: [],
		callback: () => !!instance.view?.flags?.[name],
		...extra,
	})
	return {
		timer_running: flag('timer_running', { bgcolor: GREEN, color: WHITE }),
		timer_last10: flag('timer_last10', { bgcolor: AMBER, color: BLACK }),
		time_up: flag('time_up', { bgcolor: RED, color: WHITE }),
		verdict_pending: flag('verdict_pending', { bgcolor: AMBER, color: BLACK }),
		undo_available: flag('undo_available', { bgcolor: BLUE, color: WHITE }),
		focus_on_air: flag('focus_on_air', { bgcolor: RED, color: WHITE }),
		game_finished: flag('game_finished', { bgcolor: GREY, color: AMBER }),
		sector_playing: {
			type: 'boolean',
			name: words.t('fb.sector_playing'),
			defaultStyle: { bgcolor: AMBER, color: BLACK },
			options: [
				{
					type: 'number',
					id: 'sector',
					label: `${words.t('opt.sector')} (0: any)`,
					default: 0,
					min: 0,
					max: 99,
					asInteger: true,
				},
			],
			callback: (fb) => {
				const view = instance.view
				if (!view?.live) return false
				const sector = Number(fb.options.sector) || 0
				return sector === 0 || view.round.sector === sector
			},
		},
		layer_on_air: {
			type: 'boolean',
			name: words.t('fb.layer_on_air'),
			defaultStyle: { bgcolor: RED, color: WHITE },
			options: [{ type: 'textinput', id: 'layer', label: words.t('opt.layer'), default: 'main' }],
			callback: (fb) => !!instance.view?.layers?.[String(fb.options.layer ?? '').trim()],
		},
		command_possible: {
			type: 'boolean',
			name: words.t('fb.command_possible'),
			defaultStyle: { bgcolor: GREEN, color: WHITE },
			options: [
				{
					type: 'dropdown',
					id: 'command',
					label: words.t('opt.command'),
					default: 'spin',
					choices: COMMANDS.map((c) => ({ id: c.type, label: words.t(c.words) })),
				},
			],
			callback: (fb) => !!instance.view?.moves?.[fb.options.command]?.ok,
		},
		refused: {
			type: 'boolean',
			name: words.t('fb.refused'),
			defaultStyle: { bgcolor: RED, color: WHITE },
			options: [],
			callback: () => !!instance.refusal,
		},
	}
}
