// Unit tests of actions/core.js (roles, names, targets, outline, keys) on a fake DOM.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { h, fakeDocument, view, find, loadCore } from './fakedom.js';

const core = await loadCore();

function loginPage() {
  return fakeDocument(h('html', {}, h('body', {},
    h('header', {}, h('nav', { 'aria-label': 'Main' }, h('a', { href: '/' }, 'Home'), h('a', { href: '/docs' }, 'Docs'))),
    h('main', {},
      h('h1', {}, 'Sign in'),
      h('p', {}, 'Welcome back. ', h('b', {}, 'Please'), ' sign in.'),
      h('form', { 'aria-label': 'Login' },
        h('label', { for: 'email' }, 'Email'),
        h('input', { id: 'email', type: 'email', required: '', value: 'ada@example.com' }),
        h('label', {}, 'Password ', h('input', { id: 'pw', type: 'password', value: 'secret' })),
        h('label', {}, h('input', { type: 'checkbox', checked: true }), ' Remember me'),
        h('select', { 'aria-label': 'Country' }, h('option', { value: 'fr' }, 'France'), h('option', { value: 'uk', selected: true }, 'United Kingdom')),
        h('button', { type: 'submit' }, h('span', {}, 'Sign in')),
        h('button', { type: 'button', disabled: true }, 'Sign in with Google'),
        h('input', { type: 'submit', value: 'Go' }),
        h('input', { type: 'hidden', value: 'csrf' })),
      h('div', { hidden: '' }, h('button', {}, 'Secret')),
      h('div', { $invisible: true }, h('button', {}, 'Invisible')),
      h('img', { alt: 'Logo' }),
      h('img', { alt: '' })),
    h('footer', {}, 'Made by ', h('a', { href: 'https://example.com' }, 'us')))));
}

test('roleOf gives implicit and explicit roles', () => {
  const cases = [
    [h('a', { href: '/' }), 'link'],
    [h('a', {}), ''],
    [h('button', {}), 'button'],
    [h('input', {}), 'textbox'],
    [h('input', { type: 'EMAIL' }), 'textbox'],
    [h('input', { type: 'checkbox' }), 'checkbox'],
    [h('input', { type: 'search' }), 'searchbox'],
    [h('input', { type: 'submit' }), 'button'],
    [h('input', { type: 'weird' }), 'textbox'],
    [h('select', {}), 'combobox'],
    [h('select', { multiple: true }), 'listbox'],
    [h('h3', {}), 'heading'],
    [h('div', { role: 'button tab' }), 'button'],
    [h('div', { role: 'none' }), 'presentation'],
    [h('div', { contenteditable: 'true' }), 'textbox'],
    [h('div', { contenteditable: 'false' }), ''],
    [h('img', { alt: '' }), 'presentation'],
    [h('section', {}), ''],
    [h('section', { 'aria-label': 'News' }), 'region'],
    [h('div', {}), ''],
  ];
  for (const [el, want] of cases) {
    assert.equal(core.roleOf(el), want, `${el.localName} ${JSON.stringify([...el.attrs])}`);
  }
  const doc = loginPage();
  assert.equal(core.roleOf(find(doc, (e) => e.localName === 'header')), 'banner');
  assert.equal(core.roleOf(find(doc, (e) => e.localName === 'footer')), 'contentinfo');
  assert.equal(core.roleOf(h('article', {}, h('header', {}))).length > 0, true);
  const inArticle = h('header', {});
  h('article', {}, inArticle);
  assert.equal(core.roleOf(inArticle), '', 'a header inside an article is not the banner');
});

