// Unit tests of the long polls the worker learns (capture/polls.js) from
// what chrome.webRequest shows of each page fetch/XHR (capture/network.js).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LongPolls, pollKey, WAIT_MS, LONG_MS } from '../capture/polls.js';
import { NetworkObserver } from '../capture/network.js';

const O = 'http://app.test';

test('pollKey is the method and the url without its query or fragment', () => {
  assert.equal(pollKey('get', 'http://app.test/poll?since=4&t=9'), 'GET http://app.test/poll');
  assert.equal(pollKey('POST', 'http://app.test/bind#x'), 'POST http://app.test/bind');
  assert.equal(pollKey(undefined, 'http://app.test/a'), 'GET http://app.test/a');
});

test('a path is a known long poll after two waits past WAIT_MS, or one past LONG_MS; a late-failing call is not', () => {
  const p = new LongPolls();
  p.note(O, 'GET', `${O}/api/report`, 800); // a data request failing after 800 ms, every load
  p.note(O, 'GET', `${O}/api/report`, 850);
  assert.deepEqual(p.known(O), []);
  p.note(O, 'GET', `${O}/poll?since=1`, WAIT_MS + 100); // cancelled as its page went, 1.3 s in
  assert.deepEqual(p.known(O), [], 'once late is not enough');
  p.note(O, 'GET', `${O}/poll?since=2`, WAIT_MS + 400);
  assert.deepEqual(p.known(O), [`GET ${O}/poll`]);
  p.note(O, 'GET', `${O}/sub`, LONG_MS);
  assert.deepEqual(p.known(O), [`GET ${O}/poll`, `GET ${O}/sub`]);
  assert.deepEqual(p.known('http://other.test'), [], 'per origin');
});

test('answers sooner than WAIT_MS lower the score: an API call that was late twice is forgotten when it answers on time', () => {
  const p = new LongPolls();
  p.note(O, 'POST', `${O}/graphql`, 1500);
  p.note(O, 'POST', `${O}/graphql`, 1500);
  assert.deepEqual(p.known(O), [`POST ${O}/graphql`]);
  p.note(O, 'POST', `${O}/graphql`, 90);
  assert.deepEqual(p.known(O), []);
  // a long poll with a score to spare survives one quick answer (news waiting)
  for (let i = 0; i < 4; i++) p.note(O, 'GET', `${O}/poll`, 25000);
  p.note(O, 'GET', `${O}/poll`, 30);
  assert.deepEqual(p.known(O), [`GET ${O}/poll`]);
});

test('a request still waiting past LONG_MS is known at once, and counted once while it waits', () => {
  const p = new LongPolls();
  p.waiting(O, 'GET', `${O}/poll`, LONG_MS - 1);
  assert.deepEqual(p.known(O), []);
  p.waiting(O, 'GET', `${O}/poll`, LONG_MS);
  p.waiting(O, 'GET', `${O}/poll`, LONG_MS + 500);
  assert.deepEqual(p.known(O), [`GET ${O}/poll`]);
  p.note(O, 'GET', `${O}/poll`, 20); // one quick answer: 2 - 1 < KNOWN
  assert.deepEqual(p.known(O), []);
});

test('LongPolls is bounded: the least recently noted origins and paths go first', () => {
  const p = new LongPolls();
  for (let i = 0; i < 70; i++) p.note(`http://o${i}.test`, 'GET', `http://o${i}.test/poll`, LONG_MS);
  assert.equal(p.origins.size, 64);
  assert.deepEqual(p.known('http://o0.test'), []);
  assert.deepEqual(p.known('http://o69.test'), ['GET http://o69.test/poll']);
  for (let i = 0; i < 20; i++) p.note(O, 'GET', `${O}/p${i}`, LONG_MS);
  assert.equal(p.known(O).length, 16);
  assert.ok(!p.known(O).includes(`GET ${O}/p0`));
});

