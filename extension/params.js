// How the extension reads a command's params: only through the contract
// generated from the daemon's Go argument structs (contract.js), so that a
// handler cannot read a parameter the daemon never declares, sends or
// validates. Worker-side only: classic content scripts get what the worker
// passes them in its messages, never a command's params.

import { CONTRACT, URL_RULE } from './contract.js';
import { CommandError } from './runner.js';
import { invalid } from './actions/runtime/message.js';

/**
 * paramsOf returns the params of a command of action, as its handler may
 * read them: a frozen object with only the params the contract declares
 * for action (others, such as a tab_id added for an action that takes
 * none, are dropped), each checked against its declaration (type, enum,
 * bounds, required; the daemon checked them already, so a failure means
 * the two sides run different contracts). Reading a name the contract
 * does not declare for action throws: a handler bug, which
 * test/params.test.js also finds by reading the handlers' code.
 */
export function paramsOf(action, params) {
  const declared = Object.hasOwn(CONTRACT, action) ? CONTRACT[action] : null;
  if (!declared) {
    throw new CommandError(`unknown action ${JSON.stringify(action)}; this extension runs ${Object.keys(CONTRACT).join(', ')}`);
  }
  const given = params && typeof params === 'object' ? params : {};
  const out = Object.create(null);
  for (const [name, spec] of Object.entries(declared)) {
    const v = Object.hasOwn(given, name) ? given[name] : undefined;
    if (v === undefined || v === null) {
      if (spec.required) throw mismatch(action, name, 'is missing');
      continue;
    }
    const why = invalid(spec, v);
    if (why) throw mismatch(action, name, `${why}, got ${JSON.stringify(v)}`);
    out[name] = v;
  }
  Object.freeze(out);
  return new Proxy(out, {
    get(o, name) {
      if (typeof name === 'symbol' || Object.hasOwn(declared, name) || INSPECTED.has(name)) return o[name];
      throw new Error(`extension bug: the ${action} handler reads params.${name}, which the contract does not declare ` +
        `(it has ${Object.keys(declared).join(', ') || 'none'}); declare it in the Go argument struct (internal/tools) or stop reading it`);
    },
  });
}

// INSPECTED are names generic code reads off any object (JSON.stringify,
// await); they read as undefined.
const INSPECTED = new Set(['toJSON', 'then']);

function mismatch(action, name, what) {
  return new CommandError(`${action}: param ${name} ${what}; the daemon and the extension run different argument contracts: update both`);
}

/**
 * checkURL returns raw when URL_RULE (the daemon's rule) allows opening
 * it, and throws CommandError otherwise: an http(s) URL with a host, a
 * file URL, or one of the exact URLs (about:blank).
 */
export function checkURL(raw, action) {
  if (typeof raw !== 'string' || !raw) {
    throw new CommandError(`${action} needs "url", an absolute URL such as http://localhost:3000/`);
  }
  if (URL_RULE.exact.includes(raw)) return raw;
  let u;
  try {
    u = new URL(raw);
  } catch {
    throw new CommandError(`${JSON.stringify(raw)} is not an absolute URL; include the scheme, e.g. http://${raw}`);
  }
  const scheme = u.protocol.slice(0, -1);
  // A hosted URL's host as written: WHATWG parsing finds one in "http:///x", the daemon does not.
  const written = /^[a-z][a-z0-9+.-]*:\/\/([^/?#]*)/i.exec(raw)?.[1] ?? '';
  if ((URL_RULE.hosted.includes(scheme) && u.host && written) || URL_RULE.schemes.includes(scheme)) return u.href;
  if (scheme === 'javascript') throw new CommandError('javascript: URLs are not navigated; use execute_js to run code');
  throw new CommandError(`unsupported URL ${JSON.stringify(raw)}; use an http(s) or file URL, or about:blank`);
}
