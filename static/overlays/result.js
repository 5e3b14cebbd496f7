// End of game, full screen: winner, final score (after a decisive round, with the score before
// it), the prizes the viewers won. Shown when the game is finished, or when the operator takes
// "result" to air (graphics `show`).

import { bdi, decisiveStory, expertsName, part, setName, setText, show, translateAll } from "../lib/dom.js";

export default function create(root, ctx) {
  const el = part(root, "result");
  const { t } = ctx;
  translateAll(el, t);
  const ref = (name) => el.querySelector(`[data-ref="${name}"]`);
  const f = {
    title: ref("title"), expertsName: ref("experts-name"), experts: ref("experts"),
    viewers: ref("viewers"), decisive: ref("decisive"), bestRow: ref("best-row"), best: ref("best"),
    prizesBox: ref("prizes-box"), list: ref("list"), total: ref("total"),
  };
  let state = null;
  let cued = false;

  function render() {
    const visible = !!state && (state.status === "finished" || cued);
    show(el, visible);
    if (!state) return;
    const winner = state.winner;
    el.classList.toggle("won-experts", winner === "experts");
    el.classList.toggle("won-viewers", winner === "viewers");
    setText(f.title, winner === "experts" ? t("winner_experts") : winner === "viewers" ? t("winner_viewers") : t("score"));
    setName(f.expertsName, expertsName(state, t));
    setText(f.experts, state.score?.experts ?? 0);
    setText(f.viewers, state.score?.viewers ?? 0);
    // Won or lost in the decisive round (RULES.md 1.8): it reset the score, so 6 : 0 alone would
    // read as a shutout; the score the experts asked at says how the game really went.
    const story = decisiveStory(state, t);
    el.classList.toggle("decisive", !!story);
    setText(f.decisive, story);

    f.bestRow.classList.toggle("none", !state.best_player);
    setName(f.best, state.best_player || "");

    const prizes = state.prizes || [];
    const key = JSON.stringify(prizes) + t.lang;
    if (f.list.dataset.key !== key) {
      f.list.dataset.key = key;
      f.list.replaceChildren();
      f.list.classList.toggle("two", prizes.length > 5);
      const totals = new Map();
      for (const p of prizes) {
        const li = document.createElement("li");
        const sector = document.createElement("span");
        sector.className = "rs-sector";
        sector.textContent = p.sector != null ? String(p.sector) : "";
        const who = document.createElement("span");
        who.className = "rs-who";
        who.append(bdi(p.author?.name || t("viewers")));
        if (p.author?.city) {
          const city = document.createElement("span");
          city.className = "rs-city";
          city.textContent = `, ${p.author.city}`;
          who.append(city);
        }
        const amount = document.createElement("span");
        amount.className = "rs-amount";
        amount.textContent = p.amount != null ? t.money(p.amount, p.currency) : "";
        li.append(sector, who, amount);
        f.list.append(li);
        if (p.amount != null) totals.set(p.currency || "", (totals.get(p.currency || "") || 0) + p.amount);
      }
      if (!prizes.length) {
        const li = document.createElement("li");
        li.className = "rs-empty";
        li.textContent = t("no_prizes");
        f.list.append(li);
      }
      setText(
        f.total,
        prizes.length > 1 && totals.size
          ? `${t("total")}: ${[...totals].map(([c, a]) => t.money(a, c || undefined)).join(" + ")}`
          : "",
      );
    }
  }

  return {
    update(s) {
      state = s;
      render();
    },
    cue(onAir) {
      cued = !!onAir.result;
      render();
    },
  };
}
