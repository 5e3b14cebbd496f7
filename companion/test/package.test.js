// The module as a package: its vocabulary is the server's (docs/API.md's command table, the
// rundown desk's actions), its manifest passes @companion-module/base's own validation, and the
// package @companion-module/tools builds runs in the test host against a real server.
import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { promisify } from 'node:util'
import { validateManifest } from '@companion-module/base/manifest'
import { CompanionHost, MANIFEST, MODULE_DIR } from './host/host.js'
import { Server, TOKEN, tvSpec } from './host/server.js'
import { COMMANDS, RUNDOWN_ACTIONS } from '../src/vocabulary.js'

const ROOT = path.resolve(MODULE_DIR, '..')
const run = promisify(execFile)

/** docs/API.md's "## Commands" table: {type: [field, ...]}. */
function documentedCommands() {
	const text = readFileSync(path.join(ROOT, 'docs', 'API.md'), 'utf8')
	const section = text.slice(text.indexOf('\n## Commands'), text.indexOf('\n### `expected_rev`'))
	const commands = {}
	for (const line of section.split('\n')) {
		const m = line.match(/^\| ((?:`\w+`(?:, )?)+) \| ([^|]*) \|/)
		if (!m || m[1].includes('type')) continue
		// the fields are the backticked names outside the parentheses that explain them
		const own = [...m[2].replace(/\([^)]*\)/g, '').matchAll(/`(\w+)`/g)].map((f) => f[1])
		for (const t of m[1].matchAll(/`(\w+)`/g)) commands[t[1]] = own
	}
	return commands
}

describe('the module package', () => {
	test('an action for every command of docs/API.md, with an option for each of its fields', () => {
		const documented = documentedCommands()
		assert.ok(Object.keys(documented).length >= 14, JSON.stringify(documented))
		const ours = Object.fromEntries(COMMANDS.map((c) => [c.type, c.fields.map((f) => f.id)]))
		assert.deepEqual(Object.keys(ours).sort(), Object.keys(documented).sort())
		for (const [type, fields] of Object.entries(documented)) assert.deepEqual(ours[type].sort(), fields.sort(), type)
	})

	test('an action for every rundown action the server takes', () => {
		const desk = readFileSync(path.join(ROOT, 'overlay', 'rundown', 'desk.py'), 'utf8')
		const tuple = desk.match(/^ACTIONS = \(([^)]*)\)/m)[1]
		const server = [...tuple.matchAll(/"(\w+)"/g)].map((m) => m[1])
		assert.deepEqual(RUNDOWN_ACTIONS.map((a) => a.action).sort(), server.sort())
	})

	test('the manifest passes @companion-module/base\u2019s strict validation', () => {
		const manifest = JSON.parse(readFileSync(MANIFEST, 'utf8'))
		validateManifest(manifest, false)
		assert.equal(manifest.id, 'chgk-overlay')
		const pkg = JSON.parse(readFileSync(path.join(MODULE_DIR, 'package.json'), 'utf8'))
		const project = readFileSync(path.join(ROOT, 'pyproject.toml'), 'utf8')
		assert.equal(manifest.license, project.match(/^license = "([^"]+)"/m)[1], 'the project\u2019s licence')
		assert.equal(pkg.license, manifest.license)
		assert.ok(manifest.maintainers.length >= 1)
		assert.ok(existsSync(path.join(MODULE_DIR, 'companion', 'HELP.md')))
	})

	describe('built with companion-module-build', () => {
		const server = new Server()
		let host
		let built

		before(async () => {
			const bin = path.join(MODULE_DIR, 'node_modules', '.bin')
			const env = { ...process.env, PATH: `${path.dirname(process.execPath)}:${bin}:${process.env.PATH}` }
			const { stdout } = await run(path.join(bin, 'companion-module-build'), [], {
				cwd: MODULE_DIR,
				env,
				timeout: 120000,
			})
			built = stdout
			await server.start()
		})

		after(async () => {
			await host?.stop()
			await server.close()
		})

		test('the package holds the bundle, the manifest and HELP.md, and runs as a module', async () => {
			const version = JSON.parse(readFileSync(path.join(MODULE_DIR, 'package.json'), 'utf8')).version
			assert.match(built, new RegExp(`chgk-overlay-${version.replace(/\./g, '\\.')}\\.tgz`))
			const dir = path.join(MODULE_DIR, 'pkg', 'chgk-overlay')
			const manifest = JSON.parse(readFileSync(path.join(dir, 'companion', 'manifest.json'), 'utf8'))
			validateManifest(manifest, false)
			assert.equal(manifest.runtime.entrypoint, '../main.js')
			assert.equal(manifest.version, version)
			assert.ok(existsSync(path.join(dir, 'companion', 'HELP.md')))
			assert.ok(existsSync(path.join(MODULE_DIR, `chgk-overlay-${version}.tgz`)))

			// the bundle alone (no node_modules beside it) runs in the host and drives the server
			const game = (await server.ok('POST', '/api/games', tvSpec())).id
			await server.ok('PUT', '/api/on-air', { game })
			host = new CompanionHost({ manifest: path.join(dir, 'companion', 'manifest.json') })
			await host.start()
			await host.init({ host: '127.0.0.1', port: server.port, lang: 'uk', rundown: '' }, { token: TOKEN })
			await host.waitFor(() => host.status?.status === 'ok', 10000, 'status ok')
			await host.waitFor(() => host.actions.spin, 5000, 'actions')
			await host.press('spin', { landed: 1, game: '' })
			await host.waitFor(() => host.variables.sector === 1, 5000, 'sector 1 from the built package')
		})
	})
})
