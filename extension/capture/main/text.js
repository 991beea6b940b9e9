// Pure text helpers of the MAIN-world capture (unit-tested under node).
import { charCodeAt, strSlice, strTrim, strReplace, MathMax, MathRound } from './builtins.js';

const WS = /\s+/g;

/** clip shortens s to at most n characters, marking the cut with "…". */
export function clip(s, n) {
  return s.length > n ? strSlice(s, 0, n - 1) + '…' : s;
}

/** utf8Length is the size of s in UTF-8 bytes (its length past 4M characters, to stay cheap). */
export function utf8Length(s) {
  if (s.length > 4194304) return s.length;
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = charCodeAt(s, i);
    if (c < 0x80) continue;
    n += c < 0x800 || (c >= 0xd800 && c <= 0xdfff) ? 1 : 2; // a surrogate pair: 4 bytes for 2 units
  }
  return n;
}

/** oneLine is s with its white space runs as one space, trimmed and clipped to n. */
export function oneLine(s, n) {
  return clip(strTrim(strReplace(s, WS, ' ')), n);
}

/** round is ms to a tenth, never negative. */
export function round(ms) {
  return MathMax(0, MathRound(ms * 10) / 10);
}

/** cappedText is a body's text cut to cap characters: {text, size, truncated?}, size in UTF-8 bytes. */
export function cappedText(s, cap) {
  return s.length > cap ? { text: strSlice(s, 0, cap), size: utf8Length(s), truncated: true } : { text: s, size: utf8Length(s) };
}

const TEXT_MIME = /^(text\/|application\/([\w.+-]*\+)?(json|xml|javascript|ecmascript|x-www-form-urlencoded|graphql|x-ndjson)\b)/i;

/** isTextMime says whether a body of this content type is text worth keeping. */
export function isTextMime(mime) {
  return typeof mime === 'string' && TEXT_MIME.test(mime) && !/event-stream/i.test(mime);
}
