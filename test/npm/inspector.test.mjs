// The official MCP Inspector, in CLI mode, drives gasoline-mcp over stdio:
// it lists the tools (with its schema portability checks) and calls one.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Daemon, inspector } from './harness.mjs';

let daemon;
before(async () => { daemon = await Daemon.start(); });
after(async () => { await daemon?.stop(); });

/** The Inspector's arguments that launch gasoline-mcp for this daemon. */
function server() {
  const args = [daemon.bins.gasolineMcp];
  for (const [k, v] of Object.entries(daemon.env)) args.push('-e', `${k}=${v}`);
  return args;
}

test('Inspector CLI lists the tools through gasoline-mcp, schemas portable', async () => {
  const r = await inspector([...server(), '--method', 'tools/list', '--strict']);
  assert.equal(r.code, 0, `exit ${r.code}\nstderr: ${r.stderr}`);
  const { tools } = JSON.parse(r.stdout);
  const names = tools.map((t) => t.name);
  for (const want of ['configure', 'interact', 'observe']) assert.ok(names.includes(want), `tools/list lacks ${want}: ${names}`);
  for (const t of tools) {
    assert.equal(t.inputSchema.type, 'object', `${t.name} input schema`);
    assert.ok(t.description.length > 0, `${t.name} has a description`);
  }
});

test('Inspector CLI calls configure health through gasoline-mcp', async () => {
  const r = await inspector([...server(), '--method', 'tools/call', '--tool-name', 'configure', '--tool-arg', 'action=health']);
  assert.equal(r.code, 0, `exit ${r.code}\nstderr: ${r.stderr}`);
  const result = JSON.parse(r.stdout);
  assert.notEqual(result.isError, true, r.stdout);
  assert.equal(result.structuredContent.status, 'ok');
  assert.equal(result.structuredContent.extension.connected, false);
  assert.deepEqual(JSON.parse(result.content[0].text), result.structuredContent,
    'the text content and structuredContent carry the same object');
});

test('Inspector CLI sees a tool error as a result, not a protocol failure', async () => {
  const r = await inspector([...server(), '--method', 'tools/call', '--tool-name', 'observe',
    '--tool-arg', 'what=command_result', '--tool-arg', 'correlation_id=exec_nonexistent']);
  const result = JSON.parse(r.stdout);
  assert.equal(result.isError, true, r.stdout);
  assert.match(result.content[0].text, /exec_nonexistent/);
});

// The 2026-07-28 revision: --protocol-era modern (discovery must offer it)
// and auto (discovery, then the era it finds), over stdio and over
// Streamable HTTP with the bearer token.
for (const era of ['modern', 'auto']) {
  for (const kind of ['stdio', 'http']) {
    test(`Inspector CLI --protocol-era ${era} over ${kind}: tools/list and a call`, async () => {
      const target = kind === 'stdio'
        ? server()
        : [`${daemon.url}/mcp`, '--transport', 'http', '--header', `Authorization: Bearer ${daemon.token}`];
      const list = await inspector([...target, '--protocol-era', era, '--method', 'tools/list', '--strict']);
      assert.equal(list.code, 0, `exit ${list.code}\nstderr: ${list.stderr}`);
      const { tools } = JSON.parse(list.stdout);
      assert.ok(tools.some((t) => t.name === 'interact'), list.stdout.slice(0, 200));

      const call = await inspector([...target, '--protocol-era', era, '--method', 'tools/call',
        '--tool-name', 'configure', '--tool-arg', 'action=health']);
      assert.equal(call.code, 0, `exit ${call.code}\nstderr: ${call.stderr}`);
      assert.equal(JSON.parse(call.stdout).structuredContent.status, 'ok');
    });
  }
}
