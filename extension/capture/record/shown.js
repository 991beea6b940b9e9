// pick: at most three texts of 64 characters or less, shortest first, no
// bare number or time, no "Loading..." (it is gone by the time a test
// looks), none gone, each once in page (case folded, as getByText). page
// is the page's text, or a function giving it, read only when a candidate
// is left; only the SCAN shortest candidates are looked up in it, so a
// page that changes much costs a bounded number of searches. Pure, for
// node --test.

const MAX = 3;
const CHARS = 64;
const SCAN = 30;
const bare = /^[\d\s.,:;/+\-%()#]*(am|pm)?$/i;
const pending = /(\.\.\.|\u2026)$/;

/** cut is s clipped to CHARS characters, at a word's end where one is past the half. */
function cut(s) {
  if (s.length <= CHARS) return s;
  const i = s.lastIndexOf(' ', CHARS);
  return s.slice(0, i > CHARS / 2 ? i : CHARS);
}

/** pick chooses the texts of candidates an "appeared" record shows (above). */
export function pick(candidates, { gone = new Set(), page = '' } = {}) {
  const seen = new Set(), fresh = [];
  for (const c of candidates) {
    const s = cut(String(c || ''));
    const k = s.toLowerCase();
    if (s.length < 2 || seen.has(k) || bare.test(s) || pending.test(s) || gone.has(s) || s.includes('[redacted]')) continue;
    seen.add(k);
    fresh.push(s);
  }
  fresh.sort((a, b) => a.length - b.length);
  const ok = [];
  let folded = null;
  for (const s of fresh.slice(0, SCAN)) {
    folded ??= String(typeof page === 'function' ? page() : page).replace(/\s+/g, ' ').toLowerCase();
    const k = s.toLowerCase();
    const at = folded.indexOf(k);
    if (folded && (at < 0 || folded.indexOf(k, at + 1) >= 0)) continue;
    ok.push(s);
    if (ok.length === MAX) break;
  }
  return ok;
}
