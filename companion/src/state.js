// What the keys show, derived from what the server sent: the game's operator state (`state`), the
// graphics on air (`graphics`: its `layers` are what rundowns hold on air) and the followed rundown.
// Pure functions, so the tests and the module compute the same thing.

/** `m:ss` (or `h:mm:ss`), whole seconds rounded up as the panel's clock shows them. */
export function clock(ms) {
	const s = Math.max(0, Math.ceil((Number(ms) || 0) / 1000))
	const h = Math.floor(s / 3600)
	const m = Math.floor((s % 3600) / 60)
	const ss = String(s % 60).padStart(2, '0')
	return h ? `${h}:${String(m).padStart(2, '0')}:${ss}` : `${m}:${ss}`
}

/** Milliseconds left on the game's timer at `serverNow` (server epoch ms). */
export function remainingMs(state, serverNow) {
	const timer = state?.timer
	if (!timer) return 0
	if (timer.running && typeof timer.ends_at === 'number') return Math.max(0, timer.ends_at - serverNow)
	return Math.max(0, Number(timer.remaining_ms) || 0)
}

/** A rundown's items in order, flat. */
export function rundownItems(rundown) {
	return (rundown?.segments || []).flatMap((segment) => segment.items || [])
}

/** The layers a page may show: every layer of the rundown's items and every layer on air. */
export function layerNames(rundown, graphics) {
	const names = new Set(rundownItems(rundown).map((item) => item.layer))
	for (const name of Object.keys(graphics?.layers || {})) names.add(name)
	for (const name of Object.keys(rundown?.program || {})) names.add(name)
	return [...names].filter((name) => typeof name === 'string' && name).sort()
}

export function layerVariable(name) {
	return `layer_${String(name).replace(/[^A-Za-z0-9_]/g, '_')}`
}

/** Everything the variables and feedbacks read, at `serverNow`. */
export function derive({ state, graphics, rundown, serverNow, words }) {
	const round = state?.round || null
	const live = round && round.phase !== 'closed'
	const left = remainingMs(state, serverNow)
	const timer = state?.timer || null
	const played = new Set((state?.sectors || []).filter((s) => s.played).map((s) => s.number))
	if (round?.sector) played.add(round.sector)
	const items = rundownItems(rundown)
	const focusAt = items.findIndex((item) => item.id === rundown?.focus)
	const focus = focusAt >= 0 ? items[focusAt] : null
	const following = focusAt >= 0 ? items[focusAt + 1] || null : null
	const program = rundown?.program || {}
	const onAirItems = new Set(Object.values(program).map((p) => p.item))
	const layers = graphics?.layers || {}
	const author = round?.author || null
	const say = (key, fallback = '') => (words && key ? words.t(key) : fallback)

	const values = {
		game: state?.id ?? '',
		game_title: state?.title ?? '',
		rules: state?.rules ?? '',
		score: state ? `${state.score.experts}:${state.score.viewers}` : '',
		score_experts: state ? state.score.experts : '',
		score_viewers: state ? state.score.viewers : '',
		target: state?.target ?? '',
		time_left: state ? clock(left) : '',
		time_left_s: state ? Math.ceil(left / 1000) : '',
		timer_kind: timer?.kind ?? '',
		round: state ? played.size : '',
		sector: round?.sector ?? '',
		sector_kind: round ? say(`kind.${round.kind}`, round.kind) : '',
		question: round && round.questions > 1 ? `${round.question + 1}/${round.questions}` : '',
		phase: state ? say(`phase.${round ? round.phase : 'none'}`, round ? round.phase : 'none') : '',
		phase_id: round?.phase ?? '',
		author: author?.name ? (author.city ? `${author.name} (${author.city})` : author.name) : '',
		author_name: author?.name ?? '',
		author_city: author?.city ?? '',
		status: state?.status ?? '',
		winner: state?.winner ?? '',
		rundown: rundown?.id ?? '',
		rundown_name: rundown?.name ?? '',
		focus_label: focus?.label ?? '',
		focus_id: focus?.id ?? '',
		next_label: following?.label ?? '',
		next_id: following?.id ?? '',
		on_air: Object.values(program)
			.map((p) => p.label)
			.join(' · '),
		locked: rundown ? (rundown.locked ? 1 : 0) : '',
	}
	for (const name of layerNames(rundown, graphics)) values[layerVariable(name)] = layers[name]?.label ?? ''

	const flags = {
		timer_running: !!timer?.running && left > 0,
		timer_last10: !!timer?.running && left > 0 && left <= 10000,
		// at 0:00 the keys turn at once, before the server's time-up comes back
		time_up: !!timer && left <= 0 && !!live && !round.judged && (timer.running || timer.remaining_ms <= 0),
		verdict_pending: !!state?.moves?.judge?.ok,
		undo_available: !!state?.undo,
		focus_on_air: !!focus && onAirItems.has(focus.id),
		game_finished: state?.status === 'finished',
	}
	return { values, flags, live, round, layers, moves: state?.moves || {} }
}
