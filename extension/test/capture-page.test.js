// Unit tests of the MAIN-world capture's pure modules (capture/main/):
// serialisation, selectors, secret fields, the page buffer.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadModules, h, page, FakeText } from './capture-dom.js';

const before = new Set(Reflect.ownKeys(globalThis));
const kit = await loadModules('format.js', 'limits.js', 'text.js', 'secret.js', 'buffer.js', 'websocket.js');
const msg = (...args) => kit.formatArgs(args).message;

test('importing the modules installs nothing on the global object', () => {
  assert.equal(typeof kit.formatArgs, 'function');
  assert.deepEqual(Reflect.ownKeys(globalThis).filter((k) => !before.has(k)), []);
});

test('formatArgs renders each kind of value', async (t) => {
  const cases = [
    { name: 'strings joined with spaces', args: ['a', 'b c'], want: 'a b c' },
    { name: 'numbers and booleans', args: [1, -0, NaN, true, null, undefined], want: '1 -0 NaN true null undefined' },
    { name: 'bigint and symbol', args: [12n, Symbol('s')], want: '12n Symbol(s)' },
    { name: 'plain object as JSON', args: [{ a: 1, b: 'x' }], want: '{"a":1,"b":"x"}' },
    { name: 'array', args: [[1, [2, 3]]], want: '[1,[2,3]]' },
    { name: 'nested past the depth cap', args: [{ a: { b: { c: { d: 1 } } } }], want: '{"a":{"b":{"c":[Object]}}}' },
    { name: 'function and class', args: [function named() {}, class K {}], want: '[Function named] [class K]' },
    { name: 'error as Name: message', args: ['failed:', new TypeError('bad')], want: 'failed: TypeError: bad' },
    { name: 'map and set', args: [new Map([['k', 1]]), new Set([1, 2])], want: 'Map(1) {"k"=>1} Set(2) [1,2]' },
    { name: 'date', args: [new Date(0)], want: '1970-01-01T00:00:00.000Z' },
    { name: 'class instance named', args: [new (class Point { constructor() { this.x = 1; } })()], want: 'Point {"x":1}' },
    { name: '%s %d %i %f substitution', args: ['%s is %d (%i, %f)', 'x', 4.5, 4.5, '2.5'], want: 'x is 4.5 (4, 2.5)' },
    { name: '%c drops its CSS', args: ['%cred', 'color: red', 'tail'], want: 'red tail' },
    { name: '%% and %o', args: ['100%% %o', { a: 1 }], want: '100% {"a":1}' },
  ];
  for (const c of cases) {
    await t.test(c.name, () => assert.equal(msg(...c.args), c.want));
  }
});

test('formatArgs survives circular references, throwing getters and proxies', () => {
  const a = { name: 'a' };
  a.self = a;
  a.list = [a];
  assert.equal(msg(a), '{"name":"a","self":[Circular],"list":[[Circular]]}');
  const bad = { get boom() { throw new Error('no'); }, ok: 1 };
  assert.equal(msg(bad), '{"boom":"[Thrown: Error: no]","ok":1}');
  const proxy = new Proxy({}, { ownKeys() { throw new Error('trap'); } });
  assert.equal(msg('p', proxy), 'p [Unserialisable]');
  // The same object twice (not an ancestor) is not circular.
  const shared = { v: 1 };
  assert.equal(msg([shared, shared]), '[{"v":1},{"v":1}]');
});

test('formatArgs caps length, entries and nested strings', () => {
  const big = 'x'.repeat(20000);
  const m = msg(big);
  assert.equal(m.length, kit.LIMITS.message);
  assert.ok(m.endsWith('…'));
  const many = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`k${i}`, i]));
  assert.match(msg(many), /"k19":19,…10 more\}$/);
  const long = msg({ s: 'y'.repeat(1000) });
  assert.ok(long.length < 400, `nested string not capped: ${long.length}`);
  // A wide and deep object costs the budget, not the whole object.
  const wide = Array.from({ length: 20 }, () => Array.from({ length: 20 }, () => ({ s: 'z'.repeat(300) })));
  assert.ok(msg(wide).length <= kit.LIMITS.message);
});

