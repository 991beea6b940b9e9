// Tests of the argument contract (contract.js, generated from the Go
// argument structs) and of params.js, through which handlers read it: a
// handler that reads a parameter the daemon does not declare fails here,
// by a scan of the extension's code and at run time.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CONTRACT } from '../contract.js';
import { checkURL, paramsOf } from '../params.js';
import { CommandError } from '../runner.js';

const extension = join(dirname(fileURLToPath(import.meta.url)), '..');

// sources returns the extension's modules by path: not its tests, the
// generated contract, nor params.js, which reads params by name for all.
function sources(dir = extension) {
  const out = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) {
      if (e.name !== 'test' && e.name !== 'node_modules') out.push(...sources(p));
    } else if (e.name.endsWith('.js') && !['contract.js', 'params.js'].includes(relative(extension, p))) {
      out.push(p);
    }
  }
  return out;
}

// paramReads returns the names code reads off an object called params:
// params.x, params?.x, params['x'], and const { x, y: z } = params.
export function paramReads(code) {
  const src = code.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:\\])\/\/[^\n]*/g, '$1');
  const names = [];
  for (const m of src.matchAll(/(?<![\w$./'\"])params\s*\??\.\s*([A-Za-z_$][\w$]*)/g)) names.push(m[1]);
  for (const m of src.matchAll(/\bparams\s*\??\.?\[\s*(['"`])([^'"`]+)\1\s*\]/g)) names.push(m[2]);
  for (const m of src.matchAll(/\{([^{}=]*)\}\s*=\s*params\b/g)) {
    for (const part of m[1].split(',')) {
      const name = part.trim().replace(/^\.\.\./, '').split(/\s*:\s*/)[0].trim();
      if (name) names.push(name);
    }
  }
  return names;
}

test('the scan finds every form of read', () => {
  assert.deepEqual(paramReads(`
    const a = params.delay_ms; // params.in_a_comment
    if (params?.state) go(params['idle_ms']);
    const { prompt_text, value: v } = params;
    /* params.hidden */`), ['delay_ms', 'state', 'idle_ms', 'prompt_text', 'value']);
});

test('extension code reads only params the contract declares', () => {
  const declared = new Set(Object.values(CONTRACT).flatMap((p) => Object.keys(p)));
  const reads = [];
  for (const file of sources()) {
    for (const name of paramReads(readFileSync(file, 'utf8'))) reads.push({ file: relative(extension, file), name });
  }
  // The scan must see the handlers' reads, or it would pass by seeing none.
  assert.ok(reads.length > 40, `found only ${reads.length} param reads in the extension: the scan is broken`);
  const undeclared = reads.filter((r) => !declared.has(r.name)).map((r) => `${r.file}: params.${r.name}`);
  assert.deepEqual(undeclared, [], 'these reads name params no action declares: declare them in the Go argument structs (internal/tools, then make generate) or stop reading them');
});

test('paramsOf gives a handler only its declared params, checked', () => {
  const p = paramsOf('click', { target: { ref: 'e1' }, ref: 'e1', button: 'right', click_count: 2, tab_id: 3, delay_ms: 50 });
  assert.deepEqual(p.target, { ref: 'e1' });
  assert.equal(p.click_count, 2);
  assert.equal(p.frame, undefined, 'a declared param not sent reads as undefined');
  assert.deepEqual(Object.keys(p).sort(), ['button', 'click_count', 'tab_id', 'target'], 'an undeclared param sent (a flat target form) is dropped');
  assert.throws(() => p.ref, /the click handler reads params\.ref/, 'the daemon sends the canonical target only');
  assert.throws(() => p.delay_ms, /the click handler reads params\.delay_ms, which the contract does not declare/);
  assert.throws(() => paramsOf('get_text', {}).limit, /get_text handler reads params\.limit/, 'declared for another action is not enough');
  assert.equal(JSON.stringify(paramsOf('get_text', { max_chars: 9 })), '{"max_chars":9}');
  assert.equal(paramsOf('new_tab', { url: 'about:blank', tab_id: 4 }).url, 'about:blank');
});

test('paramsOf refuses params that break the contract', () => {
  const cases = [
    ['click', { ref: 'e1', button: 'back' }, /button must be one of left, middle, right, got "back"/],
    ['click', { ref: 'e1', click_count: 4 }, /click_count must be at most 3/],
    ['query', { selector: 'a', limit: 0 }, /limit must be at least 1/],
    ['dom', { max_tokens: 50 }, /max_tokens must be at least 100/],
    ['get_text', { max_chars: 40001 }, /max_chars must be at most 40000/],
    ['screenshot', { max_dim: 10 }, /max_dim must be at least 64/],
    ['click', { ref: 'e1', settle_ms: 30001 }, /settle_ms must be at most 30000/],
    ['switch_tab', {}, /tab_id is missing/],
    ['execute_js', { script: 7 }, /script must be a string/],
    ['select', { ref: 'e1', values: 'fr' }, /values must be an array/],
  ];
  for (const [action, params, want] of cases) {
    assert.throws(() => paramsOf(action, params), (err) => err instanceof CommandError && want.test(err.message), `${action} ${JSON.stringify(params)}`);
  }
  assert.throws(() => paramsOf('fly', {}), /unknown action "fly"/);
});

test('every action the daemon offers the extension is in the contract', () => {
  for (const action of ['execute_js', 'navigate', 'click', 'get_text', 'dialog', 'upload', 'dom', 'screenshot', 'draw_mode_show']) {
    assert.ok(Object.hasOwn(CONTRACT, action), action);
  }
  assert.ok(Object.isFrozen(CONTRACT.click) && Object.isFrozen(CONTRACT.click.button));
});

// The same cases internal/tools's TestURLRuleCases runs through checkURL:
// the extension opens exactly what the daemon lets through.
test('checkURL allows what the daemon allows, and nothing more', () => {
  const cases = JSON.parse(readFileSync(join(extension, '..', 'internal', 'tools', 'testdata', 'urls.json'), 'utf8'));
  assert.ok(cases.length > 10);
  for (const { url, allowed } of cases) {
    let got = true;
    try {
      checkURL(url, 'navigate');
    } catch (err) {
      assert.ok(err instanceof CommandError, `${url}: ${err}`);
      got = false;
    }
    assert.equal(got, allowed, `checkURL(${JSON.stringify(url)})`);
  }
});

test('runQuery runs every action of its table through the contract', async () => {
  const { ACTIONS, runQuery } = await import('../commands.js');
  assert.deepEqual(Object.keys(ACTIONS).filter((a) => !Object.hasOwn(CONTRACT, a)), [], 'actions the contract lacks');
  assert.deepEqual(Object.keys(CONTRACT).filter((a) => !Object.hasOwn(ACTIONS, a)), [], 'contract entries no handler runs');
  const updated = [];
  globalThis.chrome = {
    tabs: {
      get: async (id) => ({ id, url: `http://x/${id}` }),
      update: async (id, props) => {
        updated.push([id, props]);
        return { id, url: `http://x/${id}` };
      },
    },
  };
  const got = await runQuery({ type: 'browser_action', action: 'switch_tab', params: { tab_id: 7, force: true } }, undefined);
  assert.deepEqual(got, { tab_id: 7, url: 'http://x/7' });
  assert.deepEqual(updated, [[7, { active: true }]]);
  assert.throws(() => runQuery({ type: 'browser_action', action: 'switch_tab', params: {} }, undefined), /switch_tab: param tab_id is missing/);
  assert.throws(() => runQuery({ type: 'browser_action', params: { action: 'switch_tab', tab_id: 7 } }, undefined), /unknown action undefined/,
    'the action is the query\'s, never a param');
});
