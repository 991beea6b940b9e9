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
    const pred = (c) => attr(c, name) === value;
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
        steps.unshift('#' + cssIdent(id));
        break;
      }
      const parent = n.parentNode;
      let step = n.localName;
      if (isElement(parent) && step !== 'body' && step !== 'html') {
        const same = Array.from(parent.childNodes).filter((c) => isElement(c) && c.localName === n.localName);
        if (same.length > 1) step += `:nth-of-type(${same.indexOf(n) + 1})`;
      }
      steps.unshift(step);
      if (step === 'body' || step === 'html') break;
    }
    return steps.join(' > ').slice(0, MAX_SELECTOR);
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
