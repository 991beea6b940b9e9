// The TypeScript SDK's v2 line (@modelcontextprotocol/client) against the
// stateless 2026-07-28 revision, over stdio through gasoline-mcp and over
// Streamable HTTP, pinned to 2026-07-28 and in auto mode: discovery, the
// tool list, and browser commands as tasks of the Tasks extension, driven
// by the official Tasks client (@modelcontextprotocol/ext-tasks). The SDK's
// Client does not carry task traffic itself; ext-tasks asks its host for a
// raw request path (rawDispatch), which here is a plain POST /mcp with the
// revision's headers, or a second gasoline-mcp on stdio.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { after, before, describe, test } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { createTaskSessionFromClient } from '@modelcontextprotocol/ext-tasks/client';
import { Daemon, FakeExtension, cleanEnv } from './harness.mjs';

const VERSION = '2026-07-28';
const TASKS = { extensions: { 'io.modelcontextprotocol/tasks': {} } };

/** A raw request path over HTTP: one POST per request with the revision's headers. */
function httpDispatch(daemon) {
  let seq = 0;
  const fn = async (request, options) => {
    const p = request.params ?? {};
    const headers = {
      Authorization: `Bearer ${daemon.token}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream',
      'MCP-Protocol-Version': VERSION, 'Mcp-Method': request.method, ...(options?.context?.headers ?? {}),
    };
    const name = p.name ?? p.taskId ?? p.uri;
    if (name !== undefined) headers['Mcp-Name'] = name;
    const r = await fetch(`${daemon.url}/mcp`, {
      method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id: ++seq, ...request }), signal: options?.signal,
    });
    const m = await r.json();
    return m.error ? { kind: 'error', error: m.error } : { kind: 'result', result: m.result };
  };
  fn.close = () => {};
  return fn;
}

/** A raw request path over stdio: its own gasoline-mcp, one line per request. */
function stdioDispatch(daemon) {
  const child = spawn(daemon.bins.gasolineMcp, [], { env: cleanEnv(daemon.env), stdio: ['pipe', 'pipe', 'ignore'] });
  const waiting = new Map();
  createInterface({ input: child.stdout }).on('line', (line) => {
    const m = JSON.parse(line);
    waiting.get(m.id)?.(m);
    waiting.delete(m.id);
  });
  let seq = 0;
  const fn = (request) => new Promise((ok) => {
    const id = ++seq;
    waiting.set(id, (m) => ok(m.error ? { kind: 'error', error: m.error } : { kind: 'result', result: m.result }));
    child.stdin.write(JSON.stringify({ jsonrpc: '2.0', id, ...request }) + '\n');
  });
  fn.close = () => child.kill();
  return fn;
}

/**
 * A v2 Client connected to daemon over kind ('stdio' or 'http') with the
 * negotiation mode, and a Tasks session on it.
 */
async function connect(daemon, kind, mode, name) {
  const transport = kind === 'http'
    ? new StreamableHTTPClientTransport(new URL(`${daemon.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${daemon.token}` } } })
    : new StdioClientTransport({ command: daemon.bins.gasolineMcp, env: cleanEnv(daemon.env), stderr: 'pipe' });
  const clientInfo = { name, version: '1.0.0' };
  const client = new Client(clientInfo, { versionNegotiation: { mode }, capabilities: TASKS });
  await client.connect(transport);
  const rawDispatch = kind === 'http' ? httpDispatch(daemon) : stdioDispatch(daemon);
  const session = createTaskSessionFromClient(client, {
    endpointId: `gasoline-${kind}`, rawDispatch,
    v2RequestFraming: { protocolVersion: VERSION, clientInfo, clientCapabilities: TASKS },
  });
  return {
    client, session,
    async close() {
      await session.close().catch(() => {});
      rawDispatch.close();
      await client.close();
    },
  };
}

const modes = [['pinned', { pin: VERSION }], ['auto', 'auto']];

describe('SDK v2 with an extension that answers', () => {
  let daemon;
  let extension;
  before(async () => {
    daemon = await Daemon.start();
    extension = await new FakeExtension(daemon, (q) => ({
      correlation_id: q.correlation_id, status: 'complete', result: { value: 'Page A' },
    }), { delayMs: 200 }).start();
  });
  after(async () => {
    await extension?.stop();
    await daemon?.stop();
  });

  for (const kind of ['stdio', 'http']) {
    for (const [label, mode] of modes) {
      test(`${kind}, ${label}: discover, list, a browser command as a task to completion`, async (t) => {
        const c = await connect(daemon, kind, mode, `sdk2-${kind}-${label}`);
        t.after(() => c.close());
        assert.equal(c.client.getProtocolEra(), 'modern');
        assert.equal(c.client.getNegotiatedProtocolVersion(), VERSION);
        assert.equal(c.client.getServerVersion()?.name, 'gasoline');

        const { tools } = await c.client.listTools();
        for (const want of ['analyze', 'configure', 'interact', 'observe']) {
          assert.ok(tools.some((x) => x.name === want), `tools/list lacks ${want}`);
        }
        const health = await c.client.callTool({ name: 'configure', arguments: { action: 'health' } });
        assert.equal(health.structuredContent.status, 'ok');

        const execution = await c.session.callTool('interact', { action: 'execute_js', script: 'document.title' });
        const { outcome } = await execution.settle();
        assert.equal(outcome.status, 'completed', JSON.stringify(outcome));
        assert.equal(outcome.task.taskId, outcome.result.structuredContent.correlation_id, 'the task id is the correlation id');
        assert.match(outcome.task.taskId, /^exec_/);
        assert.equal(outcome.result.structuredContent.status, 'complete');
        assert.equal(outcome.result.structuredContent.result.value, 'Page A');
      });
    }
  }
});

describe('SDK v2 with no extension', () => {
  let daemon;
  before(async () => { daemon = await Daemon.start('--dispatch-timeout', '2s'); });
  after(async () => { await daemon?.stop(); });

  for (const kind of ['stdio', 'http']) {
    test(`${kind}: a cancelled task, one the browser never takes, draw mode waiting for the user`, async (t) => {
      const c = await connect(daemon, kind, { pin: VERSION }, `sdk2-idle-${kind}`);
      t.after(() => c.close());

      const queued = await c.session.callTool('interact', { action: 'execute_js', script: '1' });
      assert.equal(queued.kind, 'task');
      const view = await c.session.task(queued.handle.taskId).snapshot();
      assert.equal(view.status, 'working');
      assert.match(view.statusMessage, /queued: waiting for the browser extension/);
      assert.ok(view.retentionMs > 2000, `ttlMs ${view.retentionMs} covers the dispatch timeout`);
      assert.ok(view.suggestedPollIntervalMs > 0);
      await queued.cancel();
      const cancelled = await queued.settle();
      assert.equal(cancelled.outcome.status, 'cancelled', JSON.stringify(cancelled.outcome));

      const lost = await c.session.callTool('interact', { action: 'execute_js', script: '2' });
      const { outcome } = await lost.settle();
      assert.equal(outcome.status, 'completed', JSON.stringify(outcome));
      assert.equal(outcome.result.structuredContent.status, 'expired');
      assert.equal(outcome.result.structuredContent.reason, 'extension_no_response');
      assert.match(outcome.task?.statusMessage ?? '', /extension_no_response/, JSON.stringify(outcome.task));

      const draw = await c.session.callTool('analyze', { what: 'annotations', wait: true });
      const drawView = await c.session.task(draw.handle.taskId).snapshot();
      assert.match(drawView.taskId, /^ann_/);
      assert.equal(drawView.status, 'working');
      assert.match(drawView.statusMessage, /waiting for the user/);
      await draw.cancel();
      const drawEnd = await draw.settle();
      assert.equal(drawEnd.outcome.status, 'cancelled');
    });
  }
});
