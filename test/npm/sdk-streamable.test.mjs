// The official TypeScript SDK's StreamableHTTPClientTransport against the
// daemon's /mcp directly, as a client configured with the URL and the
// bearer token: a session, tools/list, a full async cycle with progress
// notifications received during the wait, and the session's end.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Daemon, FakeExtension } from './harness.mjs';

let daemon;
let extension;
before(async () => {
  daemon = await Daemon.start();
  // The page answers after 8 s: the daemon reports progress every 5 s, so
  // the wait sees at least one report with 3 s to spare.
  extension = await new FakeExtension(daemon, (q) => ({
    correlation_id: q.correlation_id, status: 'complete', result: { value: 'Page A' },
  }), { delayMs: 8000 }).start();
});
after(async () => {
  await extension?.stop();
  await daemon?.stop();
});

test('TypeScript SDK over Streamable HTTP: session, tools, a cycle with progress, session end', async () => {
  const transport = new StreamableHTTPClientTransport(new URL(`${daemon.url}/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${daemon.token}` } },
  });
  const client = new Client({ name: 'gasoline-npm-streamable', version: '1.0.0' });
  await client.connect(transport);
  assert.match(transport.sessionId ?? '', /^[0-9a-f]{32}$/, 'initialize issued a session');
  assert.equal(client.getServerVersion()?.name, 'gasoline');

  const { tools } = await client.listTools();
  assert.ok(tools.some((t) => t.name === 'interact'), 'tools/list has interact');

  const queued = await client.callTool({ name: 'interact', arguments: { action: 'execute_js', script: 'document.title' } });
  assert.equal(queued.structuredContent.status, 'queued');
  const id = queued.structuredContent.correlation_id;

  const progress = [];
  const done = await client.callTool(
    { name: 'observe', arguments: { what: 'command_result', correlation_id: id, wait_ms: 30000 } },
    undefined,
    { onprogress: (p) => progress.push(p), timeout: 60000 },
  );
  assert.ok(progress.length >= 1, 'progress arrived during the wait');
  assert.match(progress[0].message, /execute_js (delivered|running)/);
  assert.equal(done.structuredContent.status, 'complete', JSON.stringify(done.structuredContent));
  assert.equal(done.structuredContent.result.value, 'Page A');

  await transport.terminateSession();
  assert.equal(transport.sessionId, undefined);
  await client.close();
});