test('nameOf follows labelledby, aria-label, labels, alt, content, title, placeholder', () => {
  const doc = fakeDocument(
    h('span', { id: 'l1' }, 'First'), h('span', { id: 'l2', 'aria-label': 'Second' }, 'ignored'),
    h('button', { id: 'b1', 'aria-labelledby': 'l1 l2', 'aria-label': 'not me' }, 'content'),
    h('button', { id: 'b2', 'aria-label': '  Close   dialog ' }, '×'),
    h('label', { for: 'i1' }, 'Email ', h('b', {}, 'address')), h('input', { id: 'i1' }),
    h('label', {}, 'Wrapped ', h('input', { id: 'i2' })),
    h('input', { id: 'i3', placeholder: 'Search…' }),
    h('input', { id: 'i4', title: 'Titled', placeholder: 'ph' }),
    h('input', { id: 'i5', type: 'submit' }),
    h('input', { id: 'i6', type: 'button', value: 'Press' }),
    h('img', { id: 'g1', alt: 'A cat' }),
    h('a', { id: 'a1', href: '/' }, h('img', { alt: 'Home' }), ' page'),
    h('div', { id: 'd1', title: 'tip' }, 'text'),
    h('fieldset', { id: 'f1' }, h('legend', {}, 'Shipping'), h('input', {})),
    h('button', { id: 'b3' }, 'Shown', h('span', { $invisible: true }, 'Hidden')),
    h('h2', { id: 'h2' }, '  Spaced\n  heading ')
  );
  const name = (id) => core.nameOf(doc.getElementById(id), view);
  assert.equal(name('b1'), 'First Second');
  assert.equal(name('b2'), 'Close dialog');
  assert.equal(name('i1'), 'Email address');
  assert.equal(name('i2'), 'Wrapped');
  assert.equal(name('i3'), 'Search…');
  assert.equal(name('i4'), 'Titled');
  assert.equal(name('i5'), 'Submit');
  assert.equal(name('i6'), 'Press');
  assert.equal(name('g1'), 'A cat');
  assert.equal(name('a1'), 'Home page');
  assert.equal(name('d1'), 'tip');
  assert.equal(name('f1'), 'Shipping');
  assert.equal(name('b3'), 'Shown');
  assert.equal(name('h2'), 'Spaced heading');
});

test('states and values', () => {
  const doc = loginPage();
  const email = doc.getElementById('email');
  assert.deepEqual(core.states(email, 'textbox'), ['required']);
  assert.equal(core.valueOf(email, 'textbox'), 'ada@example.com');
  assert.equal(core.valueOf(doc.getElementById('pw'), 'textbox'), '••••', 'a password is never shown');
  const box = find(doc, (e) => e.getAttribute('type') === 'checkbox');
  assert.deepEqual(core.states(box, 'checkbox'), ['checked']);
  const select = find(doc, (e) => e.localName === 'select');
  assert.equal(core.valueOf(select, 'combobox'), 'United Kingdom');
  const google = find(doc, (e) => e.textContent === 'Sign in with Google');
  assert.deepEqual(core.states(google, 'button'), ['disabled']);
  assert.equal(core.isDisabled(h('div', { 'aria-disabled': 'true' })), true);
  const inner = h('input', {});
  h('fieldset', { disabled: true }, inner);
  assert.equal(core.isDisabled(inner), true, 'inside a disabled fieldset');
  assert.deepEqual(core.states(h('h3', {}), 'heading'), ['h3']);
  assert.deepEqual(core.states(h('button', { 'aria-expanded': 'false', 'aria-pressed': 'true' }), 'button'), ['pressed', 'collapsed']);
});

test('findByRole matches names by substring, preferring exact ones', () => {
  const doc = loginPage();
  const names = (r) => r.map((f) => f.name);
  assert.deepEqual(names(core.findByRole(doc, 'button', 'sign in', false, view)), ['Sign in'],
    '"Sign in with Google" loses to the exact "Sign in"');
  assert.deepEqual(names(core.findByRole(doc, 'button', 'google', false, view)), ['Sign in with Google']);
  assert.deepEqual(names(core.findByRole(doc, 'button', 'Sign in with', true, view)), []);
  assert.deepEqual(names(core.findByRole(doc, 'link', '', false, view)), ['Home', 'Docs', 'us']);
  assert.deepEqual(names(core.findByRole(doc, 'textbox', 'Email', false, view)), ['Email']);
  assert.deepEqual(names(core.findByRole(doc, 'button', 'Secret', false, view)), [], 'hidden subtrees are skipped');
});

