// The viewer's card: sector number and kind, who sent the question (photo when given), the
// prize, the question text once the round has started, the answer and verdict once judged.
// Taken from a rundown, the card plays in steps (`data.step`: card → text → answer): a step
// only holds back what the public state already allows, it never reveals more. After a spin the
// card waits for the arrow to stop (`round.reveal_at`).

import { fitText, part, photoUrl, setName, setText, show, translateAll } from "../lib/dom.js";
import { revealed, superseded } from "../lib/reveal.js";

/** The card is on air during a round once the top's arrow has stopped on its sector (and not
 * once a decisive round is granted after it). */
export function questionVisible(state, clock) {
  return !!state?.round && state.status === "playing" && revealed(state, clock) && !superseded(state);
}

export default function create(root, ctx) {
  const el = part(root, "question");
  const { t } = ctx;
  translateAll(el, t);
  const ref = (name) => el.querySelector(`[data-ref="${name}"]`);
  const f = {
    sector: ref("sector"), kind: ref("kind"), count: ref("count"), flag: ref("flag"),
    prizeBox: ref("prize-box"), prize: ref("prize"), photo: ref("photo"), name: ref("name"),
    city: ref("city"), against: ref("against"), text: ref("text"), answer: ref("answer"), verdict: ref("verdict"),
  };
  let photoSrc = null;
  let fitted = "";
  let step = null; // the rundown's step, when a rundown took the card; null: everything public
  let last = null;

  f.photo.addEventListener("load", () => f.photo.classList.add("loaded"));
  f.photo.addEventListener("error", () => f.photo.classList.remove("loaded"));

  function setPhoto(url) {
    if (url === photoSrc) return;
    photoSrc = url;
    f.photo.classList.remove("loaded");
    if (url) f.photo.src = url;
    else f.photo.removeAttribute("src");
  }

  const api = {
    cue(onAir) {
      const next = onAir.question?.data?.step ?? null;
      if (next === step) return;
      step = next;
      if (last !== null) api.update(last);
    },
    update(state) {
      last = state;
      const visible = questionVisible(state, ctx.clock);
      show(el, visible);
      if (!visible) return;
      const r = state.round;

      setText(f.sector, t("sector_n", { n: r.sector }));
      setText(f.kind, r.kind && r.kind !== "regular" ? t(`kind_${r.kind}`) : "");
      setText(f.count, r.questions > 1 ? t("question_n_of", { n: r.question + 1, total: r.questions }) : "");
      setText(f.flag, state.decisive?.active ? t("decisive_badge") : r.early ? t("early_badge") : "");

      const prize = r.prize;
      f.prizeBox.classList.toggle("none", !prize || prize.amount == null);
      setText(f.prize, prize ? t.money(prize.amount, prize.currency) : "");

      // «Против знатоков играет Анна» / «… играют Телезрители»: the verb agrees with who plays
      setText(f.against, r.author?.name ? t("plays_against") : t("play_against_viewers"));
      setName(f.name, r.author?.name || t("viewers"));
      setText(f.city, r.author?.city || "");
      setPhoto(photoUrl(r));

      const text = step === "card" ? "" : r.text || "";
      el.classList.toggle("no-text", !text);
      if (setText(f.text, text) || fitted !== text) {
        fitted = text;
        if (text) fitText(f.text, 38, 28);
      }

      // The verdict of the question on screen: results[i] once it is judged.
      const verdict = (r.results || [])[r.question] ?? (r.phase === "closed" ? (r.results || []).at(-1) : null);
      const held = step === "card" || step === "text";
      const answer = held ? "" : r.answer || "";
      el.classList.toggle("has-answer", !!answer || (!held && !!verdict));
      setText(f.answer, answer);
      f.verdict.className = `qc-verdict ${(!held && verdict) || ""}`;
      setText(
        f.verdict,
        held ? "" : verdict === "correct" ? t("verdict_correct") : verdict === "incorrect" ? t("verdict_incorrect") : "",
      );
    },
  };
  return api;
}
