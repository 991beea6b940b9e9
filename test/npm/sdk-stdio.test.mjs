// The official TypeScript SDK client over stdio, through gasoline-mcp.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { Daemon, cleanEnv } from './harness.mjs';

let daemon;
before(async () => { daemon = await Daemon.start(); });
after(async () => { await daemon?.stop(); });

test('TypeScript SDK client over stdio: initialize, tools/list, tools/call, ping', async (t) => {
  const transport = new StdioClientTransport({
    command: daemon.bins.gasolineMcp,
    env: cleanEnv(daemon.env),
    stderr: 'pipe',
  });
  const client = new Client({ name: 'gasoline-npm-test', version: '1.0.0' });
  await client.connect(transport);
  t.after(() => client.close());

  assert.equal(client.getServerVersion()?.name, 'gasoline');
  assert.ok(client.getServerCapabilities()?.tools, 'the server offers tools');

  const { tools } = await client.listTools();
  const names = tools.map((x) => x.name);
  for (const want of ['configure', 'interact', 'observe']) assert.ok(names.includes(want), `tools/list lacks ${want}: ${names}`);

  const health = await client.callTool({ name: 'configure', arguments: { action: 'health' } });
  assert.equal(health.isError ?? false, false);
  assert.equal(health.structuredContent.status, 'ok');

  await client.ping();
});