test('NetworkObserver tells LongPolls how long each page fetch/XHR waited for its answer', () => {
  const polls = new LongPolls();
  const o = new NetworkObserver({ emit: () => {}, polls });
  const req = (id, t, url, type = 'xmlhttprequest') => o.onBeforeRequest({ requestId: id, tabId: 1, frameId: 0, type, method: 'GET', url, timeStamp: t, initiator: O });
  // a long poll cancelled 1.5 s in (its page went), twice; an image as slow; a report failing after 800 ms
  req('1', 0, `${O}/poll`);
  o.onErrorOccurred({ requestId: '1', tabId: 1, frameId: 0, type: 'xmlhttprequest', method: 'GET', url: `${O}/poll`, timeStamp: 1500, error: 'net::ERR_ABORTED' });
  req('2', 2000, `${O}/big.png`, 'image');
  o.onCompleted({ requestId: '2', tabId: 1, frameId: 0, type: 'image', method: 'GET', url: `${O}/big.png`, timeStamp: 9000, statusCode: 200 });
  req('3', 2000, `${O}/api/report`);
  o.onResponseStarted({ requestId: '3', tabId: 1, frameId: 0, timeStamp: 2800, responseHeaders: [] });
  o.onCompleted({ requestId: '3', tabId: 1, frameId: 0, type: 'xmlhttprequest', method: 'GET', url: `${O}/api/report`, timeStamp: 2810, statusCode: 502 });
  assert.deepEqual(o.longPolls(O, 3000), []);
  req('4', 3000, `${O}/poll?since=1`);
  o.onErrorOccurred({ requestId: '4', tabId: 1, frameId: 0, type: 'xmlhttprequest', method: 'GET', url: `${O}/poll?since=1`, timeStamp: 4300, error: 'net::ERR_ABORTED' });
  assert.deepEqual(o.longPolls(O, 4300), [`GET ${O}/poll`]);
  // a streamed body whose headers came at once waited for nothing
  req('5', 5000, `${O}/ticker`);
  o.onResponseStarted({ requestId: '5', tabId: 1, frameId: 0, timeStamp: 5010, responseHeaders: [{ name: 'Content-Type', value: 'text/plain' }] });
  o.onCompleted({ requestId: '5', tabId: 1, frameId: 0, type: 'xmlhttprequest', method: 'GET', url: `${O}/ticker`, timeStamp: 60000, statusCode: 200 });
  assert.deepEqual(o.longPolls(O, 60000), [`GET ${O}/poll`]);
  // cancelled before WAIT_MS, as a page that went at once cancels its long poll: nothing learned
  req('7', 60000, `${O}/poll?since=2`);
  o.onErrorOccurred({ requestId: '7', tabId: 1, frameId: 0, type: 'xmlhttprequest', method: 'GET', url: `${O}/poll?since=2`, timeStamp: 60100, error: 'net::ERR_ABORTED' });
  assert.deepEqual(o.longPolls(O, 60100), [`GET ${O}/poll`]);
  // one still waiting past LONG_MS, in a page open for a while, is known when asked
  req('6', 60000, `${O}/subscribe?c=1`);
  assert.deepEqual(o.longPolls(O, 60000 + LONG_MS - 10), [`GET ${O}/poll`]);
  assert.deepEqual(o.longPolls(O, 60000 + LONG_MS), [`GET ${O}/poll`, `GET ${O}/subscribe`]);
  assert.deepEqual(o.longPolls('http://other.test', 70000), []);
});

test('LongPolls saves what it learned and a restarted worker loads it, without overriding what it noted since', () => {
  let changes = 0;
  const p = new LongPolls({ changed: () => changes++ });
  p.note(O, 'GET', `${O}/poll`, LONG_MS);
  p.note(O, 'GET', `${O}/fast`, 10); // nothing to lower: no change
  p.note('http://b.test', 'GET', 'http://b.test/poll', WAIT_MS);
  assert.equal(changes, 2);
  const saved = JSON.parse(JSON.stringify(p.save()));
  const q = new LongPolls();
  q.note('http://b.test', 'GET', 'http://b.test/other', LONG_MS); // noted before the storage answered
  q.load(saved);
  q.load([['http://c.test', [['GET http://c.test/x', 99], [7, 2], null]], 'junk', null]);
  assert.deepEqual(q.known(O), [`GET ${O}/poll`]);
  assert.deepEqual(q.known('http://b.test'), ['GET http://b.test/other']);
  assert.equal(q.origins.has('http://c.test'), false, 'out-of-range scores are dropped');
});