test('findByText returns the innermost matching elements', () => {
  const doc = loginPage();
  const tags = (r) => r.map((f) => `${f.el.localName}:${f.name}`);
  assert.deepEqual(tags(core.findByText(doc, 'Please', false, view)), ['b:Please']);
  assert.deepEqual(tags(core.findByText(doc, 'Welcome back', false, view)), ['p:Welcome back. Please sign in.']);
  assert.deepEqual(tags(core.findByText(doc, 'sign in', false, view)), ['h1:Sign in', 'span:Sign in'],
    'exact matches win over "Welcome back. Please sign in."');
  assert.deepEqual(tags(core.findByText(doc, 'Sign in', true, view)), ['h1:Sign in', 'span:Sign in']);
  assert.deepEqual(tags(core.findByText(doc, 'Go', true, view)), ['input:Go']);
  assert.deepEqual(tags(core.findByText(doc, 'Invisible', false, view)), []);
  assert.deepEqual(tags(core.findByText(doc, 'nothing like it', false, view)), []);
});

test('controlOf maps a label to its control', () => {
  const doc = loginPage();
  const [label] = core.findByText(doc, 'Email', true, view);
  assert.equal(core.controlOf(label.el), doc.getElementById('email'));
  const [pw] = core.findByText(doc, 'Password', false, view);
  assert.equal(core.controlOf(pw.el), doc.getElementById('pw'));
  const b = find(doc, (e) => e.localName === 'b');
  assert.equal(core.controlOf(b), b);
});

test('targets reach into open shadow roots', () => {
  const doc = fakeDocument(h('my-widget', { $shadow: [h('button', {}, 'Inside')] }));
  const [found] = core.findByRole(doc, 'button', 'Inside', true, view);
  assert.ok(found);
  assert.equal(core.contains(doc.childNodes[0], found.el), true);
  assert.equal(core.findByText(doc, 'Inside', true, view).length, 1);
});

test('outline shows roles, names, refs, states and values', () => {
  const doc = loginPage();
  let n = 0;
  const refs = new Map();
  const refFor = (el) => {
    if (!refs.has(el)) refs.set(el, 'e' + ++n);
    return refs.get(el);
  };
  const out = core.outline(doc, { refFor, view });
  assert.equal(out.truncated, false);
  assert.equal(out.lines.join('\n'), [
    "banner",
    " navigation 'Main'",
    "  [Home](e1) [Docs](e2)",
    "main",
    " # Sign in",
    " Welcome back. Please sign in.",
    " form 'Login'",
    "  e3 textbox 'Email' required =ada@example.com",
    "  e4 textbox 'Password' =••••",
    "  e5 checkbox 'Remember me' checked",
    "  e6 combobox 'Country' =United Kingdom {France|United Kingdom}",
    "  e7 button 'Sign in'",
    "  e8 button 'Sign in with Google' disabled",
    "  e9 button 'Go'",
    " img 'Logo'",
    "contentinfo",
    " Made by [us](e10)",
  ].join('\n'));
  assert.equal(out.interactive, 10);
  assert.equal(out.clipped, 0);
  assert.equal(out.chars, out.lines.join('\n').length + 1);
  assert.equal(refFor(doc.getElementById('email')), 'e3', 'refs are stable for the same element');
});

test('outline lists a native select\'s options, at most 8, then how many more', () => {
  const opts = Array.from({ length: 11 }, (_, i) => h('option', { value: 'v' + i }, i === 0 ? '' : 'Option ' + i));
  const doc = fakeDocument(h('html', {}, h('body', {}, h('select', { 'aria-label': 'Pick' }, ...opts))));
  let n = 0;
  const out = core.outline(doc, { refFor: () => 'e' + ++n, view });
  assert.equal(out.lines.join('\n'), "e1 combobox 'Pick' {v0|Option 1|Option 2|Option 3|Option 4|Option 5|Option 6|Option 7|+3}");
});

