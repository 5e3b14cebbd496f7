// Tiny DOM helpers shared by the graphics (no framework: a graphic is a few elements).

/** Creates an element: h("div", {class: "x", text: "y"}, child, ...). */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v == null || v === false) continue;
    if (k === "class") el.className = v;
    else if (k === "text") el.textContent = v;
    else if (k === "style") el.style.cssText = v;
    else el.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat()) if (c != null) el.append(c);
  return el;
}

/** Sets text only when it differs (no needless layout). Returns true when it changed. */
export function setText(el, text) {
  const s = text == null ? "" : String(text);
  if (el.textContent === s) return false;
  el.textContent = s;
  return true;
}

// Names (a team's, a player's, a person's on a strap) may be Hebrew or Arabic: each sits in its
// own <bdi> (direction from its first strong letter, isolated from what is around it), so it
// reads right to left while the numbers and punctuation beside it keep their order, and its box
// keeps the graphic's alignment (dir="auto" on the box would right-align an RTL name).

/** A name as an isolated run: h("span", {class: "x-name"}, bdi(team.name)). */
export function bdi(name) {
  return h("bdi", {}, name == null ? "" : String(name));
}

/** Sets a name as the only content of `el`, isolated in a <bdi> (an empty name leaves `el`
 * empty, for :empty rules). Returns true when it changed. */
export function setName(el, name) {
  const s = name == null ? "" : String(name);
  if (el.textContent === s && (s === "" || el.firstElementChild?.tagName === "BDI")) return false;
  el.replaceChildren(...(s ? [bdi(s)] : []));
  return true;
}

/** Toggles the on-air class of a graphic part: `.is-in` parts are visible once the stage is live. */
export function show(el, on) {
  el.classList.toggle("is-in", !!on);
}

/** Restarts a CSS animation class (e.g. a pulse when a score changes). */
export function pulse(el, cls) {
  el.classList.remove(cls);
  void el.offsetWidth; // reflow so the same animation can run again
  el.classList.add(cls);
}

/** Shrinks an element's font size until its content fits its box (long question texts). */
export function fitText(el, maxPx, minPx) {
  let size = maxPx;
  el.style.fontSize = `${size}px`;
  while (size > minPx && (el.scrollHeight > el.clientHeight + 1 || el.scrollWidth > el.clientWidth + 1)) {
    size -= 2;
    el.style.fontSize = `${size}px`;
  }
  return size;
}

/** Fits on-air text: one line, shrunk from `maxPx` down to `minPx`; if it still does not fit,
 * up to `maxLines` lines broken at word boundaries, again from `maxPx` down. Sets
 * data-fit="1" | "2"… (the lines used) | "over" (too long even so) and returns it. The element
 * needs a bounded width (a max-width on it or its box); one not laid out yet is left as it is
 * (no data-fit) and returns "". */
export function fitLines(el, maxPx, minPx, maxLines = 2) {
  if (!el.isConnected || !el.clientWidth) {  // not laid out yet: nothing to measure
    delete el.dataset.fit;
    return "";
  }
  const over = () => el.scrollWidth > el.clientWidth + 1;
  el.style.whiteSpace = "nowrap";
  el.style.overflowWrap = "normal";
  el.style.textOverflow = "clip";
  let size = maxPx;
  for (; size >= minPx; size -= 2) {
    el.style.fontSize = `${size}px`;
    if (!over()) return (el.dataset.fit = "1");
  }
  el.style.whiteSpace = "normal";
  for (size = maxPx; size >= minPx; size -= 2) {
    el.style.fontSize = `${size}px`;
    const line = parseFloat(getComputedStyle(el).lineHeight) || size * 1.2;
    const lines = Math.round(el.scrollHeight / line);
    if (lines <= maxLines && !over()) return (el.dataset.fit = String(lines));
  }
  el.style.fontSize = `${minPx}px`;
  return (el.dataset.fit = "over");
}

/** After a decisive round's grant (RULES.md 1.8: the score shows 0:0, the round decides) the
 * score it was granted at, «5 : 5 → решающий раунд»; else "". */
export function decisiveStory(state, t) {
  const b = state?.decisive?.active ? state.decisive.before : null;
  return b ? t("decisive_story", { experts: b.experts, viewers: b.viewers }) : "";
}

/** The game's end in one line (/live): the winner, or «Игра окончена», and a decisive round's story. */
export function endLine(state, t) {
  const end = state.winner ? t(`winner_${state.winner}`) : state.status === "finished" ? t("live_game_over") : "";
  return [end, decisiveStory(state, t)].filter(Boolean).join(" · ");
}

/** The experts' display name for either rule set. */
export function expertsName(state, t) {
  if (!state) return t("experts");
  if (state.experts?.name) return state.experts.name;
  const id = state.central?.team;
  const team = id && (state.teams || []).find((x) => x.id === id);
  return team ? team.name : t("experts");
}

/** The photo URL of a round's viewer, if any: `author.photo`, or the first image among the
 * question's `media` (each a URL string or {type, url}). */
export function photoUrl(round) {
  if (!round) return null;
  if (typeof round.author?.photo === "string" && round.author.photo) return round.author.photo;
  for (const m of [].concat(round.media ?? [])) {
    if (!m) continue;
    if (typeof m === "string") {
      if (/\.(png|jpe?g|webp|gif|avif|svg)(\?|#|$)/i.test(m) || m.startsWith("data:image/")) return m;
      continue;
    }
    if (m.type && !["image", "photo"].includes(m.type)) continue;
    const url = m.url || m.src || m.photo;
    if (url) return url;
  }
  return null;
}

/** Fills every [data-t="key"] element under root with its translation. */
export function translateAll(root, t) {
  for (const el of root.querySelectorAll("[data-t]")) el.textContent = t(el.dataset.t);
}

/** The part element of a graphic: root itself or its first [data-part=name] descendant. */
export function part(root, name) {
  if (root.matches?.(`[data-part="${name}"]`)) return root;
  return root.querySelector(`[data-part="${name}"]`);
}
