// The pure logic of the DOM runtime: accessible role and name, target
// matching, the outline under a token budget, selectors, key names.
//
// A classic script (content scripts cannot be ES modules): it defines
// globalThis.gasolineCore and nothing else, in the ISOLATED world of every
// document, before runtime.js. It touches only this small part of the DOM,
// which the node tests fake (extension/test/fakedom.js):
//   node:     nodeType, childNodes, parentNode, textContent / data
//   element:  localName, getAttribute, hasAttribute, shadowRoot, labels,
//             value, checked, selected, disabled, multiple, options,
//             ownerDocument.getElementById
// Whether an element shows is asked of the caller (view.visible(el)), so
// layout stays in runtime.js.
(() => {
  if (globalThis.gasolineCore) return;

  const ELEMENT = 1;
  const TEXT = 3;

  /** TOKEN_CHARS is the estimate of characters per token (SPEC: chars/4). */
  const TOKEN_CHARS = 4;

  const INPUT_ROLES = {
    button: 'button', submit: 'button', reset: 'button', image: 'button', file: 'button',
    checkbox: 'checkbox', radio: 'radio', range: 'slider', number: 'spinbutton',
    search: 'searchbox', email: 'textbox', tel: 'textbox', text: 'textbox', url: 'textbox',
    password: 'textbox', date: 'textbox', 'datetime-local': 'textbox', month: 'textbox',
    time: 'textbox', week: 'textbox', color: 'button', hidden: '',
  };

  const TAG_ROLES = {
    button: 'button', textarea: 'textbox', option: 'option', nav: 'navigation', main: 'main',
    aside: 'complementary', form: 'form', article: 'article', dialog: 'dialog', ul: 'list',
    ol: 'list', menu: 'list', li: 'listitem', table: 'table', tr: 'row', td: 'cell', th: 'columnheader',
    p: 'paragraph', details: 'group', fieldset: 'group', summary: 'button', progress: 'progressbar',
    meter: 'meter', iframe: 'iframe', frame: 'iframe', hr: 'separator', blockquote: 'blockquote',
    figure: 'figure', thead: 'rowgroup', tbody: 'rowgroup', tfoot: 'rowgroup', dl: 'list', dt: 'term',
    dd: 'definition', search: 'search', output: 'status', label: 'label', legend: 'legend',
    pre: 'code', code: 'code',
  };

  /** INTERACTIVE_ROLES are the roles an agent acts on: each gets a ref in the outline. */
  const INTERACTIVE_ROLES = new Set([
    'button', 'link', 'textbox', 'searchbox', 'checkbox', 'radio', 'combobox', 'listbox', 'option',
    'slider', 'spinbutton', 'switch', 'tab', 'menuitem', 'menuitemcheckbox', 'menuitemradio', 'treeitem',
  ]);

  // Roles whose name comes from their content (WAI-ARIA "name from: contents").
  const NAME_FROM_CONTENT = new Set([
    'button', 'link', 'heading', 'option', 'cell', 'gridcell', 'columnheader', 'rowheader', 'checkbox', 'radio',
    'switch', 'tab', 'menuitem', 'menuitemcheckbox', 'menuitemradio', 'treeitem', 'tooltip', 'term',
    'legend', 'caption', 'label', 'row',
  ]);

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

  // Tags whose content is never shown or read.
  const SKIP_TAGS = new Set(['script', 'style', 'noscript', 'template', 'head', 'meta', 'link', 'title']);

  /** norm collapses white space and trims. */
  const norm = (s) => String(s ?? '').replace(/\s+/g, ' ').trim();

  /** clip cuts s to n characters, marking the cut with an ellipsis. */
  const clip = (s, n) => (s.length > n ? s.slice(0, n - 1) + '…' : s);

  const isElement = (n) => n && n.nodeType === ELEMENT;
  const attr = (el, name) => (el.getAttribute ? el.getAttribute(name) : null);

  /** inputType is the lower-case type of an input, "text" when absent or unknown. */
  function inputType(el) {
    const t = String(attr(el, 'type') || 'text').toLowerCase();
    return Object.hasOwn(INPUT_ROLES, t) ? t : 'text';
  }

  /** hasAncestor reports whether el has an ancestor with one of the tags. */
  function hasAncestor(el, tags) {
    for (let p = el.parentNode; p; p = p.parentNode) {
      if (isElement(p) && tags.includes(p.localName)) return true;
    }
    return false;
  }

  /**
   * roleOf returns the element's accessible role: its role attribute's first
   * token, else the implicit role of its tag, else "" (a generic element).
   */
  function roleOf(el) {
    const explicit = norm(attr(el, 'role')).split(' ')[0];
    if (explicit) return explicit === 'none' ? 'presentation' : explicit;
    const tag = el.localName;
    switch (tag) {
      case 'a':
      case 'area':
        return el.hasAttribute('href') ? 'link' : '';
      case 'input':
        return INPUT_ROLES[inputType(el)] ?? 'textbox';
      case 'select':
        return el.multiple || Number(attr(el, 'size')) > 1 ? 'listbox' : 'combobox';
      case 'img':
        return attr(el, 'alt') === '' ? 'presentation' : 'img';
      case 'svg':
        return attr(el, 'aria-label') || attr(el, 'aria-labelledby') ? 'img' : '';
      case 'h1': case 'h2': case 'h3': case 'h4': case 'h5': case 'h6':
        return 'heading';
      case 'header':
        return hasAncestor(el, ['article', 'aside', 'main', 'nav', 'section']) ? '' : 'banner';
      case 'footer':
        return hasAncestor(el, ['article', 'aside', 'main', 'nav', 'section']) ? '' : 'contentinfo';
      case 'section':
        return attr(el, 'aria-label') || attr(el, 'aria-labelledby') ? 'region' : '';
      case 'th':
        return attr(el, 'scope') === 'row' ? 'rowheader' : 'columnheader';
    }
    if (Object.hasOwn(TAG_ROLES, tag)) return TAG_ROLES[tag];
    const ce = attr(el, 'contenteditable');
    if (ce !== null && ce !== 'false') return 'textbox';
    return '';
  }

  /** headingLevel is 1..6 for a heading, from aria-level or its tag. */
  function headingLevel(el) {
    const l = Number(attr(el, 'aria-level'));
    if (l >= 1) return l;
    const m = /^h([1-6])$/.exec(el.localName);
    return m ? Number(m[1]) : 2;
  }

  /** hidden reports an element that is never shown or read (without layout). */
  function hidden(el) {
    return SKIP_TAGS.has(el.localName) || el.hasAttribute('hidden') || attr(el, 'aria-hidden') === 'true' ||
      (el.localName === 'input' && inputType(el) === 'hidden');
  }

  /** kids returns a node's children in the composed tree: an open shadow root's, else its own. */
  function kids(node) {
    if (isElement(node) && node.shadowRoot) return Array.from(node.shadowRoot.childNodes);
    if (isElement(node) && node.localName === 'slot' && typeof node.assignedNodes === 'function') {
      const assigned = node.assignedNodes();
      if (assigned.length) return Array.from(assigned);
    }
    return Array.from(node.childNodes || []);
  }

  /**
   * textOf is the text a user sees in node: text nodes, img alt, input
   * values, skipping hidden subtrees, joined with single spaces.
   */
  function textOf(node, view, depth = 0) {
    if (node.nodeType === TEXT) return node.data ?? node.textContent ?? '';
    if (!isElement(node) || depth > 50) return '';
    if (hidden(node) || (view && !view.visible(node, true))) return '';
    if (node.localName === 'img') return attr(node, 'alt') || '';
    if (node.localName === 'input') {
      const t = inputType(node);
      return t === 'submit' || t === 'button' || t === 'reset' ? node.value || '' : '';
    }
    if (node.localName === 'select' || node.localName === 'textarea') return '';
    let s = '';
    for (const k of kids(node)) {
      const t = textOf(k, view, depth + 1);
      if (t) s += (s && !/\s$/.test(s) && !/^\s/.test(t) && isElement(k) ? ' ' : '') + t;
    }
    return s;
  }

  // --- accessible names (W3C accname 1.2) ------------------------------------

  // Roles that are embedded controls: inside another element's label or
  // content they stand for their value, not their own name (accname 2E).
  const EMBEDDED = new Set(['textbox', 'searchbox', 'combobox', 'listbox', 'slider', 'spinbutton']);

  /** hiddenNode reports an element that is hidden from users (accname 2A). */
  const hiddenNode = (el, view) => hidden(el) || Boolean(view && !view.visible(el, true));

  /** parentOf is el's parent in the composed tree (a shadow root leads to its host). */
  const parentOf = (el) => {
    const p = el.parentNode;
    return p && p.nodeType === 11 ? p.host : p;
  };

  /** controlValue is an embedded control's value, as a name reads it (accname 2E). */
  function controlValue(el, role) {
    const tag = el.localName;
    if (role === 'combobox' || role === 'listbox') {
      if (tag === 'select') return Array.from(el.options || []).filter((o) => o.selected).map((o) => norm(textOf(o, null))).join(' ');
      return norm(attr(el, 'aria-valuetext') ?? '');
    }
    if (role === 'slider' || role === 'spinbutton') {
      return String(attr(el, 'aria-valuetext') ?? attr(el, 'aria-valuenow') ?? el.value ?? '');
    }
    if (tag === 'input' || tag === 'textarea') return String(el.value ?? '');
    return textOf(el, null);
  }

  /**
   * textAlt computes the text alternative of node (accname 1.2 step 2) in
   * the traversal c: {root, labelledby (inside an aria-labelledby
   * traversal), content (inside a name from content), hiddenOk (inside a
   * hidden node aria-labelledby names), depth}.
   */
  function textAlt(node, view, c, role) {
    if (node.nodeType === TEXT) return node.data ?? node.textContent ?? ''; // 2G
    if (!isElement(node) || c.depth > 30) return '';
    const el = node;
    const inside = el !== c.root;
    if (inside && !c.hiddenOk && hiddenNode(el, view)) return ''; // 2A
    if (SKIP_TAGS.has(el.localName)) return '';
    const r = role ?? roleOf(el);
    // 2B: aria-labelledby, not followed again inside one.
    if (!c.labelledby) {
      const ids = norm(attr(el, 'aria-labelledby'));
      const doc = ids && el.ownerDocument;
      if (doc && typeof doc.getElementById === 'function') {
        const parts = [];
        for (const id of ids.split(' ')) {
          const t = doc.getElementById(id);
          if (!t) continue;
          const hid = c.hiddenOk || hiddenNode(t, view);
          parts.push(norm(textAlt(t, view, { root: t, labelledby: true, content: true, hiddenOk: hid, depth: c.depth + 1 })));
        }
        const s = parts.filter(Boolean).join(' ');
        if (s) return s;
      }
    }
    const embedded = inside && (c.labelledby || c.content) && EMBEDDED.has(r);
    // 2C: aria-label (an embedded control in a label reads its value instead).
    if (!embedded) {
      const label = norm(attr(el, 'aria-label'));
      if (label) return label;
    }
    // 2D: the host language's own label, unless presentational.
    if (r !== 'presentation') {
      const n = nativeName(el, view, c, r);
      if (n) return n;
    }
    // 2E: an embedded control reads as its value.
    if (embedded) return controlValue(el, r);
    // 2F: name from content, for roles that take it and anywhere inside a
    // label, a labelledby traversal or another name from content.
    if (NAME_FROM_CONTENT.has(r) || c.labelledby || c.content) {
      const s = contentName(el, view, c);
      if (s.trim()) return s;
    }
    // 2I: the tooltip.
    return norm(attr(el, 'title'));
  }

  /** contentName joins the text alternatives of el's children (accname 2F). */
  function contentName(el, view, c) {
    const inner = { ...c, content: true, depth: c.depth + 1 };
    let s = '';
    for (const k of kids(el)) {
      if (isElement(k) && k === c.root) continue;
      let t = textAlt(k, view, inner);
      if (!t) continue;
      // Block-level children read as separate words; inline ones run on.
      if (isElement(k) && !INLINE_TAGS.has(k.localName)) t = ` ${t} `;
      s += t;
    }
    return s;
  }

  /**
   * nativeName is the name HTML gives el (accname 2D, HTML-AAM): a button
   * input's value, a control's labels, then its title and placeholder, an
   * image's alt, a fieldset's legend, a table's caption, a figure's
   * figcaption, an svg's title.
   */
  function nativeName(el, view, c, role) {
    const tag = el.localName;
    if (tag === 'input' || tag === 'textarea' || tag === 'select' || tag === 'button' || tag === 'meter' || tag === 'progress' || tag === 'output') {
      const t = tag === 'input' ? inputType(el) : '';
      if (t === 'submit' || t === 'reset' || t === 'button') {
        return norm(el.value) || (t === 'submit' ? 'Submit' : t === 'reset' ? 'Reset' : '');
      }
      if (t === 'image') return norm(attr(el, 'alt')) || norm(attr(el, 'value')) || norm(attr(el, 'title')) || 'Submit';
      const labels = el.labels ? Array.from(el.labels) : [];
      if (labels.length) {
        const s = norm(labels.map((l) => norm(textAlt(l, view, { root: el, labelledby: c.labelledby, content: true, hiddenOk: c.hiddenOk, depth: c.depth + 1 }))).join(' '));
        if (s) return s;
      }
      if (tag === 'button') return '';
      return norm(attr(el, 'title')) || norm(attr(el, 'placeholder')) || norm(attr(el, 'aria-placeholder'));
    }
    if (tag === 'img' || tag === 'area') return norm(attr(el, 'alt'));
    const first = { fieldset: 'legend', table: 'caption', figure: 'figcaption', svg: 'title' }[tag];
    if (first) {
      const cap = Array.from(el.childNodes || []).find((k) => isElement(k) && k.localName === first);
      if (cap) return norm(tag === 'svg' ? cap.textContent : contentName(cap, view, { ...c, root: null }));
    }
    return '';
  }

  /**
   * nameOf returns the element's accessible name by the W3C accname 1.2
   * rules: aria-labelledby (hidden targets included), aria-label, the
   * host language's label (label[for], a wrapping label, a button input's
   * value, alt, legend, caption, figcaption), name from content for the
   * roles that take it (hidden content left out; embedded controls inside
   * read as their values), then title, and placeholder for fields.
   */
  function nameOf(el, view, role = roleOf(el)) {
    return norm(textAlt(el, view, { root: el, labelledby: false, content: false, hiddenOk: false, depth: 0 }, role));
  }

  // --- the row's text -------------------------------------------------------------

  // Roles of a container that is one row of a collection: a control without
  // a name is known by the row's text.
  const ROW_ROLES = new Set(['listitem', 'row', 'article', 'treeitem']);

  // Roles a row never reaches past: the collection, or a region of its own.
  const ROW_STOPS = new Set(['list', 'table', 'grid', 'treegrid', 'rowgroup', 'tree', 'listbox', 'menu',
    'menubar', 'tablist', 'radiogroup', 'group', 'form', 'main', 'navigation', 'banner', 'contentinfo',
    'complementary', 'search', 'region', 'dialog', 'alertdialog']);

  /** ROW_TEXT is the longest row text kept; a container with more is not a row. */
  const ROW_TEXT = 200;

  /** ROW_CONTROLS is how many controls a container without a row role may hold and still be a card. */
  const ROW_CONTROLS = 3;

  /**
   * rowTextOf returns the text of the row control sits in, for a control
   * without an accessible name ("" when it has none): the closest list
   * item, table row or article, or a card-like container (few controls,
   * a little text), without the text of its other buttons. It climbs at
   * most 6 levels and stops at a list, table, form or landmark.
   */
  function rowTextOf(control, view) {
    let n = control;
    for (let level = 0; level < 6; level++) {
      n = parentOf(n);
      if (!isElement(n) || n.localName === 'body' || n.localName === 'html') return '';
      const r = roleOf(n);
      if (ROW_STOPS.has(r)) return '';
      const row = ROW_ROLES.has(r);
      if (!row && controlsIn(n, ROW_CONTROLS + 1) > ROW_CONTROLS) return '';
      const t = norm(rowText(n, control, view, { left: ROW_TEXT + 1 }));
      if (t.length > ROW_TEXT) return '';
      if (t || row) return t;
    }
    return '';
  }

  /** controlsIn counts the interactive elements under el, stopping at max. */
  function controlsIn(el, max) {
    let n = 0;
    walk(el, (c) => {
      if (n >= max) return false;
      if (isInteractive(c)) n++;
    });
    return n;
  }

  /** rowText is the visible text under node, without skip's and the buttons', at most budget.left characters. */
  function rowText(node, skip, view, budget) {
    if (budget.left <= 0) return '';
    if (node.nodeType === TEXT) {
      const t = node.data ?? node.textContent ?? '';
      budget.left -= t.trim().length;
      return t;
    }
    if (!isElement(node) || node === skip || hiddenNode(node, view)) return '';
    const r = roleOf(node);
    if (r === 'button' || EMBEDDED.has(r)) return '';
    if (node.localName === 'img') return attr(node, 'alt') || '';
    let s = '';
    for (const k of kids(node)) {
      const t = rowText(k, skip, view, budget);
      if (t) s += isElement(k) && !INLINE_TAGS.has(k.localName) ? ` ${t} ` : t;
    }
    return s;
  }

  /** isInteractive reports an element an agent can act on. */
  function isInteractive(el, role = roleOf(el)) {
    if (INTERACTIVE_ROLES.has(role)) return true;
    const ti = attr(el, 'tabindex');
    return ti !== null && Number(ti) >= 0 && role !== 'dialog' && role !== 'region' && role !== 'main';
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

  /** contains reports whether node is a, or is inside a, in the composed tree. */
  function contains(a, node) {
    for (let n = node; n; n = n.parentNode || n.host) if (n === a) return true;
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

  // --- targets -------------------------------------------------------------

  /**
   * textMatches reports whether have matches want: case-insensitive
   * substring, or exact (after collapsing white space) when exact.
   */
  function textMatches(have, want, exact) {
    const h = norm(have);
    const w = norm(want);
    if (!w) return false;
    return exact ? h === w : h.toLowerCase().includes(w.toLowerCase());
  }

  /**
   * walk calls visit(el) for every element under root in the composed tree
   * (open shadow roots included), in document order, skipping hidden
   * subtrees; visit returning false skips the element's subtree.
   */
  function walk(root, visit, view) {
    const stack = [...kids(root)].reverse();
    while (stack.length) {
      const n = stack.pop();
      if (!isElement(n) || hidden(n)) continue;
      if (visit(n) === false) continue;
      const k = kids(n);
      for (let i = k.length - 1; i >= 0; i--) stack.push(k[i]);
    }
  }

  /**
   * labelOf is what the outline and role matching know a control by: its
   * accessible name, else (an interactive element without one) the text of
   * its row (rowTextOf).
   */
  function labelOf(el, view, role = roleOf(el)) {
    const n = nameOf(el, view, role);
    return n || (isInteractive(el, role) ? rowTextOf(el, view) : '');
  }

  /**
   * findByRole returns the elements under root with role whose name
   * matches name (any name when name is empty): the accessible name, or
   * for a control without one the text of its row, as the outline shows
   * it. Exact name matches win: when some candidates match exactly, the
   * others are dropped.
   */
  function findByRole(root, role, name, exact, view) {
    const found = [];
    walk(root, (el) => {
      const r = roleOf(el);
      if (r !== role) return;
      const n = labelOf(el, view, r);
      if (!name || textMatches(n, name, exact)) found.push({ el, name: n });
    }, view);
    return preferExact(found, name, exact);
  }

  /**
   * findByText returns the innermost elements under root whose visible
   * text matches text: an element is dropped when a child element also
   * matches. Without exact, exact matches win over substring matches.
   */
  function findByText(root, text, exact, view) {
    const found = [];
    const visit = (el) => {
      if (hidden(el) || (view && !view.visible(el, true))) return;
      const t = textOf(el, view);
      if (!textMatches(t, text, false)) return; // no descendant can match either
      const before = found.length;
      for (const k of kids(el)) if (isElement(k)) visit(k);
      if (found.length === before && textMatches(t, text, exact)) found.push({ el, name: norm(t) });
    };
    for (const k of kids(root)) if (isElement(k)) visit(k);
    return preferExact(found, text, exact);
  }

  // preferExact keeps the exact matches of want when there are some.
  function preferExact(found, want, exact) {
    if (exact || !want || found.length < 2) return found;
    const w = norm(want).toLowerCase();
    const exacts = found.filter((f) => norm(f.name).toLowerCase() === w);
    return exacts.length ? exacts : found;
  }

  /**
   * controlOf returns the form control a label (or an element inside one)
   * stands for, else el itself; fill, select and check act on it.
   */
  function controlOf(el) {
    for (let n = el; n && isElement(n); n = n.parentNode) {
      if (n.localName === 'label') {
        if (n.control) return n.control;
        const f = attr(n, 'for');
        if (f && n.ownerDocument?.getElementById) return n.ownerDocument.getElementById(f) || el;
        let inner = null;
        walk(n, (c) => {
          if (!inner && ['input', 'select', 'textarea'].includes(c.localName)) inner = c;
        });
        return inner || el;
      }
    }
    return el;
  }

  // --- selectors ----------------------------------------------------------

  const cssIdent = (s) => String(s).replace(/[^a-zA-Z0-9_-]/g, (c) => '\\' + c).replace(/^(\d)/, '\\3$1 ');

  /**
   * describe names an element for an agent in a few words, like a short
   * selector: tag, id, first classes, role and name
   * (`div#overlay.modal-backdrop`, `button "Close"`).
   */
  function describe(el, view) {
    if (!isElement(el)) return String(el?.nodeName || 'node').toLowerCase();
    let s = el.localName;
    if (el.id) s += '#' + cssIdent(el.id);
    const cls = norm(typeof el.className === 'string' ? el.className : attr(el, 'class')).split(' ').filter(Boolean);
    for (const c of cls.slice(0, 2)) s += '.' + cssIdent(c);
    const role = roleOf(el);
    const name = clip(nameOf(el, view, role), 40);
    if (name) s += ` "${name}"`;
    return s;
  }

  /**
   * selectorFor builds a CSS selector unique within el's root: the nearest
   * ancestor with an id, then tag:nth-of-type steps.
   */
  function selectorFor(el) {
    const steps = [];
    for (let n = el; n && isElement(n); n = n.parentNode) {
      if (n.id) {
        steps.unshift('#' + cssIdent(n.id));
        break;
      }
      const parent = n.parentNode;
      let step = n.localName;
      if (parent) {
        const same = Array.from(parent.childNodes || []).filter((c) => isElement(c) && c.localName === n.localName);
        if (same.length > 1) step += `:nth-of-type(${same.indexOf(n) + 1})`;
      }
      steps.unshift(step);
    }
    return steps.join(' > ');
  }

  // --- outline -------------------------------------------------------------

  // Tags whose content flows inline: their text and links join the line of
  // the block around them, as on the page.
  const INLINE_TAGS = new Set(['a', 'abbr', 'b', 'bdi', 'bdo', 'br', 'cite', 'code', 'data', 'dfn', 'em', 'font', 'i',
    'kbd', 'mark', 'q', 's', 'samp', 'small', 'span', 'strong', 'sub', 'sup', 'time', 'u', 'var', 'wbr']);

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
    const { refFor, view, interactiveOnly = false, maxText = 100, onFrame } = opts;
    const maxChars = opts.maxChars ?? Infinity;
    const lines = [];
    let chars = 0;
    let interactive = 0;
    let truncated = false;
    let clipped = 0;
    const push = (depth, s) => {
      const line = ' '.repeat(depth) + s;
      if (chars + line.length + 1 > maxChars) {
        truncated = true;
        return false;
      }
      lines.push(line);
      chars += line.length + 1;
      return true;
    };

    // run is the line being built from a block's inline content (text and
    // links): {depth, s, text (characters of text so far), cut (its text
    // was cut: no more text), wasCut (some text was cut)}.
    let run = null;
    const flush = () => {
      if (!run) return true;
      const r = run;
      run = null;
      const line = norm(r.s);
      if (r.wasCut) clipped++;
      return !line || line === norm(r.prefix) || push(r.depth, line);
    };
    const open = (depth, prefix = '') => {
      if (run && run.depth !== depth) flush();
      if (!run) run = { depth, s: prefix, prefix, text: 0, cut: false };
    };
    // gap puts a space before an element's piece when nothing separates it
    // from what the line holds (as textOf does between elements).
    const gap = () => {
      if (run.s && !/\s$/.test(run.s)) run.s += ' ';
    };
    const addText = (depth, t, element = false) => {
      t = String(t).replace(/\s+/g, ' ');
      if (t === '' || (t === ' ' && (!run || run.depth !== depth))) return;
      open(depth);
      if (run.cut) return;
      if (element && !t.startsWith(' ')) gap();
      if (run.text + t.length > maxText) {
        run.s += clip(t, Math.max(1, maxText - run.text));
        run.cut = run.wasCut = true;
        return;
      }
      run.s += t;
      run.text += t.length;
    };
    const addInline = (depth, s) => {
      open(depth);
      gap();
      run.s += s;
    };

    // Pending landmark lines of interactive_only mode, printed when a descendant is.
    const pending = [];
    const flushPending = () => {
      for (const p of pending) {
        if (!p.printed) {
          if (!push(p.depth, p.text)) return false;
          p.printed = true;
        }
      }
      return true;
    };
    const visitKids = (node, depth, block) => {
      if (block) flush();
      for (const k of kids(node)) visit(k, depth);
      if (block) flush();
    };
    // inLine is set while a heading's or a table row's content is read:
    // all of it goes on one line, whatever blocks it is wrapped in.
    let inLine = false;
    const oneLine = (fn) => {
      const was = inLine;
      inLine = true;
      try {
        fn();
      } finally {
        inLine = was;
      }
    };

    const visit = (node, depth) => {
      if (truncated) return;
      if (node.nodeType === TEXT) {
        if (!interactiveOnly) addText(depth, node.data ?? node.textContent ?? '');
        return;
      }
      if (!isElement(node) || hidden(node)) return;
      if (view && !view.visible(node, false)) return;
      const block = !inLine && !INLINE_TAGS.has(node.localName);
      if (NAMING_TAGS.has(node.localName) && !attr(node, 'role')) {
        for (const k of kids(node)) if (isElement(k) && (isInteractive(k) || hasInteractiveChild(k))) visit(k, depth);
        return;
      }
      const role = roleOf(node);
      if (role === 'presentation' && !isInteractive(node, '')) {
        visitKids(node, depth, block);
        return;
      }
      const act = role && isInteractive(node, role);
      const name = role ? nameOf(node, view, role) : '';
      if (!role || (!act && !name && !LANDMARKS.has(role) && !STRUCTURE.has(role))) {
        // A generic or unnamed element: its text when it holds nothing
        // with a role (one line of its own for a block), else its children
        // move up.
        if (!interactiveOnly && !hasRoledChild(node)) {
          if (block) flush();
          addText(depth, textOf(node, view), true);
          if (block) flush();
          return;
        }
        visitKids(node, depth, block);
        return;
      }
      if (interactiveOnly && !act && role !== 'iframe') {
        if (LANDMARKS.has(role)) {
          const p = { depth, text: lineFor(node, role, name, null, maxText), printed: false };
          pending.push(p);
          for (const k of kids(node)) visit(k, depth + 1);
          pending.pop();
        } else {
          for (const k of kids(node)) visit(k, depth);
        }
        return;
      }
      if (interactiveOnly && !flushPending()) return;
      let ref = null;
      if (act) {
        interactive++;
        ref = refFor ? refFor(node) : null;
      }
      if (role === 'link') {
        const inner = hasInteractiveChild(node);
        const md = linkFor(node, name, ref, maxText);
        if (!block && !inner && !interactiveOnly) {
          addInline(depth, md);
          return;
        }
        flush();
        if (!push(depth, md)) return;
        if (inner) visitKids(node, depth + 1, true);
        return;
      }
      if (role === 'heading' && !inLine) {
        flush();
        const hashes = '#'.repeat(headingLevel(node));
        const st = states(node, role).filter((s) => !/^h\d$/.test(s));
        if (!hasInteractiveChild(node)) {
          push(depth, `${hashes} ${clip(name, maxText)}${st.length ? ' ' + st.join(' ') : ''}`);
          return;
        }
        open(depth, hashes + ' '); // its text and links on the heading's line
        oneLine(() => {
          for (const k of kids(node)) visit(k, depth);
        });
        flush();
        return;
      }
      if (role === 'row' && !act && !inLine) {
        // A table row is one line, its cells between bars: | a | [b](e2) |
        flush();
        open(depth, '|');
        oneLine(() => {
          for (const k of kids(node)) {
            const cell = isElement(k) && !hidden(k) && (!view || view.visible(k, false)) && CELLS.has(roleOf(k));
            if (!cell) {
              visit(k, depth);
              continue;
            }
            open(depth, '|');
            gap();
            run.text = 0; // each cell's text has maxText
            run.cut = false;
            if (isInteractive(k)) visit(k, depth);
            else for (const c of kids(k)) visit(c, depth);
            if (run?.depth === depth) {
              gap();
              run.s += '|';
            }
          }
        });
        flush();
        return;
      }
      const leaf = (NAME_FROM_CONTENT.has(role) || role === 'img') && name && norm(textOf(node, view)) === name &&
        !hasInteractiveChild(node);
      const closed = leaf || CLOSED.has(role) || (role === 'listbox' && node.localName === 'select');
      if (inLine && role !== 'iframe') {
        addInline(depth, lineFor(node, role, name, ref, maxText));
        if (!closed) for (const k of kids(node)) visit(k, depth);
        return;
      }
      flush();
      // A control without a name is shown with the text of its row
      // (in a table row, the line already holds it).
      const row = act && !name ? rowTextOf(node, view) : '';
      if (!push(depth, lineFor(node, role, name, ref, maxText, row))) return;
      if (role === 'iframe' && onFrame) onFrame(node, lines.length - 1);
      if (!closed) visitKids(node, depth + 1, true);
    };
    for (const k of isElement(root) && root.localName !== 'html' && root.localName !== 'body' ? [root] : kids(root)) {
      visit(k, 0);
    }
    if (!truncated) flush();
    if (truncated) {
      // Count what was left out, for the note.
      interactive = 0;
      walk(root, (el) => {
        if (isInteractive(el) && (!view || view.visible(el, false))) interactive++;
      }, view);
    }
    return { lines, interactive, chars, truncated, clipped };
  }

  function hasRoledChild(el) {
    let found = false;
    walk(el, (c) => {
      if (found) return false;
      const r = roleOf(c);
      if ((r && r !== 'presentation') || isInteractive(c, r)) found = true;
    });
    return found;
  }

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

  /** estimateTokens is the SPEC's token estimate of a text: characters/4, rounded up. */
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
    roleOf, nameOf, textOf, states, valueOf, isInteractive, isDisabled, hidden, kids, walk, contains,
    findByRole, findByText, textMatches, rowTextOf, labelOf, controlOf, describe, selectorFor, outline, estimateTokens,
    keyInfo, globMatch, headingLevel, norm, clip, INTERACTIVE_ROLES, LANDMARKS, TOKEN_CHARS,
  });
})();
