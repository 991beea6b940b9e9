// The popup: shows the worker's status from chrome.storage.local, checks the
// daemon's /health itself, and sends pair / unpair to the worker (which owns
// the instance id and the token).
//
// Stable hooks for tests: #status-paired[data-paired], #status-daemon[data-reachable],
// #status-daemon[data-dropped] (answers dropped as not signed by the paired daemon),
// #last-command[data-status], #status-frames[data-at-work], #code, #pair, #port, #save-port, #unpair,
// #message[data-kind] (ok, warn, error), #user-scripts[hidden] and #allow-user-scripts (the optional
// user scripts permission, where the manifest makes it one: Firefox).
//
// The daemon line comes from an unauthenticated GET /health, which any
// program on the port can answer; only the worker's signed polls say that
// the paired daemon is there, and answers it did not sign are shown here.

import { DaemonClient, DEFAULT_PORT, normaliseCode, validPort } from './daemon.js';
import { KEYS, EMPTY_STATUS } from './status.js';
import { askUserScripts, tokenStore, userScriptsAskable } from './platform.js';
import { DEADLINE_KEY, SINCE_KEY } from './capture/declared.js';

const HEALTH_EVERY_MS = 2000;

const $ = (id) => document.getElementById(id);
const el = {
  paired: $('status-paired'),
  daemon: $('status-daemon'),
  last: $('last-command'),
  frames: $('status-frames'),
  pairForm: $('pair-form'),
  code: $('code'),
  pair: $('pair'),
  portForm: $('port-form'),
  port: $('port'),
  unpair: $('unpair'),
  userScripts: $('user-scripts'),
  allowUserScripts: $('allow-user-scripts'),
  message: $('message'),
  ids: $('ids'),
};

let state = { token: '', port: DEFAULT_PORT, status: { ...EMPTY_STATUS } };
let health = null; // {reachable, body?, error?} of the last /health check for state.port

function render() {
  const { token, status } = state;
  const paired = Boolean(token) && status.paired !== false;
  el.paired.dataset.paired = String(paired);
  if (paired) el.paired.textContent = 'paired';
  else if (token && status.token_rejected) el.paired.textContent = 'not paired: the daemon rejected the token; pair again';
  else el.paired.textContent = 'not paired';

  const where = `127.0.0.1:${state.port}`;
  if (health) {
    el.daemon.dataset.reachable = String(health.reachable);
    if (health.reachable) {
      const b = health.body || {};
      const ext = b.extension?.connected ? ', extension connected' : '';
      el.daemon.textContent = `reachable at ${where}${b.version ? ` (gasoline ${b.version})` : ''}${ext}`;
    } else {
      el.daemon.textContent = `not reachable at ${where}: start it with "gasoline daemon start"`;
    }
  } else {
    el.daemon.dataset.reachable = '';
    el.daemon.textContent = `checking ${where}…`;
  }
  el.daemon.title = status.last_error || '';
  const dropped = status.dropped_batches || 0;
  el.daemon.dataset.dropped = String(dropped);
  if (dropped) {
    el.daemon.append(Object.assign(document.createElement('span'), {
      className: 'dropped',
      textContent: `${dropped} answer${dropped === 1 ? '' : 's'} not signed by the paired daemon dropped (last ${timeOf(status.last_dropped_at)}): ` +
        'another program may hold the port',
    }));
  }

  const c = status.last_command;
  if (c) {
    el.last.dataset.status = c.status;
    el.last.replaceChildren(
      `${c.action} · ${c.status} · ${timeOf(c.updated_at || c.received_at)}`,
      document.createElement('br'),
      Object.assign(document.createElement('code'), { textContent: c.correlation_id }),
    );
  } else {
    el.last.dataset.status = '';
    el.last.textContent = 'none yet';
  }

  el.unpair.disabled = !token;
  if (document.activeElement !== el.port) el.port.value = String(state.port);
}

function timeOf(iso) {
  const d = iso ? new Date(iso) : null;
  return d && !Number.isNaN(d.getTime()) ? d.toLocaleTimeString() : '';
}

function say(kind, text) {
  el.message.dataset.kind = kind;
  el.message.className = kind;
  el.message.textContent = text;
}

async function load() {
  const [got, token] = await Promise.all([chrome.storage.local.get([KEYS.port, KEYS.status]), tokenStore().get()]);
  const port = Number(got[KEYS.port]);
  state = {
    token,
    port: validPort(port) ? port : DEFAULT_PORT,
    status: { ...EMPTY_STATUS, ...(got[KEYS.status] ?? {}) },
  };
  render();
}

/**
 * showFrames says whether iframes are captured now: since the at-work
 * registration came into place (capture/declared.js stores when, once
 * Chrome accepted it) until the idle deadline, else top documents only.
 */
