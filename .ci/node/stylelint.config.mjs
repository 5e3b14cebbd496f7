// The overlays' CSS against OBS's browser (Chrome 103): doiuse's caniuse-based check, plus the
// features it does not know (chrome-103.mjs). Run by tests/test_browser_floor.py.
import {FLOOR, css, needs} from "./chrome-103.mjs";

const names = (table) => Object.keys(table);
const ban = (table, label) => [names(table), {
  message: (name) => needs(label(String(name).replace(/^[:@]+|\(.*$/g, "").toLowerCase()),
                           table[String(name).replace(/^[:@]+|\(.*$/g, "").toLowerCase()] ?? 0),
}];

export default {
  reportDescriptionlessDisables: true,  // a feature kept past the floor says why, next to it
  reportNeedlessDisables: true,
  plugins: ["stylelint-no-unsupported-browser-features", "./webkit-twin.mjs"],
  rules: {
    "plugin/no-unsupported-browser-features": [true, {
      browsers: [FLOOR],
      // multicolumn: doiuse flags column-gap, which the overlays use in grids (Chrome 66).
      // css-masks: "partial" means prefixed only; chgk/webkit-twin demands the -webkit- twin.
      ignore: ["multicolumn", "css-masks"],
    }],
    "chgk/webkit-twin": [true, {properties: ["mask", "mask-image", "mask-size", "mask-position",
                                             "mask-repeat", "mask-origin", "mask-clip", "mask-composite",
                                             "mask-mode", "box-decoration-break"]}],
    "function-disallowed-list": ban(css.functions, (n) => `${n}()`),
    "property-disallowed-list": ban(css.properties, (n) => `the ${n} property`),
    "at-rule-disallowed-list": ban(css.atRules, (n) => `@${n}`),
    "unit-disallowed-list": ban(css.units, (n) => `the ${n} unit`),
    "selector-pseudo-class-disallowed-list": ban(css.pseudoClasses, (n) => `:${n}`),
    "selector-pseudo-element-disallowed-list": ban(css.pseudoElements, (n) => `::${n}`),
    "media-feature-name-disallowed-list": ban(css.mediaFeatures, (n) => `the ${n} media feature`),
    "selector-disallowed-list": [names(css.selectors), {message: () => needs(":nth-child(… of S)", 111)}],
  },
};
