// The overlays' JS against OBS's browser (Chrome 103): eslint-plugin-compat for web APIs and
// ES globals, the parser at ES2022 for syntax, and the instance methods and statics the plugin
// cannot see (chrome-103.mjs). Run by tests/test_browser_floor.py.
import compat from "eslint-plugin-compat";
import {FLOOR, js, needs} from "./chrome-103.mjs";

const properties = [
  ...Object.entries(js.properties).map(([property, v]) => ({property, message: needs(`.${property}()`, v)})),
  ...Object.entries(js.statics).map(([name, v]) => {
    const [object, property] = name.split(".");
    return {object, property, message: needs(name, v)};
  }),
];

export default [
  {
    basePath: "../..",  // the repository: the files linted are outside this folder
    files: ["**/*.js"],
    languageOptions: {ecmaVersion: js.ecmaVersion, sourceType: "module"},
    linterOptions: {reportUnusedDisableDirectives: "error"},
    plugins: {compat},
    settings: {browsers: [FLOOR], lintAllEsApis: true},
    rules: {
      "compat/compat": "error",
      "no-restricted-properties": ["error", ...properties],
    },
  },
];
