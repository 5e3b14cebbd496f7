// Presets: a page for the host's desk (spin, the minute, verdicts, undo with the score on the key,
// the rest of both rule sets) and one for the graphics desk (take / continue / out with the
// focused item's label and the tally colour). Keys are laid out for a 15-key Stream Deck: the
// order of each group is its page, row by row, five keys a row.
import { AMBER, BLACK, BLUE, GREEN, GREY, RED, WHITE } from './feedbacks.js'

const DARK = 0x1a1a1a
const NAVY = 0x10243e

export function presetDefinitions(instance) {
	const words = instance.words
	const v = (name) => `$(${instance.label}:${name})`
	const key = (name, text, actions, feedbacks = [], style = {}) => ({
		type: 'simple',
		name,
		style: { text, size: 'auto', color: WHITE, bgcolor: DARK, show_topbar: false, ...style },
		steps: [{ down: actions, up: [] }],
		feedbacks,
	})
	const cmd = (actionId, options = {}) => ({ actionId, options: { game: '', ...options } })
	const rd = (action, options = {}) => ({ actionId: `rundown_${action}`, options })
	const fb = (feedbackId, style, options = {}) => ({ feedbackId, options, style })
	const up = (text) => text.toUpperCase()

	const host = {
		spin: key(
			words.t('act.spin'),
			`${up(words.t('act.spin'))}\n${v('sector')} ${v('sector_kind')}`,
			[cmd('spin', { landed: 0 })],
			[
				fb('sector_playing', { bgcolor: AMBER, color: BLACK }, { sector: 0 }),
				fb('game_finished', { bgcolor: GREY, color: AMBER }),
			],
		),
		minute: key(
			words.t('act.start_timer'),
			`${v('time_left')}`,
			[cmd('start_timer')],
			[
				fb('timer_running', { bgcolor: GREEN, color: WHITE }),
				fb('timer_last10', { bgcolor: AMBER, color: BLACK }),
				fb('time_up', { bgcolor: RED, color: WHITE }),
			],
			{ size: '30' },
		),
		pause: key(
			words.t('act.pause'),
			up(words.t('act.pause')),
			[cmd('pause_timer')],
			[fb('command_possible', { bgcolor: BLUE, color: WHITE }, { command: 'pause_timer' })],
		),
		resume: key(
			words.t('act.resume'),
			up(words.t('act.resume')),
			[cmd('resume_timer')],
			[fb('command_possible', { bgcolor: BLUE, color: WHITE }, { command: 'resume_timer' })],
		),
		score: key(
			words.t('fb.game_finished'),
			`${v('score')}\n${v('phase')}`,
			[],
			[fb('game_finished', { bgcolor: GREY, color: AMBER })],
			{ size: '24', bgcolor: NAVY },
		),
		correct: key(
			words.t('act.correct'),
			`✔\n${up(words.t('act.correct'))}`,
			[cmd('judge', { correct: 'correct' })],
			[fb('verdict_pending', { bgcolor: GREEN, color: WHITE })],
		),
		incorrect: key(
			words.t('act.incorrect'),
			`✘\n${up(words.t('act.incorrect'))}`,
			[cmd('judge', { correct: 'incorrect' })],
			[fb('verdict_pending', { bgcolor: RED, color: WHITE })],
		),
		undo: key(
			words.t('act.undo'),
			`↶ ${up(words.t('act.undo'))}\n${v('score')}`,
			[cmd('undo')],
			[fb('undo_available', { bgcolor: BLUE, color: WHITE })],
		),
		early: key(
			words.t('act.early_answer'),
			words.t('act.early_answer'),
			[cmd('early_answer')],
			[fb('command_possible', { bgcolor: BLUE, color: WHITE }, { command: 'early_answer' })],
		),
		extra: key(
			words.t('act.extra_minute'),
			words.t('act.extra_minute'),
			[cmd('extra_minute')],
			[fb('command_possible', { bgcolor: BLUE, color: WHITE }, { command: 'extra_minute' })],
		),
		club_help: key(
			words.t('act.club_help'),
			words.t('act.club_help'),
			[cmd('club_help')],
			[fb('command_possible', { bgcolor: BLUE, color: WHITE }, { command: 'club_help' })],
		),
		decisive: key(
			words.t('act.request_decisive'),
			words.t('act.request_decisive'),
			[cmd('request_decisive_round')],
			[fb('command_possible', { bgcolor: BLUE, color: WHITE }, { command: 'request_decisive_round' })],
		),
		grant: key(
			words.t('grant'),
			words.t('grant'),
			[cmd('decide_decisive_round', { granted: 'grant', players: '' })],
			[fb('command_possible', { bgcolor: GREEN, color: WHITE }, { command: 'decide_decisive_round' })],
		),
		refuse: key(
			words.t('refuse'),
			words.t('refuse'),
			[cmd('decide_decisive_round', { granted: 'refuse', players: '' })],
			[fb('command_possible', { bgcolor: RED, color: WHITE }, { command: 'decide_decisive_round' })],
		),
		author: key(
			words.t('opt.sector'),
			`${words.t('opt.sector')} ${v('sector')}\n${v('author')}`,
			[],
			[fb('refused', { bgcolor: RED, color: WHITE })],
			{ size: '14', bgcolor: NAVY },
		),
	}
	const club = {
		seat: key(
			words.t('club.seat'),
			up(words.t('club.seat')),
			[cmd('seat_team', { team: '' })],
			[fb('command_possible', { bgcolor: BLUE, color: WHITE }, { command: 'seat_team' })],
		),
		answers_none: key(
			words.t('club.record_short'),
			`${words.t('club.record_short')}: 0`,
			[cmd('club_answers', { correct: '' })],
			[fb('command_possible', { bgcolor: BLUE, color: WHITE }, { command: 'club_answers' })],
		),
		refusal: key(words.t('fb.refused'), `${v('refusal')}`, [], [fb('refused', { bgcolor: RED, color: WHITE })], {
			size: '7',
		}),
	}
	const graphics = {
		previous: key(words.t('rd.prev'), `▲\n${v('focus_label')}`, [rd('previous')], [], { size: '14' }),
		take: key(
			words.t('rd.take'),
			`${up(words.t('rd.take'))}\n${v('focus_label')}`,
			[rd('take', { item: '' })],
			[fb('focus_on_air', { bgcolor: RED, color: WHITE })],
			{ size: '14' },
		),
		continue: key(
			words.t('rd.continue'),
			`▶▶\n${v('focus_label')}`,
			[rd('continue', { item: '' })],
			[fb('focus_on_air', { bgcolor: AMBER, color: BLACK })],
			{ size: '14' },
		),
		update: key(
			words.t('rd.update'),
			`F5\n${words.t('rd.update')}`,
			[rd('update', { item: '' })],
			[fb('focus_on_air', { bgcolor: BLUE, color: WHITE })],
			{ size: '14' },
		),
		out: key(
			words.t('rd.out'),
			`${up(words.t('rd.out'))}\n${v('focus_label')}`,
			[rd('out', { item: '' })],
			[fb('focus_on_air', { bgcolor: GREEN, color: WHITE })],
			{ size: '14' },
		),
		next: key(words.t('rd.next'), `▼\n${v('next_label')}`, [rd('next')], [], { size: '14' }),
		on_air: key(words.t('rd.program'), `${v('on_air')}`, [], [fb('refused', { bgcolor: RED, color: WHITE })], {
			size: '14',
			bgcolor: NAVY,
		}),
		go: key(
			words.t('rd.go'),
			`GO\n${v('focus_label')}`,
			[rd('go', { item: '' })],
			[fb('focus_on_air', { bgcolor: RED, color: WHITE })],
			{ size: '14' },
		),
		all_out: key(words.t('rd.all_out'), up(words.t('rd.all_out')), [rd('all_out')], [], {
			size: '14',
			bgcolor: 0x4a0000,
		}),
		take_cued: key(words.t('rd.take_cued'), words.t('rd.take_cued'), [rd('take_cued')], [], { size: '14' }),
		score: key(
			words.t('fb.game_finished'),
			`${v('score')}\n${v('time_left')}`,
			[],
			[fb('timer_last10', { bgcolor: AMBER, color: BLACK }), fb('time_up', { bgcolor: RED, color: WHITE })],
			{ size: '18', bgcolor: NAVY },
		),
		layer_main: key(
			`${words.t('opt.layer')} main`,
			`main\n${v('layer_main')}`,
			[rd('out', { item: '' })],
			[fb('layer_on_air', { bgcolor: RED, color: WHITE }, { layer: 'main' })],
			{ size: '14' },
		),
	}
	const presets = {}
	const group = (section, entries) =>
		Object.entries(entries).map(([id, preset]) => {
			presets[`${section}_${id}`] = preset
			return `${section}_${id}`
		})
	const structure = [
		{
			id: 'host',
			name: `${words.t('act.spin')} · ${words.t('act.start_timer')} · ${words.t('verdict')}`,
			description: 'The host\u2019s desk: one page, 15 keys in this order',
			definitions: [{ id: 'host_page', type: 'simple', name: 'Host desk', presets: group('host', host) }],
		},
		{
			id: 'club',
			name: 'Club',
			definitions: [{ id: 'club_keys', type: 'simple', name: 'Club game', presets: group('club', club) }],
		},
		{
			id: 'graphics',
			name: words.t('rd.rundown'),
			description: 'The graphics desk: one page, in this order',
			definitions: [
				{ id: 'graphics_page', type: 'simple', name: 'Graphics desk', presets: group('graphics', graphics) },
			],
		},
	]
	return { structure, presets }
}

/** The order of the keys on each desk's page (rows of five). */
export const PAGES = {
	host: [
		'spin',
		'minute',
		'pause',
		'resume',
		'score',
		'correct',
		'incorrect',
		'undo',
		'early',
		'extra',
		'club_help',
		'decisive',
		'grant',
		'refuse',
		'author',
	],
	graphics: [
		'previous',
		'take',
		'continue',
		'update',
		'out',
		'next',
		'on_air',
		'go',
		'all_out',
		'take_cued',
		'score',
		'layer_main',
	],
}
