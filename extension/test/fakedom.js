// A tiny DOM-like tree for the tests of dom/engine.js and actions/core.js: only the part of
// the DOM core.js reads (see its header), so the tests need no jsdom.
//
//   const doc = fakeDocument(h('form', {'aria-label': 'Login'},
//     h('label', {for: 'email'}, 'Email'), h('input', {id: 'email', type: 'email'})));
//
// h(tag, attrs, ...children): attrs are attributes, except the properties
// value, checked, selected, disabled, multiple, $shadow (children of an
// open shadow root), $closed (children of a closed one: only
// closedRoots.openOrClosedShadowRoot reaches it, as chrome.dom does) and
// $invisible (view.visible says false).

class FakeText {
  constructor(data) {
    this.nodeType = 3;
    this.data = data;
    this.parentNode = null;
    this.childNodes = [];
  }

  get textContent() {
    return this.data;
  }
}

const PROPS = ['value', 'checked', 'selected', 'disabled', 'multiple', 'indeterminate'];

class FakeElement {
  constructor(tag, attrs = {}, children = []) {
    this.nodeType = 1;
    this.localName = tag;
    this.attrs = new Map();
    this.parentNode = null;
    this.childNodes = [];
    this.shadowRoot = null;
    this.invisible = false;
    for (const [k, v] of Object.entries(attrs)) {
      if (k === '$shadow' || k === '$closed') {
        const root = new FakeShadowRoot(this);
        for (const c of v) adopt(root, c);
        if (k === '$shadow') this.shadowRoot = root;
        else closed.set(this, root);
      } else if (k === '$invisible') {
        this.invisible = v;
      } else if (PROPS.includes(k)) {
        this[k] = v;
      } else {
        this.attrs.set(k, String(v));
      }
    }
    if (this.disabled === undefined && this.attrs.has('disabled')) this.disabled = true;
    if (this.checked === undefined && this.attrs.has('checked')) this.checked = true;
    if (this.selected === undefined && this.attrs.has('selected')) this.selected = true;
    if (this.multiple === undefined && this.attrs.has('multiple')) this.multiple = true;
    if (this.value === undefined && this.attrs.has('value')) this.value = this.attrs.get('value');
    for (const c of children) adopt(this, c);
  }

  getAttribute(name) {
    return this.attrs.has(name) ? this.attrs.get(name) : null;
  }

  hasAttribute(name) {
    return this.attrs.has(name);
  }

  get id() {
    return this.getAttribute('id') || '';
  }

  get className() {
    return this.getAttribute('class') || '';
  }

  get textContent() {
    return this.childNodes.map((c) => c.textContent).join('');
  }

  get ownerDocument() {
    let n = this;
    while (n.parentNode || n.host) n = n.parentNode || n.host;
    return n.nodeType === 9 ? n : null;
  }

  get options() {
    const out = [];
    const visit = (n) => {
      for (const c of n.childNodes) {
        if (c.nodeType !== 1) continue;
        if (c.localName === 'option') out.push(c);
        else visit(c);
      }
    };
    visit(this);
    return out;
  }

  get labels() {
    if (!['input', 'select', 'textarea', 'button'].includes(this.localName)) return undefined;
    const out = [];
    let root = this;
    while (root.parentNode) root = root.parentNode;
    const visit = (n) => {
      for (const c of n.childNodes) {
        if (c.nodeType !== 1) continue;
        if (c.localName === 'label' && c.getAttribute('for') === this.id) out.push(c);
        visit(c);
      }
    };
    if (this.id && (root.nodeType === 9 || root.nodeType === 11)) visit(root); // labels for it in its own tree

    for (let p = this.parentNode; p; p = p.parentNode) {
      if (p.localName === 'label' && !p.hasAttribute('for')) out.push(p);
    }
    return out;
  }
}

const closed = new WeakMap(); // element → its closed FakeShadowRoot

/** closedRoots is chrome.dom's shadow root opener, for the closed roots of fake elements. */
export const closedRoots = { openOrClosedShadowRoot: (el) => el.shadowRoot || closed.get(el) || null };

class FakeShadowRoot {
  constructor(host) {
    this.nodeType = 11;
    this.childNodes = [];
    this.host = host;
    this.parentNode = null;
  }

  getElementById(id) {
    const visit = (n) => {
      for (const c of n.childNodes) {
        if (c.nodeType !== 1) continue;
        if (c.id === id) return c;
        const f = visit(c);
        if (f) return f;
      }
      return null;
    };
    return visit(this);
  }
}

class FakeDocument {
  constructor(children) {
    this.nodeType = 9;
    this.childNodes = [];
    this.parentNode = null;
    for (const c of children) adopt(this, c);
  }

  all() {
    const out = [];
    const visit = (n) => {
      for (const c of n.childNodes) {
        if (c.nodeType !== 1) continue;
        out.push(c);
        if (c.shadowRoot) visit(c.shadowRoot);
        visit(c);
      }
    };
    visit(this);
    return out;
  }

  getElementById(id) {
    return this.all().find((e) => e.id === id) || null;
  }
}

function adopt(parent, child) {
  const node = typeof child === 'string' ? new FakeText(child) : child;
  node.parentNode = parent; // a shadow root (nodeType 11) leads on to its host
  parent.childNodes.push(node);
}

/** h builds a fake element. */
export const h = (tag, attrs, ...children) => new FakeElement(tag, attrs ?? {}, children.flat());

/** fakeDocument wraps children in a document, so getElementById and labels work. */
export const fakeDocument = (...children) => new FakeDocument(children.flat());

/** view is the visibility interface core.js asks: an element shows unless $invisible (or an ancestor is). */
export const view = {
  visible(el) {
    for (let n = el; n; n = n.parentNode || n.host) if (n.invisible) return false;
    return true;
  },
};

/** find returns the first element of doc matching pred. */
export const find = (doc, pred) => doc.all().find(pred);

/** loadCore loads dom/engine.js and actions/core.js and returns globalThis.gasolineCore. */
export async function loadCore() {
  await import('../dom/engine.js');
  await import('../actions/core.js');
  return globalThis.gasolineCore;
}
