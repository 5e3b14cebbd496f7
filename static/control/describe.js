// Words for what the state holds: phases, kinds, timers, and what `undo` would revert.

import { t } from "./i18n.js";
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

/** "Верный ответ", "Волчок: сектор 5 (выпал 3)"… from state.undo = {events: [types], first}. */
export function describeUndo(undo) {
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
      text = t(`ev.timer_started.${e.kind}`);
      break;
    case "judged":
      text = t(e.correct ? "ev.judged_correct" : "ev.judged_incorrect", { n: (e.question ?? 0) + 1 });
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
  if (types.includes("point") || types.includes("score_set")) extra.push(t("ev.with_score"));
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

/** m:ss.d for a number of milliseconds (rounded up to the tenth, never negative). */
export function clockText(ms) {
  const tenths = Math.max(0, Math.ceil(ms / 100));
  const m = Math.floor(tenths / 600);
  const s = Math.floor((tenths % 600) / 10);
  return `${m}:${String(s).padStart(2, "0")}.${tenths % 10}`;
}