test('outline with interactive_only keeps landmarks only around controls', () => {
  const doc = loginPage();
  let n = 0;
  const out = core.outline(doc, { refFor: () => 'e' + ++n, view, interactiveOnly: true });
  assert.equal(out.lines.join('\n'), [
    "banner",
    " navigation 'Main'",
    "  [Home](e1)",
    "  [Docs](e2)",
    "main",
    " form 'Login'",
    "  e3 textbox 'Email' required =ada@example.com",
    "  e4 textbox 'Password' =••••",
    "  e5 checkbox 'Remember me' checked",
    "  e6 combobox 'Country' =United Kingdom {France|United Kingdom}",
    "  e7 button 'Sign in'",
    "  e8 button 'Sign in with Google' disabled",
    "  e9 button 'Go'",
    "contentinfo",
    " [us](e10)",
  ].join('\n'));
});

test('outline puts a block\'s text and links on one line, headings as #, list items a line each', () => {
  const doc = fakeDocument(h('body', {},
    h('h2', {}, h('a', { href: '/post' }, 'A post'), ' ', h('span', {}, '(3)')),
    h('h3', { 'aria-expanded': 'false' }, 'Folded'),
    h('p', {}, 'Read the ', h('a', { href: '/terms' }, 'terms'), ' and ', h('em', {}, 'the ', h('a', { href: '/faq', 'aria-current': 'page' }, 'FAQ')), '.'),
    h('ul', {},
      h('li', {}, h('a', { href: '/1' }, 'One'), ' ', h('span', {}, 'first')),
      h('li', {}, h('div', {}, 'Two'), h('div', {}, h('a', { href: '/2' }, 'second'))),
      h('li', {}, 'Three ', h('button', {}, 'Delete'))),
    h('div', { role: 'link', tabindex: '0' }, 'Block link'),
    h('a', { href: '/x', 'aria-label': 'Close' }, '×')));
  let n = 0;
  const out = core.outline(doc, { refFor: () => 'e' + ++n, view });
  assert.deepEqual(out.lines, [
    '## [A post](e1) (3)',
    '### Folded collapsed',
    'Read the [terms](e2) and the [FAQ](e3 current).',
    'list',
    ' [One](e4) first',
    ' Two',
    ' [second](e5)',
    ' Three',
    " e6 button 'Delete'",
    '[Block link](e7)',
    '[Close](e8)',
  ]);
  assert.equal(out.interactive, 8);
});

test('outline puts a table row on one line, its cells between bars', () => {
  const doc = fakeDocument(h('body', {},
    h('table', {}, h('caption', {}, 'Fruit'),
      h('thead', {}, h('tr', {}, h('th', {}, 'Name'), h('th', {}, 'Price'), h('th', {}, ''))),
      h('tbody', {},
        h('tr', {}, h('td', {}, h('a', { href: '/a' }, 'Apple')), h('td', {}, h('div', {}, '$1'), h('div', {}, 'each')), h('td', {}, h('button', {}, 'Buy'))),
        h('tr', {}, h('td', {}, 'Pear'), h('td', {}, '$2'), h('td', {}, h('input', { type: 'checkbox', 'aria-label': 'Pick', checked: true }))))),
    h('div', { role: 'grid' }, h('div', { role: 'row' }, h('div', { role: 'gridcell', tabindex: '0' }, 'Cell'), h('div', { role: 'gridcell' }, 'Plain')))));
  let n = 0;
  const out = core.outline(doc, { refFor: () => 'e' + ++n, view });
  assert.deepEqual(out.lines, [
    "table 'Fruit'",
    ' | Name | Price | |',
    " | [Apple](e1) | $1 each | e2 button 'Buy' |",
    " | Pear | $2 | e3 checkbox 'Pick' checked |",
    'grid',
    " | e4 gridcell 'Cell' | Plain |",
  ]);
});

test('outline cuts long text at maxText, keeps the links, and counts the cut lines', () => {
  const long = 'word '.repeat(40);
  const doc = fakeDocument(h('body', {},
    h('p', {}, long),
    h('p', {}, long, h('a', { href: '/more' }, 'more'), ' tail'),
    h('p', {}, 'short')));
  const out = core.outline(doc, { refFor: () => 'r', view, maxText: 20 });
  assert.deepEqual(out.lines, [
    'word word word word…',
    'word word word word… [more](r)',
    'short',
  ]);
  assert.equal(out.clipped, 2);
});