test('formatArgs returns the first error argument stack', () => {
  const e = new Error('with stack');
  const f = kit.formatArgs(['x', e]);
  assert.equal(f.message, 'x Error: with stack');
  assert.match(f.stack, /^Error: with stack\n\s+at /);
  assert.equal(kit.formatArgs(['no error']).stack, undefined);
});

test('DOM nodes become short selectors in messages', () => {
  const { body } = page(h('div', { id: 'main', class: 'card wide extra' }, 'hello'));
  const div = body.firstElementChild;
  assert.equal(msg('el', div), 'el div#main.card.wide');
  assert.equal(msg(new FakeText('some text')), '#text "some text"');
});

test('isSecretField: passwords and card, password and one-time-code autocomplete', async (t) => {
  const cases = [
    [{ type: 'password' }, true],
    [{ type: 'PASSWORD' }, true],
    [{ type: 'text', autocomplete: 'cc-number' }, true],
    [{ autocomplete: 'billing cc-exp' }, true],
    [{ autocomplete: 'section-x shipping cc-csc' }, true],
    [{ autocomplete: 'new-password' }, true],
    [{ autocomplete: 'one-time-code' }, true],
    [{ type: 'text' }, false],
    [{ type: 'email', autocomplete: 'email' }, false],
    [{ autocomplete: 'occ-thing' }, false],
  ];
  for (const [attrs, want] of cases) {
    await t.test(JSON.stringify(attrs), () => assert.equal(kit.isSecretField(h('input', attrs)), want));
  }
  assert.equal(kit.isSecretField(null), false);
});

test('scrub removes secrets in raw, URL- and form-encoded form', () => {
  const secrets = ['p@ss word!', 'ab'];
  assert.equal(kit.scrub('user=me&password=p%40ss+word!', secrets), 'user=me&password=[redacted]');
  assert.equal(kit.scrub('{"pw":"p@ss word!"}', secrets), '{"pw":"[redacted]"}');
  assert.equal(kit.scrub('p%40ss%20word!', secrets), '[redacted]');
  assert.equal(kit.scrub(new URLSearchParams({ pw: 'p@ss word!' }).toString(), secrets), 'pw=[redacted]');
  assert.equal(kit.scrub(JSON.stringify({ pw: 'say "hi"' }), ['say "hi"']), '{"pw":"[redacted]"}');
  assert.equal(kit.scrub('about abc', secrets), 'about abc', 'secrets under 3 characters are not scrubbed');
  assert.equal(kit.scrub('nothing', []), 'nothing');
});

test('isTextMime', () => {
  for (const m of ['text/html; charset=utf-8', 'application/json', 'application/problem+json', 'application/xml', 'application/javascript', 'application/x-www-form-urlencoded']) {
    assert.equal(kit.isTextMime(m), true, m);
  }
  for (const m of ['image/png', 'application/octet-stream', 'text/event-stream', undefined, '']) {
    assert.equal(kit.isTextMime(m), false, String(m));
  }
});

test('Buffer drops the oldest records and counts them per kind', () => {
  const b = new kit.Buffer(3);
  b.push({ kind: 'log', n: 1 });
  b.push({ kind: 'network', n: 2 });
  b.push({ kind: 'log', n: 3 });
  b.push({ kind: 'log', n: 4 });
  b.push({ kind: 'log', n: 5 });
  const first = b.take(2);
  assert.deepEqual(first.events.map((e) => e.n), [3, 4]);
  assert.deepEqual(first.dropped, { log: 1, network: 1 });
  const second = b.take(2);
  assert.deepEqual(second.events.map((e) => e.n), [5]);
  assert.equal(second.dropped, undefined, 'drop counts are handed over once');
});

test('utf8Length counts UTF-8 bytes', () => {
  for (const s of ['', 'abc', 'é', '€uro', '😀 ok', 'a\u0800b']) {
    assert.equal(kit.utf8Length(s), Buffer.byteLength(s, 'utf8'), JSON.stringify(s));
  }
});
