import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createTaskSessionFromClient, resultFromTaskOutcome } from '@modelcontextprotocol/ext-tasks/client';
import { Daemon, FakeExtension } from './harness.mjs';
const daemon = await Daemon.start();
const ext = await new FakeExtension(daemon, (q) => ({ correlation_id: q.correlation_id, status: 'complete', result: { value: 'Page A' } }), { delayMs: 300 }).start();
let seq = 0;
const caps = { extensions: { 'io.modelcontextprotocol/tasks': {} } };
try {
  const transport = new StreamableHTTPClientTransport(new URL(`${daemon.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${daemon.token}` } } });
  const client = new Client({ name: 'probe', version: '1' }, { versionNegotiation: { mode: { pin: '2026-07-28' } }, capabilities: caps });
  await client.connect(transport);
  const rawDispatch = async (request, options) => {
    const p = request.params ?? {};
    const headers = { Authorization: `Bearer ${daemon.token}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream',
      'MCP-Protocol-Version': '2026-07-28', 'Mcp-Method': request.method, ...(options?.context?.headers ?? {}) };
    const name = p.name ?? p.taskId ?? p.uri; if (name) headers['Mcp-Name'] = name;
    console.log('->', JSON.stringify(request).slice(0, 400));
    const r = await fetch(`${daemon.url}/mcp`, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: "2.0", id: ++seq, ...request }), signal: options?.signal });
    const m = await r.json();
    console.log('<-', r.status, JSON.stringify(m).slice(0, 300));
    return m.error ? { kind: 'error', error: m.error } : { kind: 'result', result: m.result };
  };
  const session = createTaskSessionFromClient(client, { endpointId: 'probe', rawDispatch,
    v2RequestFraming: { protocolVersion: '2026-07-28', clientInfo: { name: 'probe', version: '1' }, clientCapabilities: caps } });
  const execution = await session.callTool('interact', { action: 'execute_js', script: 'document.title' });
  const { outcome } = await execution.settle();
  console.log('outcome', JSON.stringify(outcome).slice(0, 500));
  await session.close();
  await client.close();
} catch (e) { console.log('ERR', e); }
finally { await ext.stop(); await daemon.stop(); }
