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

/**
 * Every check of the scenario passes, except those in expected: id → why
 * (a FAILURE), or id → ['SKIPPED', why].
 */
async function scenario(name, expected = {}) {
  const { checks, output } = await conformance(`${proxy.url}/mcp`, name);
  assert.ok(checks.length > 0, `${name} ran no check\n${output}`);
  for (const c of checks) {
    const e = expected[c.id];
    const want = e === undefined ? 'SUCCESS' : Array.isArray(e) ? e[0] : 'FAILURE';
    assert.equal(c.status, want, `${name}: ${c.id}: ${c.errorMessage ?? ''} (expected ${want}${expected[c.id] ? ': ' + expected[c.id] : ''})\n${output}`);
  }
  return checks;
}

for (const name of ['server-initialize', 'ping', 'tools-list', 'server-session-lifecycle', 'http-header-validation',
  'sep-2164-resource-not-found']) {
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

// The suite's diagnostic tools (test_missing_capability, test_logging_tool,
// ...) are not gasoline's: the checks that need one report "not testable".
const needsSuiteTool = 'needs a tool of the suite that gasoline does not have';
const noSubscriptions = ['SKIPPED', 'subscriptions/listen: gasoline announces no list changes'];

test('conformance server-stateless (2026-07-28)', () => scenario('server-stateless', {
  'sep-2575-server-rejects-undeclared-capability': needsSuiteTool,
  'sep-2575-missing-capability-http-400': needsSuiteTool,
  'sep-2575-http-server-no-independent-requests-on-stream': needsSuiteTool,
  'sep-2575-server-no-log-without-loglevel': needsSuiteTool,
  'sep-2575-server-sends-subscription-ack': noSubscriptions,
  'sep-2575-server-tags-subscription-id': noSubscriptions,
  'sep-2575-server-honors-notification-filter': noSubscriptions,
  'sep-2575-server-sends-prompts-list-changed-on-subscription': noSubscriptions,
  'sep-2575-server-sends-tools-list-changed-on-subscription': noSubscriptions,
}));

test('conformance caching (2026-07-28)', () => scenario('caching', {
  'sep-2549-prompts-list-caching-hints': 'gasoline offers no prompts (prompts/list is -32601)',
  'sep-2549-resources-read-caching-hints': ['SKIPPED', 'a fresh daemon has no stored output to list and read'],
}));

test('conformance tasks-capability-negotiation (Tasks extension)', () => scenario('tasks-capability-negotiation', {
  'sep-2663-server-rejects-undeclared-client': needsSuiteTool,
  'tasks-per-request-meta-opt-in': needsSuiteTool,
}));