test('outline stops at its character budget and counts what it left out', () => {
  const items = [];
  for (let i = 0; i < 300; i++) items.push(h('li', {}, h('a', { href: `/item/${i}` }, `Item number ${i}`)));
  const doc = fakeDocument(h('body', {}, h('ul', {}, items)));
  let n = 0;
  const whole = core.outline(doc, { refFor: () => 'e' + ++n, view });
  assert.equal(whole.truncated, false);
  assert.equal(whole.lines.length, 301);
  n = 0;
  const cut = core.outline(doc, { refFor: () => 'e' + ++n, view, maxChars: 1000 });
  assert.equal(cut.truncated, true);
  assert.ok(cut.chars <= 1000, `chars ${cut.chars}`);
  assert.ok(cut.lines.length > 10 && cut.lines.length < 301, `lines ${cut.lines.length}`);
  assert.equal(cut.interactive, 300, 'the count covers the whole tree');
});

test('outline shows the href of a link without a name only', () => {
  const doc = fakeDocument(h('body', {}, h('a', { href: '/named' }, 'Named'), h('a', { href: '/img.png' }, h('img', { alt: '' }))));
  const out = core.outline(doc, { refFor: () => 'r', view });
  assert.deepEqual(out.lines, ['[Named](r) [](r /img.png)']);
});

test('outline of a scope element starts at the element', () => {
  const doc = loginPage();
  const form = find(doc, (e) => e.localName === 'form');
  const out = core.outline(form, { refFor: () => 'r', view, interactiveOnly: true });
  assert.equal(out.lines[0], "form 'Login'");
  assert.equal(out.lines.length, 8);
});

test('describe and cssOf name an element briefly and uniquely', () => {
  const doc = fakeDocument(h('body', {},
    h('div', { id: 'app' }, h('ul', {}, h('li', {}, 'a'), h('li', {}, 'b', h('button', { class: 'x y z' }, 'Buy'))))));
  const btn = find(doc, (e) => e.localName === 'button');
  assert.equal(core.describe(btn, view), 'button.x.y "Buy"');
  assert.equal(core.cssOf(btn), '#app > ul > li:nth-of-type(2) > button');
  assert.equal(core.describe(h('div', { id: '1bad id' })), 'div#\\31 bad\\ id');
});

test('keyInfo maps key names to key, code and keyCode', () => {
  assert.deepEqual(core.keyInfo('Enter'), { key: 'Enter', code: 'Enter', keyCode: 13, text: '\r' });
  assert.deepEqual(core.keyInfo('a'), { key: 'a', code: 'KeyA', keyCode: 65, text: 'a' });
  assert.deepEqual(core.keyInfo('A'), { key: 'A', code: 'KeyA', keyCode: 65, text: 'A' });
  assert.deepEqual(core.keyInfo('7'), { key: '7', code: 'Digit7', keyCode: 55, text: '7' });
  assert.deepEqual(core.keyInfo('!'), { key: '!', code: 'Digit1', keyCode: 49, text: '!' });
  assert.deepEqual(core.keyInfo('?'), { key: '?', code: 'Slash', keyCode: 191, text: '?' });
  assert.deepEqual(core.keyInfo('Esc'), { key: 'Escape', code: 'Escape', keyCode: 27, text: '' });
  assert.deepEqual(core.keyInfo('Space'), { key: ' ', code: 'Space', keyCode: 32, text: ' ' });
  assert.deepEqual(core.keyInfo('Control'), { key: 'Control', code: 'ControlLeft', keyCode: 17, text: '' });
  assert.deepEqual(core.keyInfo('é'), { key: 'é', code: '', keyCode: 0, text: 'é' });
  assert.equal(core.keyInfo('NoSuchKey'), null);
});

test('globMatch matches substrings and * globs', () => {
  assert.equal(core.globMatch('http://x/a/b?c', '/a/b'), true);
  assert.equal(core.globMatch('http://x/a/b?c', '/a/c'), false);
  assert.equal(core.globMatch('http://x/a/b?c', 'http://x/*/b*'), true);
  assert.equal(core.globMatch('http://x/a/b?c', '*/b'), false);
  assert.equal(core.globMatch('http://x.y/(a)', '*.y/(a)'), true);
});