async function showFrames() {
  const got = await chrome.storage.session.get([DEADLINE_KEY, SINCE_KEY]).catch(() => ({}));
  const until = Number(got[DEADLINE_KEY]) || 0;
  const since = Number(got[SINCE_KEY]) || 0;
  const atWork = since > 0 && until > Date.now();
  el.frames.dataset.atWork = String(atWork);
  el.frames.textContent = atWork
    ? `captured since ${new Date(since).toLocaleTimeString()}: an agent is at work (until about ${new Date(until).toLocaleTimeString()}, 15 minutes after its last call)`
    : 'not captured while no agent works (top documents only, lighter pages); an agent\'s call turns it on';
}

async function checkHealth() {
  const port = state.port;
  try {
    const body = await new DaemonClient({ port }).health();
    if (port === state.port) health = { reachable: true, body };
  } catch (err) {
    if (port === state.port) health = { reachable: false, error: err.message };
  }
  render();
}

el.pairForm.addEventListener('submit', async (ev) => {
  ev.preventDefault();
  const code = normaliseCode(el.code.value);
  if (!code) {
    say('error', 'Enter the code that "gasoline pair" printed (it looks like ABCD-2345).');
    return;
  }
  el.pair.disabled = true;
  say('', 'Pairing…');
  try {
    const res = await chrome.runtime.sendMessage({ type: 'pair', code });
    if (res?.ok) {
      el.code.value = '';
      say('ok', `Paired with the gasoline daemon on 127.0.0.1:${res.port}, which proved it knows the code. Agents can now run commands in this browser.`);
    } else {
      const e = res?.error ?? {};
      say('error', [e.message || 'pairing failed', e.hint].filter(Boolean).join('\n'));
    }
  } catch (err) {
    say('error', `pairing failed: ${err.message}`);
  } finally {
    el.pair.disabled = false;
    checkHealth();
  }
});

el.portForm.addEventListener('submit', async (ev) => {
  ev.preventDefault();
  const port = Number(el.port.value);
  if (!validPort(port)) {
    say('error', 'The port must be a number between 1 and 65535 (the default is 7890).');
    return;
  }
  await chrome.storage.local.set({ [KEYS.port]: port });
  el.port.blur();
  health = null;
  // A port is only where to look: pairing there needs the daemon's proof of
  // the code, and a paired extension runs only batches signed with its token.
  say('ok', state.token
    ? `Using 127.0.0.1:${port}. Commands are run only if the daemon you paired with answers there; if it does not, pair again.`
    : `Using 127.0.0.1:${port}. Pairing succeeds only with a gasoline daemon that proves it knows your code.`);
});

el.unpair.addEventListener('click', async () => {
  const res = await chrome.runtime.sendMessage({ type: 'unpair' }).catch((err) => ({ ok: false, error: { message: err.message } }));
  if (res?.ok && res.revoked) {
    say('ok', 'Unpaired: the daemon revoked this browser\'s token. Run "gasoline pair" to pair again.');
  } else if (res?.ok && res.error) {
    say('warn', `Unpaired in this browser, but ${res.error.message}.\n${res.error.hint}.`);
  } else if (res?.ok) {
    say('ok', 'Not paired. Run "gasoline pair" to pair.');
  } else {
    say('error', `unpair failed: ${res?.error?.message ?? 'no answer from the service worker'}`);
  }
});

chrome.storage.onChanged.addListener((changes, area) => {
  if (area === 'session' && (DEADLINE_KEY in changes || SINCE_KEY in changes)) showFrames();
  if (area !== 'local') return;
  const portChanged = KEYS.port in changes;
  load().then(() => {
    if (portChanged) checkHealth();
  });
});

chrome.runtime.sendMessage({ type: 'info' }).then((info) => {
  el.ids.textContent = `extension ${chrome.runtime.id}${info?.instance ? ` · worker ${info.instance.slice(0, 8)}` : ''}`;
}, () => {
  el.ids.textContent = `extension ${chrome.runtime.id}`;
});

/** showUserScripts shows the user scripts button while the user can grant them here (platform.js). */
async function showUserScripts() {
  el.userScripts.hidden = !(await userScriptsAskable().catch(() => false));
}

el.allowUserScripts.addEventListener('click', () => {
  // The request first, in the click's own turn: Firefox takes it only from a user's action.
  askUserScripts().then((granted) => {
    say(granted ? 'ok' : 'warn', granted
      ? 'User scripts allowed: execute_js now runs on pages whose CSP forbids eval.'
      : 'User scripts not allowed: execute_js cannot run on pages whose CSP forbids eval.');
    showUserScripts();
  }, (err) => say('error', `asking for user scripts failed: ${err.message}`));
});

load().then(checkHealth);
showUserScripts();
showFrames();
setInterval(checkHealth, HEALTH_EVERY_MS);
