// The DOM engine: the one place that says what an element is and how to
// find it again. Role and accessible name (the W3C accname 1.2 rules),
// target matching (role + name, text, CSS selector), and the best stable
// locator of an element with its resolution back to the element. The
// capture recorder (capture/record.js) describes user actions with it, the
// action runtime (actions/runtime.js) matches targets with it and the
// outline (actions/core.js) names elements with it, so what `observe
// actions` records is what `interact` matches.
//
// A classic script (content scripts cannot be ES modules): it defines
// globalThis.gasolineEngine and nothing else, in whatever world loads it
// (the ISOLATED world of every scripted document, once parsed, in
// dist/end-isolated.js before capture/record.js, which uses it; the
// worker imports it before core.js). It touches only
// this part of the DOM, which the node tests fake (extension/test/fakedom.js):
//   node:     nodeType, childNodes, parentNode, textContent / data
//   element:  localName, getAttribute, hasAttribute, id, shadowRoot, labels,
//             value, checked, selected, disabled, multiple, options,
//             ownerDocument.getElementById
//   root:     a shadow root's host and getElementById
// and, to resolve a CSS selector, querySelectorAll. Shadow DOM is read
// as the page shows it: open roots, and closed ones where the extension's
// isolated world can open them (chrome.dom.openOrClosedShadowRoot, on
// custom elements), with slots showing what is assigned to them. Whether an element
// shows is asked of the caller (view.visible(el)); pageView is the
// browser's answer.
(() => {
  if (globalThis.gasolineEngine) return;

  const ELEMENT = 1;
  const TEXT = 3;

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

  /** hidden reports an element that is never shown or read (without layout). */
  function hidden(el) {
    return SKIP_TAGS.has(el.localName) || el.hasAttribute('hidden') || attr(el, 'aria-hidden') === 'true' ||
      (el.localName === 'input' && inputType(el) === 'hidden');
  }

  /**
   * shadowOf is el's shadow root, null for none: an open one, or a closed
   * one on a custom element where this world may open it
   * (chrome.dom.openOrClosedShadowRoot, which content scripts have; the
   * page's MAIN world and the node tests have no chrome.dom). Built-in
   * elements are not asked: a closed root on one is rare, and the call
   * would cost on every element of a page.
   */
  function shadowOf(el) {
    if (!isElement(el)) return null;
    if (el.shadowRoot) return el.shadowRoot;
    if (!String(el.localName).includes('-')) return null;
    const dom = globalThis.chrome?.dom;
    if (!dom || typeof dom.openOrClosedShadowRoot !== 'function') return null;
    try {
      return dom.openOrClosedShadowRoot(el) || null;
    } catch {
      return null;
    }
  }

  /** kids returns a node's children in the composed tree: its shadow root's (shadowOf), else its own. */
  function kids(node) {
    const sr = shadowOf(node);
    if (sr) return Array.from(sr.childNodes);
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
      if (ids) {
        const parts = [];
        for (const id of ids.split(' ')) {
          const t = byId(el, id);
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
      const labels = el.labels && el.labels.length ? Array.from(el.labels) : hostLabels(el);
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
   * byId is the element with id in el's tree: its shadow root's (an IDREF
   * such as aria-labelledby does not cross a shadow boundary), else its
   * document's; null for none.
   */
  function byId(el, id) {
    const root = rootOf(el);
    if (typeof root.getElementById === 'function') return root.getElementById(id);
    const doc = el.ownerDocument;
    return doc && typeof doc.getElementById === 'function' ? doc.getElementById(id) : null;
  }

  /** hostOf is the shadow host of the tree el is in, null in a document. */
  const hostOf = (el) => rootOf(el).host || null;

  /**
   * hostLabels are the <label>s of the custom element whose shadow tree
   * holds the control el: a label around the host, or one whose for names
   * the host's id (a form-associated custom element, such as md-checkbox,
   * is labelled as a native control is, but its inner control's own
   * labels cannot reach past the shadow boundary). [] when el is not in a
   * custom element's shadow tree or the host has none.
   */
  function hostLabels(el) {
    const host = hostOf(el);
    if (!host || !String(host.localName).includes('-')) return [];
    const out = [];
    for (let p = host.parentNode; isElement(p); p = p.parentNode) {
      if (p.localName === 'label' && !p.hasAttribute('for')) out.push(p);
    }
    const id = attr(host, 'id');
    if (id) {
      const root = rootOf(host);
      if (typeof root.querySelectorAll === 'function') out.push(...root.querySelectorAll(attrSelector('for', id)));
      else walk(root, (c) => { if (c.localName === 'label' && attr(c, 'for') === id) out.push(c); });
    }
    return out;
  }

  /**
   * partOf reports whether hit, the element at a point over el, belongs to
   * el's own component rather than covering it: a shadow host el is inside
   * (the browser's hit test stops at the host over slotted text), or
   * anything inside the host of el's shadow tree (its parts, nested
   * components such as an icon, slotted content) when that host is a widget (at most
   * WIDGET_CONTROLS interactive elements: a checkbox's painted box over its
   * hidden input, a button's ripple), not a whole app in one root.
   */
  function partOf(el, hit) {
    if (!isElement(hit)) return false;
    for (let h = hostOf(el); h; h = hostOf(h)) if (h === hit) return true;
    const host = hostOf(el);
    return Boolean(host && contains(host, hit) && controlsIn(host, WIDGET_CONTROLS + 1) <= WIDGET_CONTROLS);
  }

  /** WIDGET_CONTROLS is how many interactive elements a shadow host may hold and still be one widget. */
  const WIDGET_CONTROLS = 3;

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

  /** contains reports whether node is a, or is inside a, in the composed tree. */
  function contains(a, node) {
    for (let n = node; n; n = n.parentNode || n.host) if (n === a) return true;
    return false;
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
        if (n.control) return innerControl(n.control);
        const f = attr(n, 'for');
        if (f) return innerControl(byId(n, f) || el);
        let inner = null;
        walk(n, (c) => {
          if (!inner && (['input', 'select', 'textarea'].includes(c.localName) || (String(c.localName).includes('-') && shadowOf(c)))) inner = c;
          if (inner) return false;
        });
        return innerControl(inner || el);
      }
    }
    return el;
  }

  // Roles of the control a labelled custom element stands for.
  const CONTROL_ROLES = new Set(['textbox', 'searchbox', 'checkbox', 'radio', 'switch', 'combobox', 'listbox', 'slider', 'spinbutton']);

  /**
   * innerControl is the control in a labelled custom element's shadow tree
   * (the first with a form control's role: md-checkbox's input), else el.
   */
  function innerControl(el) {
    if (!shadowOf(el)) return el;
    let inner = null;
    walk(el, (c) => {
      if (inner) return false;
      if (CONTROL_ROLES.has(roleOf(c))) inner = c;
    });
    return inner || el;
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


  // Tags whose content flows inline: their text and links join the line of
  // the block around them, as on the page.
  const INLINE_TAGS = new Set(['a', 'abbr', 'b', 'bdi', 'bdo', 'br', 'cite', 'code', 'data', 'dfn', 'em', 'font', 'i',
    'kbd', 'mark', 'q', 's', 'samp', 'small', 'span', 'strong', 'sub', 'sup', 'time', 'u', 'var', 'wbr']);


  // --- locators ------------------------------------------------------------

  /**
   * TEST_ATTRS are the test id attributes a locator uses, in this order:
   * data-testid (Playwright's getByTestId default), then data-test-id,
   * data-test, data-cy (Cypress) and data-qa.
   */
  const TEST_ATTRS = ['data-testid', 'data-test-id', 'data-test', 'data-cy', 'data-qa'];

  /** MAX_LOCATOR_NAME is the longest accessible name or label a locator relies on. */
  const MAX_LOCATOR_NAME = 100;

  /** MAX_SELECTOR is the longest CSS path cssOf builds (the capture keeps 400 characters). */
  const MAX_SELECTOR = 400;

  /** rootOf is the document or shadow root el is in. */
  function rootOf(el) {
    let n = el;
    while (n.parentNode) n = n.parentNode;
    return n;
  }

  /** docOf is the document el is in, through shadow hosts (the root interact searches). */
  function docOf(el) {
    let r = rootOf(el);
    while (r.host) r = rootOf(r.host);
    return r;
  }

  /**
   * countAttr returns how many elements under root (hidden ones included)
   * have the attribute name equal to value, stopping at 2; deep goes into
   * open shadow roots, as queryDeep does. The browser's querySelectorAll
   * answers when there is one (the fake DOM of the tests has none).
   */
  function countAttr(root, name, value, deep) {
    if (typeof root.querySelectorAll === 'function') {
      const sel = attrSelector(name, value);
      return Math.min(2, deep ? queryDeep(root, sel).length : root.querySelectorAll(sel).length);
    }
    return count(root, (c) => attr(c, name) === value, deep);
  }

  // count is countAttr's walk for any predicate.
  function count(root, pred, deep) {
    let n = 0;
    const stack = [...(root.childNodes || [])];
    while (stack.length && n < 2) {
      const c = stack.pop();
      if (!isElement(c)) continue;
      if (pred(c)) n++;
      stack.push(...(c.childNodes || []));
      const sr = deep && shadowOf(c);
      if (sr) stack.push(...sr.childNodes);
    }
    return n;
  }

  // stableId says whether an id looks written by a person rather than
  // generated (React's ":r1:", long digit runs, hashes).
  const stableId = (id) => id.length <= 64 && !/^[:\d]|:|\d{4,}|[0-9a-f]{8,}/i.test(id);

  /** attrSelector is [name="value"] with value escaped for a CSS string. */
  const attrSelector = (name, value) => `[${name}="${String(value).replace(/["\\]/g, (c) => '\\' + c)}"]`;

  /**
   * cssOf returns a short CSS selector that matches el alone in its
   * document (or shadow root): its person-written id, else a child path
   * (tag:nth-of-type) from the nearest ancestor with such an id, or from
   * body. A path over MAX_SELECTOR keeps its shortest tail that matches el
   * alone, else is "". "" for a non-element.
   */
  function cssOf(el) {
    if (!isElement(el)) return '';
    const root = rootOf(el);
    const steps = [];
    for (let n = el; isElement(n); n = n.parentNode) {
      const id = attr(n, 'id');
      if (id && stableId(id) && countAttr(root, 'id', id) === 1) {
        steps.unshift({ text: '#' + cssIdent(id) });
        break;
      }
      const parent = n.parentNode;
      const step = { text: n.localName, tag: n.localName, nth: 0 };
      if (isElement(parent) && step.tag !== 'body' && step.tag !== 'html') {
        const same = sameOf(n);
        if (same.length > 1) {
          step.nth = same.indexOf(n) + 1;
          step.text += `:nth-of-type(${step.nth})`;
        }
      }
      steps.unshift(step);
      if (step.tag === 'body' || step.tag === 'html') break;
    }
    const path = steps.map((s) => s.text).join(' > ');
    return path.length <= MAX_SELECTOR ? path : shortTail(root, steps);
  }

  // sameOf lists n and its siblings of n's tag, in order.
  const sameOf = (n) => Array.from(n.parentNode.childNodes).filter((c) => isElement(c) && c.localName === n.localName);

  // shortTail is the shortest tail of a path too long for MAX_SELECTOR
  // (its steps from the front dropped) that still matches the path's
  // element alone in root and fits; "" when none does. Cutting the text
  // instead would cut the element's own step and name another element.
  function shortTail(root, steps) {
    for (let k = steps.length - 1; k >= 1; k--) {
      const tail = steps.slice(k);
      const text = tail.map((s) => s.text).join(' > ');
      if (text.length > MAX_SELECTOR) break;
      if (count(root, (c) => tailMatches(c, tail), false) === 1) return text;
    }
    return '';
  }

  // tailMatches says whether el matches tail's child path (in its root).
  function tailMatches(el, tail) {
    let n = el;
    for (let i = tail.length - 1; i >= 0; i--, n = n.parentNode) {
      if (!isElement(n) || n.localName !== tail[i].tag) return false;
      if (tail[i].nth && sameOf(n).indexOf(n) + 1 !== tail[i].nth) return false;
    }
    return true;
  }

  /**
   * @typedef {{by: 'testid', attr: string, value: string} | {by: 'role', role: string, name: string} |
   *   {by: 'label', name: string} | {by: 'css', selector: string}} Locator
   */

  /**
   * locatorOf returns the most stable way to find el again (a Locator), the first of:
   *   {by: "testid", attr, value}  a test id attribute (TEST_ATTRS) unique in the document
   *   {by: "role", role, name}     its role and accessible name, when exactly el matches them
   *   {by: "label", name}          the text of its label, when that text finds el alone
   *   {by: "css", selector}        cssOf(el)
   * Every field is a string (the capture records it as such); targetOf
   * turns it into an interact target, and a test generator maps it to
   * getByTestId / getByRole / getByLabel / locator(css).
   */
  function locatorOf(el, view) {
    const doc = docOf(el);
    for (const a of TEST_ATTRS) {
      const v = attr(el, a);
      if (v && countAttr(doc, a, v, true) === 1) return { by: 'testid', attr: a, value: v };
    }
    const role = roleOf(el);
    if (role && role !== 'presentation') {
      const name = nameOf(el, view, role);
      if (name && name.length <= MAX_LOCATOR_NAME && only(findByRole(doc, role, name, true, view), el)) {
        return { by: 'role', role, name };
      }
    }
    const label = el.labels && el.labels[0];
    if (label) {
      const name = norm(textOf(label, view));
      if (name && name.length <= MAX_LOCATOR_NAME && only(findByText(doc, name, true, view), el, controlOf)) {
        return { by: 'label', name };
      }
    }
    return { by: 'css', selector: cssOf(el) };
  }

  // only reports whether found holds one match and it stands for el.
  const only = (found, el, to = (x) => x) => found.length === 1 && to(found[0].el) === el;

  /**
   * targetOf is the interact target that finds what a locator names: a CSS
   * selector string, {role, name, exact: true} or {text, exact: true} (a
   * label's text: fill and type act on its control, a click on a label
   * reaches its control). null for what is not a locator.
   */
  function targetOf(loc) {
    switch (loc?.by) {
      case 'testid': return TEST_ATTRS.includes(loc.attr) && loc.value ? attrSelector(loc.attr, loc.value) : null;
      case 'role': return loc.role && loc.name ? { role: loc.role, name: loc.name, exact: true } : null;
      case 'label': return loc.name ? { text: loc.name, exact: true } : null;
      case 'css': return loc.selector || null;
      default: return null;
    }
  }

  /** queryDeep runs querySelectorAll in root and every shadow root under it (shadowOf). */
  function queryDeep(root, selector) {
    const out = Array.from(root.querySelectorAll(selector));
    walk(root, (el) => {
      const sr = shadowOf(el);
      if (sr) out.push(...sr.querySelectorAll(selector));
    });
    return out;
  }

  /**
   * resolve returns the elements under root a target names: a CSS
   * selector (a string or {selector}; an invalid one throws the browser's
   * SyntaxError), {role, name?, exact?} or {text, exact?}. A locator goes
   * through targetOf first. Refs are the runtime's.
   */
  function resolve(target, root, view) {
    const t = typeof target === 'string' ? { selector: target } : target || {};
    if (t.selector) return queryDeep(root, t.selector);
    if (t.role) return findByRole(root, t.role, t.name || '', Boolean(t.exact), view).map((f) => f.el);
    if (t.text) return findByText(root, t.text, Boolean(t.exact), view).map((f) => f.el);
    return [];
  }

  const SECRET_AUTOCOMPLETE = /(^|\s)(cc-[a-z-]+|current-password|new-password|one-time-code)(\s|$)/i;

  /**
   * isSecret says whether a form control's value must never be recorded: a
   * password field, or a field whose autocomplete names a card field
   * ("cc-*"), a password or a one-time code. (capture/main/secret.js keeps
   * its own copy of this rule, built on the page's saved built-ins.)
   */
  function isSecret(el) {
    if (!isElement(el)) return false;
    if (String(attr(el, 'type') || '').toLowerCase() === 'password' || el.type === 'password') return true;
    const ac = attr(el, 'autocomplete');
    return Boolean(ac) && SECRET_AUTOCOMPLETE.test(ac);
  }

  /**
   * pageView is the browser's view: an element shows when it is rendered
   * (not display:none, not visibility:hidden). An element without a box of
   * its own (display:contents: a <slot>, a wrapper) shows when its parent
   * in the flat tree does: what it holds is rendered by its parent.
   */
  const pageView = {
    visible(el) {
      for (let n = el, i = 0; isElement(n) && i < 32; i++) {
        if (typeof n.checkVisibility !== 'function') return n.getClientRects().length > 0;
        if (n.checkVisibility({ visibilityProperty: true })) return true;
        const cs = getComputedStyle(n);
        if (cs.display !== 'contents' || cs.visibility === 'hidden') return false;
        // A host's own child that no slot takes is not rendered.
        if (!n.assignedSlot && isElement(n.parentNode) && shadowOf(n.parentNode)) return false;
        n = n.assignedSlot || parentOf(n);
      }
      return false;
    },
  };

  globalThis.gasolineEngine = Object.freeze({
    roleOf, nameOf, textOf, labelOf, rowTextOf, isInteractive, hidden, kids, walk, contains, inputType, shadowOf, partOf,
    textMatches, findByRole, findByText, controlOf, describe, cssOf, locatorOf, targetOf, resolve, queryDeep, isSecret,
    norm, clip, isElement, attr, pageView, TEST_ATTRS, INTERACTIVE_ROLES, NAME_FROM_CONTENT, INLINE_TAGS, SKIP_TAGS,
  });
})();
