// Variables: the score, the clock, the round, the author, the rundown's focus, next and on-air
// items, each layer's item, the last refusal.
export const VARIABLES = {
	score: 'Score, experts:viewers (3:2)',
	score_experts: 'Experts\u2019 score',
	score_viewers: 'Viewers\u2019 score',
	target: 'Points to win',
	time_left: 'Time left on the timer (0:37)',
	time_left_s: 'Time left, seconds',
	timer_kind: 'Timer kind (minute, blitz, extra_minute, club_help)',
	round: 'Round number (sectors played, this one included)',
	sector: 'Sector playing',
	sector_kind: 'Kind of the sector (regular, blitz, …)',
	question: 'Question of a blitz (2/3)',
	phase: 'Phase of the round, in words',
	phase_id: 'Phase of the round (reading, discussion, answer, club_help, closed)',
	author: 'Question author (name, city)',
	author_name: 'Question author\u2019s name',
	author_city: 'Question author\u2019s city',
	status: 'Game status (playing, finished)',
	winner: 'Winner (experts, viewers)',
	game: 'Game id',
	game_title: 'Game title',
	rules: 'Rules (tv, club)',
	rundown: 'Rundown id',
	rundown_name: 'Rundown name',
	focus_label: 'Focused rundown item',
	focus_id: 'Focused rundown item id',
	next_label: 'Next rundown item',
	next_id: 'Next rundown item id',
	on_air: 'Rundown items on air',
	locked: 'Rundown locked (1/0)',
	refusal: 'Last refusal, in the operator\u2019s language (empty after a press that went through)',
	connection: 'Connection (ok, offline)',
}

export function variableDefinitions(instance) {
	const defs = {}
	for (const [id, name] of Object.entries(VARIABLES)) defs[id] = { name }
	for (const id of instance.layers || []) defs[id] = { name: `On air on layer ${id.slice(6)}` }
	return defs
}
