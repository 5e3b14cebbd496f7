// What the overlays may not use: features newer than Chrome 103, the CEF in OBS 28–30's browser
// sources, that stylelint-no-unsupported-browser-features (doiuse) and eslint-plugin-compat do
// not see. doiuse has no entry for color-mix(), the individual transform properties or
// @starting-style; eslint-plugin-compat cannot follow instance methods (`list.toSorted()`).
// Feature → the first Chrome that has it (MDN browser-compat-data). Rules as data: the two
// configs beside this file build their rules from these tables. docs/OBS.md explains the floor.

export const FLOOR = "chrome >= 103";
export const WHY = "OBS 28–30 run browser sources in Chrome 103 (docs/OBS.md, «OBS's browser»)";

export const css = {
  functions: {
    "color-mix": 111, "light-dark": 123, "color": 111, "oklch": 111, "oklab": 111, "lab": 111, "lch": 111,
    "sin": 111, "cos": 111, "tan": 111, "asin": 111, "acos": 111, "atan": 111, "atan2": 111,
    "pow": 120, "sqrt": 120, "hypot": 120, "log": 120, "exp": 120, "round": 125, "mod": 125, "rem": 125,
    "abs": 138, "sign": 138, "linear": 113, "anchor": 125, "anchor-size": 125, "calc-size": 129, "xywh": 116,
  },
  properties: {
    "translate": 104, "rotate": 104, "scale": 104,
    "container": 105, "container-type": 105, "container-name": 105,
    "text-wrap": 114, "text-wrap-mode": 130, "text-wrap-style": 130, "white-space-collapse": 114,
    "initial-letter": 110, "hyphenate-character": 106, "math-style": 109, "font-size-adjust": 127,
    "view-transition-name": 111, "view-transition-class": 125, "animation-timeline": 115,
    "animation-range": 115, "scroll-timeline": 115, "view-timeline": 115, "offset-position": 116,
    "transition-behavior": 117, "overlay": 117, "scrollbar-color": 121, "scrollbar-width": 121,
    "field-sizing": 123, "text-spacing-trim": 123, "anchor-name": 125, "position-anchor": 125,
    "position-area": 129, "position-try": 125, "position-try-fallbacks": 128, "interpolate-size": 129,
    "text-box": 133, "text-box-trim": 133, "text-box-edge": 133, "reading-flow": 137,
  },
  atRules: {"container": 105, "starting-style": 117, "scope": 118, "position-try": 125, "view-transition": 126},
  units: {"lh": 109, "rlh": 111, "cap": 118, "rcap": 118, "ic": 106, "ric": 111, "rex": 111, "rch": 111,
          "cqw": 105, "cqh": 105, "cqi": 105, "cqb": 105, "cqmin": 105, "cqmax": 105},
  pseudoClasses: {"has": 105, "modal": 105, "popover-open": 114, "user-valid": 119, "user-invalid": 119,
                  "state": 125, "open": 133, "closed": 114},
  pseudoElements: {"highlight": 105, "view-transition": 109, "details-content": 131, "picker": 135},
  mediaFeatures: {"update": 113, "scripting": 120, "prefers-reduced-transparency": 118},
  // `:nth-child(2 of .x)` (Chrome 111): a selector pattern rather than a name.
  selectors: {"/:nth-(last-)?child\\([^)]*\\sof\\s/": 111},
};

export const js = {
  // Any object's property of this name (instance methods the compat plugin cannot type).
  properties: {
    "toSorted": 110, "toReversed": 110, "toSpliced": 110, "with": 110,
    "isWellFormed": 111, "toWellFormed": 111, "startViewTransition": 111,
    "showPopover": 114, "hidePopover": 114, "togglePopover": 114, "transferToFixedLength": 114,
    "checkVisibility": 105, "union": 122, "intersection": 122, "difference": 122,
    "symmetricDifference": 122, "isSubsetOf": 122, "isSupersetOf": 122, "isDisjointFrom": 122,
    "setHTMLUnsafe": 124, "moveBefore": 133,
  },
  // Statics: object.property.
  statics: {
    "Object.groupBy": 117, "Map.groupBy": 117, "Promise.withResolvers": 119, "Promise.try": 128,
    "Array.fromAsync": 121, "AbortSignal.any": 116, "URL.canParse": 120, "URL.parse": 126,
    "Response.json": 105, "Iterator.from": 122, "Error.isError": 134, "Math.sumPrecise": 999,
    "RegExp.escape": 136, "Atomics.pause": 133,
  },
  // Syntax newer than ES2022 (import attributes, the RegExp v flag, `using`) is a parse error:
  // the parser is set to ES2022, all of which Chrome 103 runs.
  ecmaVersion: 2022,
};

export const needs = (what, version) =>
  version >= 999 ? `${what} is in no Chrome yet; ${WHY}` : `${what} needs Chrome ${version}; ${WHY}`;
