// Words for what the state holds: phases, kinds, timers, and what `undo` would revert.

import { t, currentLang } from "./i18n.js";
import { formatRemaining } from "../lib/timer.js";
import { isolated } from "./common.js";

export function kindName(kind) {
  return t(`kind.${kind}`);
}

export function phaseName(phase) {
  return t(`phase.${phase ?? "none"}`);
}

export function sideName(side) {
  return t(`side.${side}`);
}

/** "Верный ответ в секторе 7", "Волчок: сектор 5 (выпал 3)"… from state.undo = {events: [types],
 * first}; `state` (the game the undo is of) names the round a verdict was given in. */
export function describeUndo(undo, state = null) {
  if (!undo) return "";
  const e = undo.first || {};
  let text;
  switch (e.type) {
    case "spun":
      text = e.landed !== e.sector
        ? t("ev.spun_moved", { sector: e.sector, landed: e.landed })
        : t("ev.spun", { sector: e.sector });
      if (e.drawn) text += ` ${t("ev.drawn")}`;
      break;
    case "timer_started":
      text = t(`ev.timer_started.${e.kind === "blitz" && state?.round?.kind === "superblitz" ? "superblitz" : e.kind}`);
      break;
    case "judged":
    {
      // the round undone is the one on record (a verdict closes it or moves to its next question)
      const r = state?.round;
      const params = { sector: r?.sector ?? "?", n: (e.question ?? 0) + 1, total: r?.questions ?? 1 };
      text = (r?.questions ?? 1) > 1
        ? t(e.correct ? "ev.judged_correct_of" : "ev.judged_incorrect_of", params)
        : t(e.correct ? "ev.judged_correct" : "ev.judged_incorrect", params);
    }
      break;
    case "player_chosen":
      text = t("ev.player_chosen", { player: isolated(e.player) });
      break;
    case "decisive_decided":
      text = t(e.granted ? "ev.decisive_granted" : "ev.decisive_refused");
      break;
    case "team_seated":
      text = t("ev.team_seated", { team: isolated(e.team) });
      break;
    default: {
      const key = `ev.${e.type}`;
      text = t(key) !== key ? t(key) : String(e.type || "?");
    }
  }
  const extra = [];
  const types = undo.events || [];
  // the decisive round's grant resets the score; its verdict sets the final one (RULES.md 1.8)
  if (types.includes("point")) extra.push(t("ev.with_score"));
  else if (types.includes("score_set")) extra.push(t(e.type === "decisive_decided" ? "ev.with_score_reset" : "ev.with_final_score"));
  if (types.includes("next_question")) extra.push(t("ev.with_next_question"));
  if (types.includes("time_up")) extra.push(t("ev.with_time_up"));
  if (types.includes("game_over")) extra.push(t("ev.with_game_over"));
  return extra.length ? `${text} (${extra.join(", ")})` : text;
}

/** The reason a move is not possible now, in words. */
export function reasonText(result) {
  if (!result || result.ok) return "";
  const params = { ...result.params };
  if ("phase" in params) params.phase = phaseName(params.phase);
  return t(result.reason, params);
}

/** The clock as the graphics draw it (lib/timer.js formatRemaining, one rounding rule for the
 * panel and the air): "0:49" for 48.2 s left (whole seconds, rounded up), "9,4" in the last 10 s
 * (tenths, the language's decimal mark); never negative. */
export function clockText(ms) {
  return formatRemaining(Math.max(0, ms), currentLang() === "en" ? "." : ",");
}
