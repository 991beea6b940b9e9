// What the recorder (capture/record.js) knows of an element before the DOM
// engine arrives. The engine (dom/engine.js, 31 KB) is declared at
// document_end, so that no page pays for it before its own first line; the
// recorder runs from document_start, and a trusted action it sees before
// the engine is there (a click while the page is still parsing) must still
// be recorded at once, complete, with a locator that finds its element:
// the page may be left a moment later (a link, a submit), so nothing waits
// for the engine.
//
// A classic script in the ISOLATED world of every document, before
// capture/record.js (manifest order; extension/dist/ bundles them). It
// defines globalThis.gasolineEarlyEngine, with the engine's names for what
// the recorder asks: norm, clip, isSecret, pageView and cssOf are the
// engine's rules (extension/test/early.test.js holds them equal); locatorOf
// gives the engine's test id locator when there is one, else the CSS path
// (a role, name or label locator needs the engine's accessible names);
// roleOf and nameOf say "" (the record then has no role and no name).
(() => {
  if (globalThis.gasolineEarlyEngine) return;

  const ELEMENT = 1;
  const TEST_ATTRS = ['data-testid', 'data-test-id', 'data-test', 'data-cy', 'data-qa'];
  const MAX_SELECTOR = 400;
  const SECRET_AUTOCOMPLETE = /(^|\s)(cc-[a-z-]+|current-password|new-password|one-time-code)(\s|$)/i;

  const norm = (s) => String(s ?? '').replace(/\s+/g, ' ').trim();
  const clip = (s, n) => (s.length > n ? s.slice(0, n - 1) + '…' : s);
  const isElement = (n) => n && n.nodeType === ELEMENT;
  const attr = (el, name) => (el.getAttribute ? el.getAttribute(name) : null);
  const cssIdent = (s) => String(s).replace(/[^a-zA-Z0-9_-]/g, (c) => '\\' + c).replace(/^(\d)/, '\\3$1 ');
  const attrSelector = (name, value) => `[${name}="${String(value).replace(/["\\]/g, (c) => '\\' + c)}"]`;
  const stableId = (id) => id.length <= 64 && !/^[:\d]|:|\d{4,}|[0-9a-f]{8,}/i.test(id);

  function rootOf(el) {
    let n = el;
    while (n.parentNode) n = n.parentNode;
    return n;
  }

  function docOf(el) {
    let r = rootOf(el);
    while (r.host) r = rootOf(r.host);
    return r;
  }

  // countAttr counts (up to 2) the elements under root whose attribute
  // name is value, in open shadow roots too when deep: the browser's
  // querySelectorAll when there is one, else a walk (the tests' fake DOM).
  function countAttr(root, name, value, deep) {
    if (typeof root.querySelectorAll === 'function') {
      const sel = attrSelector(name, value);
      let n = root.querySelectorAll(sel).length;
      if (!deep) return Math.min(2, n);
      const stack = [...root.querySelectorAll('*')];
      while (stack.length && n < 2) {
        const c = stack.pop();
        if (c.shadowRoot) {
          n += c.shadowRoot.querySelectorAll(sel).length;
          stack.push(...c.shadowRoot.querySelectorAll('*'));
        }
      }
      return Math.min(2, n);
    }
    return count(root, (c) => attr(c, name) === value, deep);
  }

  // count counts (up to 2) the elements under root that pred accepts, by
  // a walk, in open shadow roots too when deep.
  function count(root, pred, deep) {
    let n = 0;
    const stack = [...(root.childNodes || [])];
    while (stack.length && n < 2) {
      const c = stack.pop();
      if (!isElement(c)) continue;
      if (pred(c)) n++;
      stack.push(...(c.childNodes || []));
      if (deep && c.shadowRoot) stack.push(...c.shadowRoot.childNodes);
    }
    return n;
  }

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

  function locatorOf(el) {
    const doc = docOf(el);
    for (const a of TEST_ATTRS) {
      const v = attr(el, a);
      if (v && countAttr(doc, a, v, true) === 1) return { by: 'testid', attr: a, value: v };
    }
    return { by: 'css', selector: cssOf(el) };
  }

  function isSecret(el) {
    if (!isElement(el)) return false;
    if (String(attr(el, 'type') || '').toLowerCase() === 'password' || el.type === 'password') return true;
    const ac = attr(el, 'autocomplete');
    return Boolean(ac) && SECRET_AUTOCOMPLETE.test(ac);
  }

  const pageView = {
    visible(el) {
      if (typeof el.checkVisibility === 'function') return el.checkVisibility({ visibilityProperty: true });
      return el.getClientRects().length > 0;
    },
  };

  globalThis.gasolineEarlyEngine = Object.freeze({
    norm, clip, isSecret, pageView, cssOf, locatorOf, roleOf: () => '', nameOf: () => '',
  });
})();