test('estimateTokens is characters / 4', () => {
  assert.equal(core.estimateTokens(''), 0);
  assert.equal(core.estimateTokens('abcde'), 2);
});

test('nameOf follows the accname rules one by one', () => {
  const doc = fakeDocument(
    // 2B: labelledby wins over aria-label, follows hidden targets, is not followed twice.
    h('span', { id: 'hid', hidden: '' }, 'Hidden ', h('b', {}, 'label')),
    h('span', { id: 'chain', 'aria-labelledby': 'hid' }, 'Chained'),
    h('button', { id: 'lb-hidden', 'aria-labelledby': 'hid', 'aria-label': 'no' }, 'x'),
    h('button', { id: 'lb-chain', 'aria-labelledby': 'chain' }, 'x'),
    h('button', { id: 'lb-missing', 'aria-labelledby': 'nope', 'aria-label': 'Fallback' }, 'x'),
    // 2C: aria-label; blank aria-label is ignored.
    h('button', { id: 'al-blank', 'aria-label': '   ' }, 'Content'),
    // 2D: native labels: for, wrapping, both, button value, alt, legend, caption, figcaption.
    h('label', { for: 'both' }, 'First'), h('label', {}, 'Second ', h('input', { id: 'both' })),
    h('table', { id: 'tbl' }, h('caption', {}, 'Prices'), h('tr', {}, h('td', {}, '1'))),
    h('figure', { id: 'fig' }, h('img', { alt: 'x' }), h('figcaption', {}, 'A chart')),
    h('input', { id: 'img-in', type: 'image', alt: 'Send' }),
    h('input', { id: 'reset', type: 'reset' }),
    // 2E: embedded controls inside a label read as their value; the control itself does not.
    h('label', { for: 'qty' }, 'Buy ', h('input', { id: 'inner', value: '3' }), ' items'), h('input', { id: 'qty' }),
    h('label', {}, 'Flavour ', h('select', { id: 'sel' }, h('option', { selected: true }, 'Lemon'))),
    // 2F: content: hidden parts left out, aria-label of a child used, blocks spaced, inline joined.
    h('a', { id: 'lnk', href: '/' }, h('span', { 'aria-hidden': 'true' }, '★'), 'Go', h('b', {}, 'od'),
      h('div', {}, 'news'), h('span', { 'aria-label': 'today' }, '📅')),
    h('button', { id: 'icon' }, h('svg', {}, h('title', {}, 'Trash'))),
    // 2F does not apply to roles named by author only: a div's text is not its name.
    h('div', { id: 'plain' }, 'Some text'),
    // 2I: title last; placeholder after title for fields.
    h('button', { id: 'tip', title: 'Close' }),
    h('textarea', { id: 'ta', placeholder: 'Your message' }),
    h('div', { id: 'presentational', role: 'none', title: 't' }, 'x')
  );
  const name = (id) => core.nameOf(doc.getElementById(id), view);
  assert.equal(name('lb-hidden'), 'Hidden label', 'a hidden labelledby target is read, with its hidden content');
  assert.equal(name('lb-chain'), 'Chained', 'labelledby is not followed inside labelledby');
  assert.equal(name('lb-missing'), 'Fallback');
  assert.equal(name('al-blank'), 'Content');
  assert.equal(name('both'), 'First Second');
  assert.equal(name('tbl'), 'Prices');
  assert.equal(name('fig'), 'A chart');
  assert.equal(name('img-in'), 'Send');
  assert.equal(name('reset'), 'Reset');
  assert.equal(name('qty'), 'Buy 3 items');
  assert.equal(name('sel'), 'Flavour', 'a control in its own label is not part of its name');
  assert.equal(name('lnk'), 'Good news today');
  assert.equal(name('icon'), 'Trash');
  assert.equal(name('plain'), '');
  assert.equal(name('tip'), 'Close');
  assert.equal(name('ta'), 'Your message');
  assert.equal(name('presentational'), 't');
});

