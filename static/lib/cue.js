// Cue-driven graphics (taken by the operator through `graphics`, not moved by the game):
// which entry is on air now, and the pictures an entry's data names.

/** Server ms at which a shown entry goes out by itself, or null. */
export function expiry(entry) {
  if (Number.isFinite(entry?.expires_at)) return entry.expires_at;
  const d = entry?.data?.duration_ms;
  return Number.isFinite(d) && d > 0 && Number.isFinite(entry?.shown_at) ? entry.shown_at + d : null;
}

/** The entry of `name` in the graphics map if it is on air at server time `now`, else null. */
export function onAirEntry(onAir, name, now) {
  const entry = onAir?.[name];
  if (!entry) return null;
  const ends = expiry(entry);
  return ends != null && now >= ends ? null : entry;
}

const URLISH = /^(\/|https?:\/\/|data:image\/)/i;

/** The URL a data field stands for: a media id resolved by the server (`entry.media`, which
 * changes when the picture is re-uploaded), or a URL given as is; null otherwise. */
export function mediaUrl(entry, value) {
  if (typeof value !== "string" || !value) return null;
  const resolved = entry?.media?.[value];
  if (typeof resolved === "string") return resolved;
  return URLISH.test(value) ? value : null;
}

const ready = new Map(); // url → Promise<boolean>: fetched and decoded

/** Resolves to true once `url` is fetched and decoded (so it can be shown in the next frame
 * without a blank or half-drawn one), false if it cannot be loaded. */
export function preload(url) {
  if (!ready.has(url)) {
    const img = new Image();
    img.decoding = "async";
    img.src = url;
    const p = img.decode().then(() => true, () => false);
    ready.set(url, p);
    p.then((ok) => { if (!ok) ready.delete(url); });
  }
  return ready.get(url);
}
