// What an action changed, shaped into the compact answer (actions/changed.js):
// pure, tested under node.

/** MAX_CHARS is the most characters of JSON the answer holds (about 60 tokens). */
export const MAX_CHARS = 240;

/** ITEM_CHARS is the most characters an item of the answer takes. */
const ITEM_CHARS = 48;

/** FULL_ITEM_CHARS and FULL_CHARS bound an item and the whole of all, the list the daemon keeps. */
export const FULL_ITEM_CHARS = 200;
export const FULL_CHARS = 64 * 1024;

/** norm collapses white space and trims. */
export const norm = (s) => String(s ?? '').replace(/\s+/g, ' ').trim();

/** clip cuts s to n characters, marking the cut with an ellipsis. */
const clip = (s, n) => (s.length > n ? s.slice(0, n - 1) + '…' : s);

/** line is an item in a few words (n characters at most): its text, or "role 'name' ref states" for a control. */
export function line(it, n = ITEM_CHARS) {
  if (!it.role) return clip(norm(it.text), n);
  const name = norm(it.name);
  return `${it.role}${name ? ` '${clip(name, n - 16)}'` : ''}${it.ref ? ` ${it.ref}` : ''}${it.states ? ` ${it.states.join(' ')}` : ''}`;
}

/**
 * diff is what appeared and what went away, as lines of at most n
 * characters, each once: the same text gone and back (a list
 * re-rendered) is no change.
 */
function diff(seen, n) {
  const gone = (seen.removed || []).map((it) => line(it, n)).filter(Boolean);
  const came = (seen.appeared || []).map((it) => line(it, n)).filter(Boolean);
  const count = (list) => list.reduce((m, s) => m.set(s, (m.get(s) || 0) + 1), new Map());
  const keep = (list, other) => {
    const left = new Map(other);
    const res = new Set();
    for (const s of list) {
      if (left.get(s) > 0) left.set(s, left.get(s) - 1);
      else res.add(s);
    }
    return [...res];
  };
  return { appeared: keep(came, count(gone)), removed: keep(gone, count(came)) };
}

/** fullText is the whole diff as text, a line an item, within FULL_CHARS. */
function fullText({ state, appeared, removed }) {
  const lines = [...state.map((s) => '~ ' + s), ...appeared.map((s) => '+ ' + s), ...removed.map((s) => '- ' + s)];
  let text = '';
  for (let i = 0; i < lines.length; i++) {
    if (text.length + lines[i].length + 1 > FULL_CHARS - 64) {
      return text + `… ${lines.length - i} more not kept (${FULL_CHARS} characters at most)\n`;
    }
    text += lines[i] + '\n';
  }
  return text;
}

/** summarize shapes what watch saw into the compact answer, or null when nothing changed. */
export function summarize(seen) {
  const out = {};
  const { appeared, removed } = diff(seen, ITEM_CHARS);
  if (seen.title && seen.title.before !== seen.title.after) out.title = clip(norm(seen.title.after), ITEM_CHARS);
  if (seen.focus && seen.focus.before !== seen.focus.after) out.focus = seen.focus.after || 'none';
  if (seen.value && seen.value.before !== seen.value.after) out.value = `${seen.value.ref ? seen.value.ref + ' ' : ''}'${clip(norm(seen.value.after), ITEM_CHARS)}'`;
  const state = [...new Set((seen.state || []).map((it) => line(it)))];
  let more = 0;
  const size = () => JSON.stringify(out).length;
  for (const [key, list] of [['state', state], ['appeared', appeared], ['removed', removed]]) {
    for (const s of list) {
      (out[key] ||= []).push(s);
      if (size() > MAX_CHARS - 12) { // room for "more"
        out[key].pop();
        if (!out[key].length) delete out[key];
        more++;
      }
    }
  }
  if (more) {
    out.more = more;
    const full = diff(seen, FULL_ITEM_CHARS);
    out.all = fullText({ ...full, state: [...new Set((seen.state || []).map((it) => line(it, FULL_ITEM_CHARS)))] });
  }
  return Object.keys(out).length ? out : null;
}