/** todoList is TodoMVC's markup: each checkbox sits beside a label not tied to it. */
function todoList(...titles) {
  return fakeDocument(h('html', {}, h('body', {}, h('section', { class: 'todoapp' },
    h('header', { class: 'header' }, h('h1', {}, 'todos'), h('input', { class: 'new-todo', placeholder: 'What needs to be done?' })),
    h('section', { class: 'main' }, h('ul', { class: 'todo-list' }, ...titles.map((t, i) =>
      h('li', { class: i === 1 ? 'completed' : '' }, h('div', { class: 'view' },
        h('input', { class: 'toggle', type: 'checkbox', checked: i === 1 }),
        h('label', {}, t),
        h('button', { class: 'destroy' }))))))))));
}

test('a control without a name is known by its row: TodoMVC', () => {
  const doc = todoList('Walk the dog', 'Buy milk', 'Walk the dog again');
  const boxes = doc.all().filter((e) => e.localName === 'input' && e.getAttribute('type') === 'checkbox');
  assert.equal(core.nameOf(boxes[0], view), '', 'the label is not tied to the checkbox: no accessible name');
  assert.equal(core.rowTextOf(boxes[0], view), 'Walk the dog');
  assert.equal(core.labelOf(boxes[1], view), 'Buy milk');
  const found = core.findByRole(doc, 'checkbox', 'Walk the dog', false, view);
  assert.deepEqual(found.map((f) => f.el), [boxes[0]], 'the exact row wins over "Walk the dog again"');
  assert.equal(core.findByRole(doc, 'button', 'Buy milk', false, view).length, 1, 'the row\'s delete button too');
  let n = 0;
  const { lines } = core.outline(doc, { refFor: () => 'e' + ++n, view });
  const text = lines.join('\n');
  assert.match(text, /e\d+ checkbox in 'Walk the dog'\n/);
  assert.match(text, /e\d+ checkbox in 'Buy milk' checked\n/);
  assert.match(text, /e\d+ button in 'Buy milk'\n/);
  assert.match(text, /e\d+ textbox 'What needs to be done\?'/, 'a named control keeps its name');
  assert.equal(text.match(/Walk the dog'/g).length, 2, 'the title shows once per control, not again as text');
});

test('a control without a name is known by its table row, or its card', () => {
  const doc = fakeDocument(h('body', {},
    h('table', {}, h('tbody', {},
      h('tr', {}, h('td', {}, h('input', { id: 'r1', type: 'checkbox' })), h('td', {}, 'Ada Lovelace'), h('td', {}, h('button', {}, 'Edit'))),
      h('tr', {}, h('td', {}, h('input', { id: 'r2', type: 'checkbox' })), h('td', {}, 'Alan Turing'), h('td', {}, h('button', {}, 'Edit'))))),
    h('div', { class: 'cards' },
      h('div', { class: 'card' }, h('h3', {}, 'Pro plan'), h('p', {}, '$10 a month'), h('button', { id: 'c1' }, h('i', { class: 'icon' }))),
      h('div', { class: 'card' }, h('h3', {}, 'Team plan'), h('button', { id: 'c2' }, h('i', { class: 'icon' })))),
    h('div', {}, ...Array.from({ length: 5 }, (_, i) => h('input', { id: 'crowd' + i, type: 'checkbox' })), 'Too many controls to tell which')));
  const row = (id) => core.rowTextOf(doc.getElementById(id), view);
  assert.equal(row('r1'), 'Ada Lovelace', 'the row\'s text, without its buttons');
  assert.equal(row('c1'), 'Pro plan $10 a month');
  assert.equal(row('c2'), 'Team plan');
  assert.equal(row('crowd0'), '', 'a container with many controls is not a row');
  assert.equal(core.findByRole(doc, 'checkbox', 'Turing', false, view)[0].el, doc.getElementById('r2'));
  let n = 0;
  const text = core.outline(doc, { refFor: () => 'e' + ++n, view }).lines.join('\n');
  assert.match(text, /\| e\d+ checkbox \| Ada Lovelace \| e\d+ button 'Edit' \|/, 'a table row\'s line already holds its text');
  assert.match(text, /e\d+ button in 'Pro plan \$10 a month'/);
});
