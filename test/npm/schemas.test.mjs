// Every tool's inputSchema, as tools/list gives it, is a valid JSON Schema
// 2020-12 (MCP's default dialect) under Ajv's strict mode, which also
// refuses what strict clients refuse: unknown keywords, an array without
// items; and every property has one type, or anyOf schemas of one type
// each (no list of types, which single-type dialects refuse).

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import Ajv2020 from 'ajv/dist/2020.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { Daemon, cleanEnv } from './harness.mjs';

let daemon;
before(async () => { daemon = await Daemon.start(); });
after(async () => { await daemon?.stop(); });

/** Every subschema of a property map, with its path. */
function* properties(schema, path) {
  for (const [name, sub] of Object.entries(schema.properties ?? {})) {
    yield [`${path}.${name}`, sub];
    if (sub.items) yield* properties(sub.items, `${path}.${name}[]`);
  }
}

test('every tool inputSchema compiles as JSON Schema 2020-12 in strict mode, arrays with items, each property of one type or anyOf single types', async (t) => {
  const client = new Client({ name: 'gasoline-schemas', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command: daemon.bins.gasolineMcp, env: cleanEnv(daemon.env), stderr: 'pipe' }));
  t.after(() => client.close());
  const { tools } = await client.listTools();
  assert.ok(tools.length >= 4);
  const ajv = new Ajv2020({ strict: true, strictTypes: true, strictTuples: true, allowUnionTypes: true });
  for (const tool of tools) {
    assert.doesNotThrow(() => ajv.compile(tool.inputSchema), `${tool.name}: ${JSON.stringify(tool.inputSchema)}`);
    for (const [path, sub] of properties(tool.inputSchema, tool.name)) {
      // One type per schema, as single-type dialects (Gemini's, OpenAPI
      // 3.0's) want: a type name, or anyOf schemas of one type each.
      const alts = sub.anyOf ?? [sub];
      assert.ok(alts.length > 0, `${path} has an empty anyOf`);
      for (const alt of alts) {
        assert.equal(typeof alt.type, 'string', `${path}: ${JSON.stringify(alt)} is not of one type`);
        if (alt.type === 'array') assert.ok(alt.items, `${path} is an array without items`);
      }
    }
  }
});
