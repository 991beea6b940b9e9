// The pure logic of the DOM runtime beyond what the DOM engine
// (dom/engine.js) says of an element: states and values, the outline under
// a token budget, key names. Role, accessible name, target matching and
// locators are the engine's; gasolineCore passes them on, so the runtime
// and the overlay see one set of functions.
//
// A classic script (content scripts cannot be ES modules): it defines
// globalThis.gasolineCore and nothing else, in the ISOLATED world of a
// document, after dom/engine.js and before runtime.js. It touches only the
// part of the DOM the engine's header lists, which the node tests fake
// (extension/test/fakedom.js). Whether an element shows is asked of the
// caller (view.visible(el)), so layout stays in runtime.js.
(() => {
  if (globalThis.gasolineCore) return;
  const engine = globalThis.gasolineEngine;
  if (!engine) throw new Error('gasoline: dom/engine.js must load before actions/core.js');
  const { roleOf, nameOf, textOf, isInteractive, hidden, kids, walk, contains, inputType, rowTextOf, norm, clip,
    isElement, attr, NAME_FROM_CONTENT, INLINE_TAGS } = engine;
  const TEXT = 3;

  /** TOKEN_CHARS is the estimate of characters per token (the daemon's too: output.Store.EstimateTokens). */
  const TOKEN_CHARS = 4;

  // Roles kept as structure in the outline even when they have no name.
  const LANDMARKS = new Set(['main', 'navigation', 'banner', 'contentinfo', 'complementary', 'form',
    'search', 'region', 'dialog', 'alertdialog']);

  // Roles kept in the outline without a name, for the structure they give.
  const STRUCTURE = new Set(['list', 'table', 'grid', 'treegrid', 'dialog', 'iframe']);

  // Roles of a table row's cells: the outline puts a row on one line.
  const CELLS = new Set(['cell', 'gridcell', 'columnheader', 'rowheader']);

  // Roles whose content the outline does not show (their value says it).
  // MAX_OPTIONS is how many of a native select's options its outline line lists.
  const MAX_OPTIONS = 8;
  const CLOSED = new Set(['textbox', 'searchbox', 'combobox', 'iframe', 'slider', 'spinbutton', 'progressbar', 'meter']);

  // Tags that name another element (a control, a fieldset, a table): the
  // outline shows their text as that element's name, not again on its own.
  const NAMING_TAGS = new Set(['label', 'legend', 'caption', 'figcaption']);

  /** headingLevel is 1..6 for a heading, from aria-level or its tag. */
  function headingLevel(el) {
    const l = Number(attr(el, 'aria-level'));
    if (l >= 1) return l;
    const m = /^h([1-6])$/.exec(el.localName);
    return m ? Number(m[1]) : 2;
  }

  /** isDisabled reports a control that is disabled natively or by aria-disabled, or inside a disabled fieldset. */
  function isDisabled(el) {
    if (attr(el, 'aria-disabled') === 'true') return true;
    if (!['button', 'input', 'select', 'textarea', 'option', 'optgroup', 'fieldset'].includes(el.localName)) return false;
    if (el.disabled) return true;
    for (let p = el.parentNode; p; p = p.parentNode) {
      if (isElement(p) && p.localName === 'fieldset' && p.disabled) {
        const legend = Array.from(p.childNodes).find((c) => isElement(c) && c.localName === 'legend');
        if (!legend || !contains(legend, el)) return true;
      }
    }
    return false;
  }

  /** states lists the element's states as outline words: checked, disabled, expanded... */
  function states(el, role) {
    const out = [];
    const tag = el.localName;
    if (role === 'checkbox' || role === 'radio' || role === 'switch' || role === 'menuitemcheckbox' || role === 'menuitemradio') {
      const aria = attr(el, 'aria-checked');
      const on = tag === 'input' ? el.checked : aria === 'true';
      if (aria === 'mixed' || (tag === 'input' && el.indeterminate)) out.push('mixed');
      else if (on) out.push('checked');
    }
    if (attr(el, 'aria-pressed') === 'true') out.push('pressed');
    const expanded = attr(el, 'aria-expanded');
    if (expanded === 'true') out.push('expanded');
    else if (expanded === 'false') out.push('collapsed');
    if (attr(el, 'aria-selected') === 'true' || (tag === 'option' && el.selected)) out.push('selected');
    if (attr(el, 'aria-current') && attr(el, 'aria-current') !== 'false') out.push('current');
    if (isDisabled(el)) out.push('disabled');
    if (el.hasAttribute('required') || attr(el, 'aria-required') === 'true') out.push('required');
    if (el.hasAttribute('readonly') || attr(el, 'aria-readonly') === 'true') out.push('readonly');
    if (attr(el, 'aria-invalid') === 'true') out.push('invalid');
    if (role === 'heading') out.push('h' + headingLevel(el));
    return out;
  }

  /** valueOf is what a control holds, as the outline shows it ("" for none). */
  function valueOf(el, role) {
    const tag = el.localName;
    if (tag === 'select') {
      const picked = Array.from(el.options || []).filter((o) => o.selected).map((o) => norm(textOf(o, null)));
      return picked.join(', ');
    }
    if (tag === 'input') {
      const t = inputType(el);
      if (t === 'password') return el.value ? '••••' : '';
      if (['checkbox', 'radio', 'submit', 'button', 'reset', 'image', 'file'].includes(t)) return '';
      return String(el.value ?? '');
    }
    if (tag === 'textarea') return String(el.value ?? '');
    if (role === 'textbox' && attr(el, 'contenteditable') !== null) return norm(textOf(el, null));
    if (['slider', 'spinbutton', 'progressbar', 'meter'].includes(role)) {
      return String(attr(el, 'aria-valuetext') ?? attr(el, 'aria-valuenow') ?? el.value ?? '');
    }
    return '';
  }

  // --- outline -------------------------------------------------------------

  /**
   * outline renders the tree under root as a compact, markdown-like
   * outline, one line per block, indented one space per level:
   *
   *   # Sign in
   *   Welcome back. Read the [terms](e2) first.
   *   form 'Login'
   *    e3 textbox 'Email' required =ada@example.com
   *    e4 button 'Sign in' disabled
   *
   * Headings are "#" lines (one per level); links are [name](ref states),
   * inline with the text around them; other interactive elements are lines
   * "ref role 'name' states =value"; a table row is one line with its cells
   * between bars ("| a | [b](e2) |"); landmarks, lists, tables and the like
   * are "role 'name'" lines over their indented content. Generic
   * containers are skipped (their children move up); a block's text is cut
   * at maxText characters (marked …). With interactiveOnly, only
   * interactive elements and the landmarks around them are shown.
   *
   * opts: {refFor, view, interactiveOnly, maxText = 100, maxChars, onFrame}
   * where onFrame(el, index) is told of each iframe's line (its document
   * is not read here: the worker splices it in). It returns {lines, interactive, chars, truncated, clipped} where lines
   * stop before maxChars characters (the whole tree when maxChars is
   * absent) and clipped counts the lines whose text was cut.
   */
  function outline(root, opts) {
    const w = newOutline(opts);
    for (const k of isElement(root) && root.localName !== 'html' && root.localName !== 'body' ? [root] : kids(root)) {
      visit(w, k, 0);
    }
    if (!w.truncated) flush(w);
    if (w.truncated) {
      // Count what was left out, for the note.
      w.interactive = 0;
      walk(root, (el) => {
        if (isInteractive(el) && (!w.view || w.view.visible(el, false))) w.interactive++;
      }, w.view);
    }
    const { lines, interactive, chars, truncated, clipped } = w;
    return { lines, interactive, chars, truncated, clipped };
  }

  /**
   * newOutline is the state of one outline being written (w below): the
   * options, the lines so far and their characters, the interactive
   * elements counted, truncated (maxChars reached), clipped (lines whose
   * text was cut); run, the line being built from a block's inline content
   * (text and links): {depth, s, prefix, text (characters of text so far),
   * cut (its text was cut: no more text), wasCut (some text was cut)};
   * pending, the landmark lines of interactive_only mode, printed when a
   * descendant is; inLine, set while a heading's or a table row's content
   * is read: all of it goes on one line, whatever blocks it is wrapped in.
   */
  function newOutline(opts) {
    const { refFor, view, interactiveOnly = false, maxText = 100, onFrame } = opts;
    return {
      refFor, view, interactiveOnly, maxText, onFrame, maxChars: opts.maxChars ?? Infinity,
      lines: [], chars: 0, interactive: 0, truncated: false, clipped: 0, run: null, pending: [], inLine: false,
    };
  }

  /** push adds the line s at depth, or reports false (and marks w truncated) when it would pass maxChars. */
  function push(w, depth, s) {
    const line = ' '.repeat(depth) + s;
    if (w.chars + line.length + 1 > w.maxChars) {
      w.truncated = true;
      return false;
    }
    w.lines.push(line);
    w.chars += line.length + 1;
    return true;
  }

  /** flush ends the run being built, pushing it unless it holds nothing; false when it did not fit. */
  function flush(w) {
    if (!w.run) return true;
    const r = w.run;
    w.run = null;
    const line = norm(r.s);
    if (r.wasCut) w.clipped++;
    return !line || line === norm(r.prefix) || push(w, r.depth, line);
  }

  /** openRun starts a run at depth (starting with prefix) unless one is open there. */
  function openRun(w, depth, prefix = '') {
    if (w.run && w.run.depth !== depth) flush(w);
    if (!w.run) w.run = { depth, s: prefix, prefix, text: 0, cut: false };
  }

  /**
   * gap puts a space before an element's piece when nothing separates it
   * from what the line holds (as textOf does between elements).
   */
  function gap(w) {
    if (w.run.s && !/\s$/.test(w.run.s)) w.run.s += ' ';
  }

  /** addText adds text t (an element's when element) to the run at depth, cut at maxText. */
  function addText(w, depth, t, element = false) {
    t = String(t).replace(/\s+/g, ' ');
    if (t === '' || (t === ' ' && (!w.run || w.run.depth !== depth))) return;
    openRun(w, depth);
    const run = w.run;
    if (run.cut) return;
    if (element && !t.startsWith(' ')) gap(w);
    if (run.text + t.length > w.maxText) {
      run.s += clip(t, Math.max(1, w.maxText - run.text));
      run.cut = run.wasCut = true;
      return;
    }
    run.s += t;
    run.text += t.length;
  }

  /** addInline adds s (a link, a control) to the run at depth. */
  function addInline(w, depth, s) {
    openRun(w, depth);
    gap(w);
    w.run.s += s;
  }

  /** flushPending prints the pending landmark lines not printed yet; false when one did not fit. */
  function flushPending(w) {
    for (const p of w.pending) {
      if (!p.printed) {
        if (!push(w, p.depth, p.text)) return false;
        p.printed = true;
      }
    }
    return true;
  }

  /** visitKids visits node's children at depth, as a block of its own when block. */
  function visitKids(w, node, depth, block) {
    if (block) flush(w);
    for (const k of kids(node)) visit(w, k, depth);
    if (block) flush(w);
  }

  /** oneLine runs fn with w.inLine set. */
  function oneLine(w, fn) {
    const was = w.inLine;
    w.inLine = true;
    try {
      fn();
    } finally {
      w.inLine = was;
    }
  }

  /** visit writes node (a text or an element with what it holds) at depth. */
  function visit(w, node, depth) {
    if (w.truncated) return;
    if (node.nodeType === TEXT) {
      if (!w.interactiveOnly) addText(w, depth, node.data ?? node.textContent ?? '');
      return;
    }
    if (!isElement(node) || hidden(node)) return;
    if (w.view && !w.view.visible(node, false)) return;
    const block = !w.inLine && !INLINE_TAGS.has(node.localName);
    if (NAMING_TAGS.has(node.localName) && !attr(node, 'role')) {
      for (const k of kids(node)) if (isElement(k) && (isInteractive(k) || hasInteractiveChild(k))) visit(w, k, depth);
      return;
    }
    const role = roleOf(node);
    if (role === 'presentation' && !isInteractive(node, '')) {
      visitKids(w, node, depth, block);
      return;
    }
    const act = role && isInteractive(node, role);
    const name = role ? nameOf(node, w.view, role) : '';
    if (!role || (!act && !name && !LANDMARKS.has(role) && !STRUCTURE.has(role))) {
      visitGeneric(w, node, depth, block);
      return;
    }
    if (w.interactiveOnly && !act && role !== 'iframe') {
      visitAround(w, node, depth, role, name);
      return;
    }
    if (w.interactiveOnly && !flushPending(w)) return;
    visitRoled(w, node, depth, block, role, name, act);
  }

  /**
   * visitGeneric writes a generic or unnamed element: its text when it
   * holds nothing with a role (one line of its own for a block), else its
   * children move up.
   */
  function visitGeneric(w, node, depth, block) {
    if (!w.interactiveOnly && !hasRoledChild(node)) {
      if (block) flush(w);
      addText(w, depth, textOf(node, w.view), true);
      if (block) flush(w);
      return;
    }
    visitKids(w, node, depth, block);
  }

  /**
   * visitAround writes, in interactive_only mode, an element that is not
   * interactive: a landmark's line waits in pending for a descendant to be
   * printed; another's children move up.
   */
  function visitAround(w, node, depth, role, name) {
    if (LANDMARKS.has(role)) {
      const p = { depth, text: lineFor(node, role, name, null, w.maxText), printed: false };
      w.pending.push(p);
      for (const k of kids(node)) visit(w, k, depth + 1);
      w.pending.pop();
    } else {
      for (const k of kids(node)) visit(w, k, depth);
    }
  }

  /** visitRoled writes an element with a role worth a line (act: it is interactive, counted and given a ref). */
  function visitRoled(w, node, depth, block, role, name, act) {
    let ref = null;
    if (act) {
      w.interactive++;
      ref = w.refFor ? w.refFor(node) : null;
    }
    if (role === 'link') return visitLink(w, node, depth, block, name, ref);
    if (role === 'heading' && !w.inLine) return visitHeading(w, node, depth, name);
    if (role === 'row' && !act && !w.inLine) return visitRow(w, node, depth);
    const leaf = (NAME_FROM_CONTENT.has(role) || role === 'img') && name && norm(textOf(node, w.view)) === name &&
      !hasInteractiveChild(node);
    const closed = leaf || CLOSED.has(role) || (role === 'listbox' && node.localName === 'select');
    if (w.inLine && role !== 'iframe') {
      addInline(w, depth, lineFor(node, role, name, ref, w.maxText));
      if (!closed) for (const k of kids(node)) visit(w, k, depth);
      return;
    }
    flush(w);
    // A control without a name is shown with the text of its row
    // (in a table row, the line already holds it).
    const row = act && !name ? rowTextOf(node, w.view) : '';
    if (!push(w, depth, lineFor(node, role, name, ref, w.maxText, row))) return;
    if (role === 'iframe' && w.onFrame) w.onFrame(node, w.lines.length - 1);
    if (!closed) visitKids(w, node, depth + 1, true);
  }

  /** visitLink writes a link as markdown, inline with the text around it unless it is a block or holds controls. */
  function visitLink(w, node, depth, block, name, ref) {
    const inner = hasInteractiveChild(node);
    const md = linkFor(node, name, ref, w.maxText);
    if (!block && !inner && !w.interactiveOnly) {
      addInline(w, depth, md);
      return;
    }
    flush(w);
    if (!push(w, depth, md)) return;
    if (inner) visitKids(w, node, depth + 1, true);
  }

  /** visitHeading writes a heading as a "#" line: its name, or its text and links when it holds controls. */
  function visitHeading(w, node, depth, name) {
    flush(w);
    const hashes = '#'.repeat(headingLevel(node));
    const st = states(node, 'heading').filter((s) => !/^h\d$/.test(s));
    if (!hasInteractiveChild(node)) {
      push(w, depth, `${hashes} ${clip(name, w.maxText)}${st.length ? ' ' + st.join(' ') : ''}`);
      return;
    }
    openRun(w, depth, hashes + ' '); // its text and links on the heading's line
    oneLine(w, () => {
      for (const k of kids(node)) visit(w, k, depth);
    });
    flush(w);
  }

  /** visitRow writes a table row as one line, its cells between bars: | a | [b](e2) | */
  function visitRow(w, node, depth) {
    flush(w);
    openRun(w, depth, '|');
    oneLine(w, () => {
      for (const k of kids(node)) {
        const cell = isElement(k) && !hidden(k) && (!w.view || w.view.visible(k, false)) && CELLS.has(roleOf(k));
        if (cell) visitCell(w, k, depth);
        else visit(w, k, depth);
      }
    });
    flush(w);
  }

  /** visitCell writes a row's cell k and the bar after it; each cell's text has maxText. */
  function visitCell(w, k, depth) {
    openRun(w, depth, '|');
    gap(w);
    w.run.text = 0;
    w.run.cut = false;
    if (isInteractive(k)) visit(w, k, depth);
    else for (const c of kids(k)) visit(w, c, depth);
    if (w.run?.depth === depth) {
      gap(w);
      w.run.s += '|';
    }
  }

  /** hasRoledChild reports whether an element under el has a role (not presentation) or is interactive. */
  function hasRoledChild(el) {
    let found = false;
    walk(el, (c) => {
      if (found) return false;
      const r = roleOf(c);
      if ((r && r !== 'presentation') || isInteractive(c, r)) found = true;
    });
    return found;
  }

  /** hasInteractiveChild reports whether an element under el is interactive. */
  function hasInteractiveChild(el) {
    let found = false;
    walk(el, (c) => {
      if (found) return false;
      if (isInteractive(c)) found = true;
    });
    return found;
  }

  /**
   * quote wraps outline text in single quotes, unescaped: the outline
   * travels inside JSON, where double quotes would cost a backslash each.
   */
  const quote = (s) => `'${s}'`;

  /**
   * lineFor is one outline line: ref role 'name' states =value (an iframe:
   * its src); a control without a name shows its row's text as in 'row'.
   */
  function lineFor(el, role, name, ref, maxText, row = '') {
    let s = ref ? `${ref} ${role}` : role;
    if (name) s += ' ' + quote(clip(name, maxText));
    else if (row) s += ' in ' + quote(clip(row, Math.min(60, maxText)));
    const st = states(el, role);
    if (st.length) s += ' ' + st.join(' ');
    const v = norm(valueOf(el, role));
    if (v && v !== name) s += ' =' + clip(v, maxText);
    if (role === 'iframe') {
      const src = attr(el, 'src');
      if (src) s += ' ' + clip(src, 80);
    }
    if (el.localName === 'select') s += ' ' + optionsOf(el);
    return s;
  }

  /**
   * optionsOf lists a native select's options as {a|b|c}, the labels select
   * takes: at most MAX_OPTIONS, then +N for the rest, each clipped.
   */
  function optionsOf(el) {
    const labels = Array.from(el.options || []).map((o) => clip(norm(textOf(o, null)) || String(o.value ?? ''), 30));
    const shown = labels.slice(0, MAX_OPTIONS);
    if (labels.length > MAX_OPTIONS) shown.push('+' + (labels.length - MAX_OPTIONS));
    return '{' + shown.join('|') + '}';
  }

  /** linkFor is a link as markdown: [name](ref states), with its href when it has no name. */
  function linkFor(el, name, ref, maxText) {
    const parts = ref ? [ref] : [];
    parts.push(...states(el, 'link'));
    if (!name) {
      const href = attr(el, 'href');
      if (href && !href.startsWith('javascript:') && href !== '#') parts.push(clip(href, 80));
    }
    return `[${clip(name, maxText)}](${parts.join(' ')})`;
  }

  /** estimateTokens is the daemon's token estimate of a text: characters/4, rounded up. */
  const estimateTokens = (s) => Math.ceil(String(s).length / TOKEN_CHARS);

  // --- keys ------------------------------------------------------------------

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
  function keyInfo(name) {
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

  /** globMatch reports whether url matches pattern: a substring, or a glob where * is any run of characters. */
  function globMatch(url, pattern) {
    if (!pattern.includes('*')) return url.includes(pattern);
    const re = new RegExp('^' + pattern.split('*').map((p) => p.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*') + '$');
    return re.test(url);
  }

  globalThis.gasolineCore = Object.freeze({
    ...engine, states, valueOf, isDisabled, outline, estimateTokens, keyInfo, globMatch, headingLevel, LANDMARKS,
    TOKEN_CHARS,
  });
})();
