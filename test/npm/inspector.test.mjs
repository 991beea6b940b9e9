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
