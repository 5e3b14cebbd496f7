import { generateEslintConfig } from '@companion-module/tools/eslint/config.mjs'

const base = await generateEslintConfig({})

// The module is ESM (package.json "type": "module"), like the 2.x templates.
export default [
	...base,
	{
		files: ['**/*.js'],
		languageOptions: {
			sourceType: 'module',
			globals: { fetch: 'readonly', AbortSignal: 'readonly', performance: 'readonly' },
		},
	},
	{ ignores: ['pkg/**', 'node_modules/**'] },
]
