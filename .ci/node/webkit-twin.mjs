// chgk/webkit-twin: a property Chrome 103 has only with the -webkit- prefix (mask…) must come
// with its -webkit- twin in the same rule; the unprefixed line is for newer browsers.
import stylelint from "stylelint";

const ruleName = "chgk/webkit-twin";
const messages = stylelint.utils.ruleMessages(ruleName, {
  missing: (prop) => `${prop} needs -webkit-${prop} beside it: Chrome 103 (OBS 28–30) knows only the prefixed one`,
});

const rule = (enabled, options) => (root, result) => {
  if (!enabled) return;
  const watched = new Set(options?.properties ?? []);
  root.walkRules((node) => {
    const seen = new Set();
    node.each((d) => { if (d.type === "decl") seen.add(d.prop.toLowerCase()); });
    node.each((d) => {
      if (d.type !== "decl") return;
      const prop = d.prop.toLowerCase();
      if (watched.has(prop) && !seen.has(`-webkit-${prop}`)) {
        stylelint.utils.report({ruleName, result, node: d, message: messages.missing(prop)});
      }
    });
  });
};
rule.ruleName = ruleName;
rule.messages = messages;

export default stylelint.createPlugin(ruleName, rule);
