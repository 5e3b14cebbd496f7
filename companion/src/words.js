// The operator's words: the server's own catalogs (GET /i18n/<lang>.json?scope=panel, the panel's
// words) first, then the module's few words of its own (vocabulary.js OWN_WORDS), then the key.
import { OWN_WORDS } from './vocabulary.js'

export const LANGS = ['ru', 'uk', 'en']

export class Words {
	constructor(lang = 'ru', catalog = {}) {
		this.lang = LANGS.includes(lang) ? lang : 'ru'
		this.catalog = catalog || {}
		this.plural = new Intl.PluralRules(this.lang)
	}

	has(key) {
		return key in this.catalog || key in OWN_WORDS[this.lang] || key in OWN_WORDS.en
	}

	/** The words for `key`, with `{name}` filled from params (a CLDR plural picked by `n`). */
	t(key, params = {}) {
		let text = this.catalog[key] ?? OWN_WORDS[this.lang][key] ?? OWN_WORDS.en[key] ?? key
		if (text && typeof text === 'object') {
			const n = Number(params.n ?? 0)
			text = text[this.plural.select(n)] ?? text.other ?? Object.values(text)[0]
		}
		return String(text).replace(/\{(\w+)\}/g, (m, name) => (name in params ? String(params[name]) : m))
	}

	fits(key, params) {
		if (!this.has(key)) return false
		const text = this.t(key, {})
		return [...text.matchAll(/\{(\w+)\}/g)].every((m) => m[1] in params)
	}

	/** A refusal as the panel says it: its code's words (`err.<code>`), then its reason's
	 * (`refusal.<reason>`, `why.<reason>`, else `refusal.<code>`), params filled in. */
	refusal(error) {
		const code = error?.code || 'refused'
		const params = error?.params && typeof error.params === 'object' ? { ...error.params } : {}
		if (typeof params.phase === 'string' && this.has(`phase.${params.phase}`))
			params.phase = this.t(`phase.${params.phase}`)
		const title = this.fits(`err.${code}`, params) ? this.t(`err.${code}`, params) : this.t('err.refused')
		const reason = typeof params.reason === 'string' ? params.reason : ''
		const key = [reason && `refusal.${reason}`, reason && `why.${reason}`, `refusal.${code}`].find(
			(k) => k && this.fits(k, params),
		)
		let detail = key ? this.t(key, params) : ''
		if (detail.toLowerCase() === title.toLowerCase()) detail = ''
		return detail ? `${title}: ${detail}` : title
	}
}
