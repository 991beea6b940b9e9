// The official MCP conformance suite (server scenarios) against the daemon's
// POST /mcp, through a proxy that adds the bearer token the suite cannot
// send. Scenarios that need tools, resources or prompts gasoline does not
// have (test_simple_text, prompts, sampling, ...) do not apply; see
// README.md here for the list and why.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Daemon, authProxy, conformance } from './harness.mjs';

let daemon;
let proxy;
before(async () => {
  daemon = await Daemon.start();
  proxy = await authProxy(daemon);
});
after(async () => {
  await proxy?.close();
  await daemon?.stop();
});

/** Every check of the scenario passes, except those in expected (id → why). */
async function scenario(name, expected = {}) {
  const { checks, output } = await conformance(`${proxy.url}/mcp`, name);
  assert.ok(checks.length > 0, `${name} ran no check\n${output}`);
  for (const c of checks) {
    const want = c.id in expected ? 'FAILURE' : 'SUCCESS';
    assert.equal(c.status, want, `${name}: ${c.id}: ${c.errorMessage ?? ''} (expected ${want}${expected[c.id] ? ': ' + expected[c.id] : ''})\n${output}`);
  }
  return checks;
}

for (const name of ['server-initialize', 'ping', 'tools-list']) {
  test(`conformance ${name}`, () => scenario(name));
}

test('conformance dns-rebinding-protection', async () => {
  const checks = await scenario('dns-rebinding-protection', {
    // The suite expects Origin: http://127.0.0.1:<port> to be accepted.
    // gasoline refuses every Origin but its pinned extension's: a page
    // served on localhost is one of the threats it defends against
    // (README, Security).
    'localhost-host-valid-accepted': 'deliberately stricter than the suite',
  });
  const valid = checks.find((c) => c.id === 'localhost-host-valid-accepted');
  assert.equal(valid.details?.statusCode, 403, 'the stricter Origin check answers 403, nothing else');
});
