// An agent with the official MCP TypeScript SDK (from test/npm): it starts
// the command in argv through the SDK's stdio transport, as a client config
// names it, runs one execute_js with wait_ms and prints the tool result as
// JSON on stdout. SDK_FROM is test/npm/package.json, where the SDK is.
'use strict';
const { createRequire } = require('node:module');
const sdk = createRequire(process.env.SDK_FROM);
const { Client } = sdk('@modelcontextprotocol/sdk/client/index.js');
const { StdioClientTransport } = sdk('@modelcontextprotocol/sdk/client/stdio.js');

async function main() {
  const [command, ...args] = process.argv.slice(2);
  const transport = new StdioClientTransport({ command, args, env: process.env, stderr: 'inherit' });
  const client = new Client({ name: 'npm-install-e2e', version: '1.0.0' });
  await client.connect(transport);
  const tools = await client.listTools();
  const result = await client.callTool({
    name: 'interact',
    arguments: { action: 'execute_js', script: 'document.title', wait_ms: 15000 },
  });
  process.stdout.write(JSON.stringify({
    server: client.getServerVersion(),
    tools: tools.tools.map((t) => t.name),
    result: result.structuredContent,
    isError: Boolean(result.isError),
  }) + '\n');
  await client.close();
}

main().catch((err) => {
  process.stderr.write(`agent: ${err.stack || err}\n`);
  process.exit(1);
});
