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
 * (a FAILURE), or id → [status, why]. suite names an older release of the
 * suite to run it with (an npm alias in package.json).
 */
async function scenario(name, expected = {}, suite = undefined) {
  const { checks, output } = await conformance(`${proxy.url}/mcp`, name, suite ? { suite } : {});
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
const noListChanges = ['SKIPPED', 'subscriptions/listen: gasoline announces no list changes (its tools and prompts never change)'];

test('conformance server-stateless (2026-07-28)', () => scenario('server-stateless', {
  'sep-2575-server-rejects-undeclared-capability': needsSuiteTool,
  'sep-2575-missing-capability-http-400': needsSuiteTool,
  'sep-2575-http-server-no-independent-requests-on-stream': needsSuiteTool,
  'sep-2575-server-no-log-without-loglevel': needsSuiteTool,
  'sep-2575-server-sends-prompts-list-changed-on-subscription': noListChanges,
  'sep-2575-server-sends-tools-list-changed-on-subscription': noListChanges,
}));

test('conformance caching (2026-07-28)', () => scenario('caching', {
  'sep-2549-prompts-list-caching-hints': 'gasoline offers no prompts (prompts/list is -32601)',
  'sep-2549-resources-read-caching-hints': ['SKIPPED', 'a fresh daemon has no stored output to list and read'],
}));

test('conformance tasks-capability-negotiation (Tasks extension)', () => scenario('tasks-capability-negotiation', {
  'sep-2663-server-rejects-undeclared-client': needsSuiteTool,
  'tasks-per-request-meta-opt-in': needsSuiteTool,
}));

// Three tools/list POSTs at once on one session, each answered (SSE or
// JSON). 0.1.16 (the newest tagged latest) sends MCP-Protocol-Version
// 2025-03-26 on a session that negotiated 2025-11-25: a supported version
// the client SHOULD NOT have sent, served at the negotiated one (only an
// invalid or unsupported one is 400); the newest sends the negotiated one.
// gasoline answers tools/list with JSON: the suite reports that as INFO
// ("SSE streams optional").
const jsonAnswers = { 'server-sse-streams-functional': ['INFO', 'tools/list is answered with JSON, which the transport allows'] };
test('conformance server-sse-multiple-streams (newest)', () => scenario('server-sse-multiple-streams', jsonAnswers));
test('conformance server-sse-multiple-streams (0.1.16)', () => scenario('server-sse-multiple-streams', jsonAnswers, 'conformance-0.1.16'));
