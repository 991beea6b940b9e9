// The TypeScript SDK 1.x with 2025-11-25's task-augmented tool calls
// (client.experimental.tasks.callToolStream): a browser command as a task
// whose id is its correlation id, polled with tasks/get and read with
// tasks/result, over stdio and Streamable HTTP, then listed by tasks/list
// for its client only; and a cancelled one.
// Without task augmentation the same client keeps today's path (the other
// SDK tests).

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, CancelTaskResultSchema, GetTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { Daemon, FakeExtension, cleanEnv } from './harness.mjs';

async function connect(daemon, kind) {
  const transport = kind === 'http'
    ? new StreamableHTTPClientTransport(new URL(`${daemon.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${daemon.token}` } } })
    : new StdioClientTransport({ command: daemon.bins.gasolineMcp, env: cleanEnv(daemon.env), stderr: 'pipe' });
  const client = new Client({ name: `sdk1-tasks-${kind}`, version: '1.0.0' });
  await client.connect(transport);
  return client;
}

describe('SDK 1.x task-augmented calls', () => {
  let daemon;
  let extension;
  before(async () => {
    daemon = await Daemon.start();
    extension = await new FakeExtension(daemon, (q) => ({
      correlation_id: q.correlation_id, status: 'complete', result: { value: 'Page A' },
    }), { delayMs: 300 }).start();
  });
  after(async () => {
    await extension?.stop();
    await daemon?.stop();
  });

  for (const kind of ['stdio', 'http']) {
    test(`${kind}: interact as a task to completion`, async (t) => {
      const client = await connect(daemon, kind);
      t.after(() => client.close());
      assert.ok(client.getServerCapabilities()?.tasks?.requests?.tools?.call, 'initialize declares task-augmented tools/call');
      const { tools } = await client.listTools();
      assert.equal(tools.find((x) => x.name === 'interact')?.execution?.taskSupport, 'optional');

      const events = [];
      for await (const m of client.experimental.tasks.callToolStream(
        { name: 'interact', arguments: { action: 'execute_js', script: 'document.title' } },
        CallToolResultSchema, { task: {} })) {
        events.push(m);
      }
      const created = events.find((m) => m.type === 'taskCreated');
      assert.match(created?.task?.taskId ?? '', /^exec_/, JSON.stringify(events));
      assert.equal(created.task.status, 'working');
      assert.ok(created.task.ttl > 0 && created.task.pollInterval > 0);
      const result = events.at(-1);
      assert.equal(result.type, 'result', JSON.stringify(events));
      assert.equal(result.result.structuredContent.correlation_id, created.task.taskId);
      assert.equal(result.result.structuredContent.status, 'complete');
      assert.equal(result.result.structuredContent.result.value, 'Page A');

      // tasks/list (declared in initialize) lists this client's task; a
      // second client on the same daemon sees none of it.
      assert.ok(client.getServerCapabilities()?.tasks?.list, 'initialize declares tasks/list');
      const mine = await client.experimental.tasks.listTasks();
      assert.ok(mine.tasks.some((x) => x.taskId === created.task.taskId && x.status === 'completed'), JSON.stringify(mine));
      const other = await connect(daemon, kind);
      t.after(() => other.close());
      const theirs = await other.experimental.tasks.listTasks();
      assert.ok(!theirs.tasks.some((x) => x.taskId === created.task.taskId), `another client's tasks/list: ${JSON.stringify(theirs)}`);
    });
  }
});

describe('SDK 1.x task cancelled', () => {
  let daemon;
  before(async () => { daemon = await Daemon.start(); });
  after(async () => { await daemon?.stop(); });

  test('http: a queued command cancelled through tasks/cancel', async (t) => {
    const client = await connect(daemon, 'http');
    t.after(() => client.close());
    const stream = client.experimental.tasks.callToolStream(
      { name: 'interact', arguments: { action: 'execute_js', script: '1' } }, CallToolResultSchema, { task: {} });
    const first = (await stream.next()).value;
    assert.equal(first.type, 'taskCreated');
    const { taskId } = first.task;
    const got = await client.request({ method: 'tasks/get', params: { taskId } }, GetTaskResultSchema);
    assert.equal(got.status, 'working');
    assert.match(got.statusMessage, /queued: waiting for the browser extension/);
    const cancelled = await client.request({ method: 'tasks/cancel', params: { taskId } }, CancelTaskResultSchema);
    assert.equal(cancelled.status, 'cancelled');
    await assert.rejects(client.request({ method: 'tasks/cancel', params: { taskId } }, CancelTaskResultSchema), /already/);
    await stream.return();
  });
});
