// Scoreboard: experts (team name) vs viewers, with badges for banked extra minutes, the club
// helping (while it helps) and the decisive round. A changed score rolls its digit.

import { expertsName, part, pulse, setName, setText, show, translateAll } from "../lib/dom.js";

export default function create(root, ctx) {
  const el = part(root, "scoreboard");
  const { t } = ctx;
  translateAll(el, t);
  const ref = (name) => el.querySelector(`[data-ref="${name}"]`);
  const team = ref("team");
  const nums = { experts: ref("experts"), viewers: ref("viewers") };
  const flashes = {
    experts: el.querySelector(".sb-flash-experts"),
    viewers: el.querySelector(".sb-flash-viewers"),
  };
  const badges = { extra: ref("extra"), help: ref("help"), decisive: ref("decisive") };

  // A box holds the current digit and at most one rolling out (marked `.leaving`). The current
  // one is never the outgoing one, so a change during a roll (a verdict undone at once) still
  // ends on the state's number, with only that digit left in the box.
  function setDigit(side, value, animate) {
    const box = nums[side];
    const text = String(value);
    const old = box.querySelector(":scope > span:not(.leaving)");
    if (old && old.textContent === text) return;
    for (const gone of box.querySelectorAll(":scope > span.leaving")) gone.remove();
    const next = document.createElement("span");
    next.textContent = text;
    box.append(next);
    if (!old) return;
    if (!animate) {
      old.remove();
      return;
    }
    // Roll: the old value leaves upwards, the new one arrives from below.
    for (const a of old.getAnimations()) a.cancel();
    old.classList.add("leaving");
    const up = Number(text) >= Number(old.textContent);
    const dir = up ? 1 : -1;
    const timing = { duration: 520, easing: "cubic-bezier(0.16, 1, 0.3, 1)" };
    old.animate(
      [{ transform: "none", opacity: 1 }, { transform: `translateY(${-70 * dir}%)`, opacity: 0 }],
      { ...timing, fill: "forwards" },
    ).finished.then(() => old.remove(), () => old.remove());
    next.animate(
      [{ transform: `translateY(${70 * dir}%)`, opacity: 0 }, { transform: "none", opacity: 1 }],
      timing,
    );
    pulse(flashes[side], "go");
  }

  return {
    update(state, prev) {
      show(el, !!state);
      if (!state) return;
      setName(team, expertsName(state, t) === t("experts") ? "" : expertsName(state, t));
      const animate = ctx.live && !!prev && prev.id === state.id;
      setDigit("experts", state.score?.experts ?? 0, animate);
      setDigit("viewers", state.score?.viewers ?? 0, animate);

      const banked = state.extra_minutes ?? 0;
      setText(badges.extra, banked > 1 ? `${t("extra_minute_badge")} ×${banked}` : t("extra_minute_badge"));
      badges.extra.classList.toggle("is-on", state.status === "playing" && banked > 0);
      // Shown while the club is helping (its 20 s), never while help is merely still available:
      // a viewer reads «Помощь клуба» on screen as help being given now.
      badges.help.classList.toggle(
        "is-on",
        state.status === "playing" && state.rules !== "club" && state.round?.phase === "club_help",
      );
      badges.decisive.classList.toggle("is-on", !!state.decisive?.active);
    },
  };
}
