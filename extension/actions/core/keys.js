// Key names (actions/core.js): the KeyboardEvent fields of a key as DOM
// names it, for key_press and type.

const NAMED_KEYS = {
  Enter: 13, Tab: 9, Backspace: 8, Delete: 46, Escape: 27, ' ': 32, ArrowLeft: 37, ArrowUp: 38,
  ArrowRight: 39, ArrowDown: 40, Home: 36, End: 35, PageUp: 33, PageDown: 34, Insert: 45,
  Shift: 16, Control: 17, Alt: 18, Meta: 91, CapsLock: 20,
  F1: 112, F2: 113, F3: 114, F4: 115, F5: 116, F6: 117, F7: 118, F8: 119, F9: 120, F10: 121, F11: 122, F12: 123,
};
const KEY_ALIASES = { Esc: 'Escape', Space: ' ', Spacebar: ' ', Return: 'Enter', Del: 'Delete', Up: 'ArrowUp',
  Down: 'ArrowDown', Left: 'ArrowLeft', Right: 'ArrowRight', Ctrl: 'Control', Cmd: 'Meta', Command: 'Meta', Option: 'Alt' };
const PUNCT_CODES = {
  '-': ['Minus', 189], '=': ['Equal', 187], '[': ['BracketLeft', 219], ']': ['BracketRight', 221], '\\': ['Backslash', 220],
  ';': ['Semicolon', 186], "'": ['Quote', 222], ',': ['Comma', 188], '.': ['Period', 190], '/': ['Slash', 191], '`': ['Backquote', 192],
};
const SHIFTED = { '!': '1', '@': '2', '#': '3', $: '4', '%': '5', '^': '6', '&': '7', '*': '8', '(': '9', ')': '0',
  _: '-', '+': '=', '{': '[', '}': ']', '|': '\\', ':': ';', '"': "'", '<': ',', '>': '.', '?': '/', '~': '`' };

/**
 * keyInfo returns the KeyboardEvent fields of a key as DOM names it
 * ("Enter", "a", "A", "ArrowDown", "Space", "Esc" aliases accepted):
 * {key, code, keyCode, text} where text is what the key types ("" for
 * none), or null for a name it does not know.
 */
export function keyInfo(name) {
  const key = Object.hasOwn(KEY_ALIASES, name) ? KEY_ALIASES[name] : name;
  if (key === ' ') return { key, code: 'Space', keyCode: 32, text: ' ' };
  if (Object.hasOwn(NAMED_KEYS, key)) {
    const code = { Shift: 'ShiftLeft', Control: 'ControlLeft', Alt: 'AltLeft', Meta: 'MetaLeft' }[key] || key;
    return { key, code, keyCode: NAMED_KEYS[key], text: key === 'Enter' ? '\r' : '' };
  }
  if ([...key].length !== 1) return null;
  if (/^[a-z]$/i.test(key)) return { key, code: 'Key' + key.toUpperCase(), keyCode: key.toUpperCase().charCodeAt(0), text: key };
  if (/^[0-9]$/.test(key)) return { key, code: 'Digit' + key, keyCode: key.charCodeAt(0), text: key };
  const base = Object.hasOwn(SHIFTED, key) ? SHIFTED[key] : key;
  if (/^[0-9]$/.test(base)) return { key, code: 'Digit' + base, keyCode: base.charCodeAt(0), text: key };
  if (Object.hasOwn(PUNCT_CODES, base)) return { key, code: PUNCT_CODES[base][0], keyCode: PUNCT_CODES[base][1], text: key };
  return { key, code: '', keyCode: 0, text: key }; // any other character: typed, no physical key
}
