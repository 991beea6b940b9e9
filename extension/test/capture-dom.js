// Test support for the capture content scripts (not a test file): loads a
// classic content script under node, where it installs nothing and exposes
// its pure helpers, and a small fake DOM for the selector and name helpers.
import fs from 'node:fs';
import vm from 'node:vm';

/**
 * loadModules imports the MAIN-world capture's modules (extension/capture/
 * main/<file>, pure ones: they save the DOM built-ins they read when first
 * imported) with the fake DOM constructors as globals, and returns their
 * exports, merged. Call it before anything imports those modules.
 */
export async function loadModules(...files) {
  const saved = {};
  const globals = { Node: FakeNode, Element: FakeElement, Document: FakeDocument, DocumentFragment: undefined };
  for (const [k, v] of Object.entries(globals)) {
    saved[k] = Object.getOwnPropertyDescriptor(globalThis, k);
    globalThis[k] = v;
  }
  try {
    const kit = {};
    for (const f of files) Object.assign(kit, await import(`../capture/main/${f}`));
    return kit;
  } finally {
    for (const [k, d] of Object.entries(saved)) {
      if (d) Object.defineProperty(globalThis, k, d);
      else delete globalThis[k];
    }
  }
}

/**
 * loadScript runs extension/capture/<file> in this realm with the fake DOM
 * constructors as globals and returns the helpers it exposes under name.
 */
export function loadScript(file, name) {
  const src = fs.readFileSync(new URL(`../capture/${file}`, import.meta.url), 'utf8');
  const saved = {};
  const globals = { Node: FakeNode, Element: FakeElement, Document: FakeDocument, DocumentFragment: undefined };
  for (const [k, v] of Object.entries(globals)) {
    saved[k] = Object.getOwnPropertyDescriptor(globalThis, k);
    globalThis[k] = v;
  }
  try {
    vm.runInThisContext(src, { filename: file });
    const kit = globalThis[name];
    delete globalThis[name];
    return kit;
  } finally {
    for (const [k, d] of Object.entries(saved)) {
      if (d) Object.defineProperty(globalThis, k, d);
      else delete globalThis[k];
    }
  }
}

export class FakeNode {
  constructor(type) {
    this._type = type;
    this._parent = null;
    this._children = [];
  }

  get nodeType() {
    return this._type;
  }

  get parentElement() {
    return this._parent && this._parent._type === 1 ? this._parent : null;
  }

  get parentNode() {
    return this._parent;
  }

  get firstChild() {
    return this._children[0] ?? null;
  }

  get nextSibling() {
    if (!this._parent) return null;
    const sibs = this._parent._children;
    return sibs[sibs.indexOf(this) + 1] ?? null;
  }

  get firstElementChild() {
    return this._children.find((c) => c._type === 1) ?? null;
  }

  get textContent() {
    if (this._type === 3) return this.data;
    return this._children.map((c) => c.textContent).join('');
  }

  get ownerDocument() {
    let n = this;
    while (n._parent) n = n._parent;
    return n._type === 9 ? n : null;
  }

  getRootNode() {
    let n = this;
    while (n._parent) n = n._parent;
    return n;
  }

  append(...kids) {
    for (const k of kids) {
      const node = typeof k === 'string' ? new FakeText(k) : k;
      node._parent = this;
      this._children.push(node);
    }
    return this;
  }

  *descendants() {
    for (const c of this._children) {
      if (c._type === 1) {
        yield c;
        yield* c.descendants();
      }
    }
  }
}

export class FakeText extends FakeNode {
  constructor(data) {
    super(3);
    this.data = data;
    this.nodeName = '#text';
  }
}

export class FakeElement extends FakeNode {
  constructor(tag, attrs = {}) {
    super(1);
    this._tag = tag;
    this._attrs = { ...attrs };
    this.nodeName = tag.toUpperCase();
  }

  get localName() {
    return this._tag;
  }

  get id() {
    return this._attrs.id ?? '';
  }

  get classList() {
    const list = (this._attrs.class ?? '').split(/\s+/).filter(Boolean);
    return Object.assign([...list], { length: list.length });
  }

  get nextElementSibling() {
    if (!this._parent) return null;
    const sibs = this._parent._children.filter((c) => c._type === 1);
    return sibs[sibs.indexOf(this) + 1] ?? null;
  }

  get type() {
    return (this._attrs.type ?? (this._tag === 'input' ? 'text' : '')).toLowerCase();
  }

  get labels() {
    if (!['input', 'select', 'textarea'].includes(this._tag)) return null;
    const doc = this.ownerDocument;
    const out = [];
    for (let p = this._parent; p; p = p._parent) if (p._tag === 'label') out.push(p);
    if (doc && this.id) {
      for (const el of doc.descendants()) if (el._tag === 'label' && el._attrs.for === this.id && !out.includes(el)) out.push(el);
    }
    return out;
  }

  getAttribute(name) {
    return Object.hasOwn(this._attrs, name) ? this._attrs[name] : null;
  }

  hasAttribute(name) {
    return Object.hasOwn(this._attrs, name);
  }
}

export class FakeDocument extends FakeNode {
  constructor() {
    super(9);
    this.nodeName = '#document';
  }

  getElementById(id) {
    for (const el of this.descendants()) if (el.id === id) return el;
    return null;
  }

  // Only the forms selectorOf checks for uniqueness: "#id" and tag[attr="v"].
  querySelectorAll(sel) {
    let m = /^#(.+)$/.exec(sel);
    if (m) {
      const id = m[1].replace(/\\(.)/g, '$1');
      return [...this.descendants()].filter((el) => el.id === id);
    }
    m = /^([a-z0-9-]+)\[([a-z-]+)="((?:[^"\\]|\\.)*)"\]$/.exec(sel);
    if (m) {
      const v = m[3].replace(/\\(.)/g, '$1');
      return [...this.descendants()].filter((el) => el._tag === m[1] && el.getAttribute(m[2]) === v);
    }
    throw new Error(`fake querySelectorAll: unsupported selector ${sel}`);
  }
}

/** h builds an element: h('button', {id: 'x'}, 'text', h(...)). */
export function h(tag, attrs = {}, ...children) {
  return new FakeElement(tag, attrs).append(...children);
}

/** page builds a document whose <html> holds <body> with the children. */
export function page(...children) {
  const doc = new FakeDocument();
  const body = h('body', {}, ...children);
  doc.append(h('html', {}, h('head'), body));
  return { doc, body };
}
