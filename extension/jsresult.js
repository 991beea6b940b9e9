// The worker's reading of what pageRun (page.js) returned from a page: it
// encodes and measures the value and words every failure, with the worker's
// own built-ins, which no page can reach. No chrome.* dependency: tested
// under node.

import { CommandError } from './runner.js';

/**
 * readPageResult turns pageRun's answer r into the fields of an execute_js
 * result, {value, type?, hint?, builtins}, or throws CommandError with the
 * words an agent needs. script is the script as sent, url the page's URL from
 * chrome.tabs (used in messages only), world the world pageRun ran in:
 * "MAIN" (the default) or "USER_SCRIPT" (userscripts/), where the hint of a
 * result and the text of a script's failure say the page's globals were out
 * of reach.
 */
export function readPageResult(r, { script, url, maxChars, world = 'MAIN' }) {
  if (!r || typeof r !== 'object') {
    throw new CommandError('the script\'s page went away before it finished (the tab navigated, reloaded or closed); run it again once the page has loaded');
  }
  const userWorld = world === 'USER_SCRIPT';
  if (!r.ok) {
    const text = failureText(r, url, maxChars, userWorld);
    throw new CommandError(userWorld ? `${text}\n(${USER_WORLD_NOTE})` : text);
  }
  const value = r.value === undefined ? null : r.value;
  const json = JSON.stringify(value);
  if (json.length > maxChars) {
    throw new CommandError(`the result is ${json.length} characters of JSON, over the limit of ${maxChars}; return less data (pick fields, slice arrays or strings).`);
  }
  const out = { value, builtins: r.builtins };
  if (r.type) out.type = r.type;
  const hints = [];
  if (r.type === 'undefined' && r.compiled_as === 'body' && !/\breturn\b/.test(script)) {
    hints.push('the script ran as a function body without a return statement; add "return <value>" to get a value back');
  } else if (r.type === 'dom_node' || r.type === 'node_list') {
    hints.push('DOM nodes are returned as short descriptions; return the properties you need (e.g. el.textContent, el.href)');
  }
  if (r.builtins === 'page') hints.push(PAGE_BUILTINS_HINT);
  if (userWorld) hints.push(USER_WORLD_NOTE);
  if (hints.length) out.hint = hints.join('; ');
  return out;
}

/** PAGE_BUILTINS_HINT explains builtins "page". */
export const PAGE_BUILTINS_HINT = 'this tab was loaded before the extension started, so the result was read with the page\'s own ' +
  'built-ins (JSON, Map, Promise…), which the page may have replaced; reload the tab for a result the page cannot alter';

/**
 * USER_WORLD_NOTE goes with every result and script failure of a script
 * that ran in the USER_SCRIPT world.
 */
export const USER_WORLD_NOTE = 'the script ran in the USER_SCRIPT world (the page\'s CSP blocks eval): it sees the page\'s DOM ' +
  'but not its JavaScript globals, which only MAIN sees';

function failureText(r, url, maxChars, userWorld) {
  switch (r.kind) {
    case 'compile': {
      const head = `${r.name || 'Error'}: ${firstLine(r.message)}`;
      if (r.cls === 'syntax') {
        return `the script does not compile: ${head}. It is compiled as an expression, else as the body of an async function (use "return" there to give back a value).`;
      }
      if (r.cls === 'eval' || /unsafe-eval|Content Security Policy|TrustedScript/i.test(String(r.message))) {
        // In MAIN, executeJs retries in the USER_SCRIPT world instead of
        // reporting this; there, only a broken world configuration says it.
        return userWorld
          ? `the USER_SCRIPT world refused to compile the script too (${head}); this is a bug in the extension's world configuration, please report it.`
          : `the page's Content-Security-Policy blocks eval, so execute_js cannot run scripts on ${url || 'this page'} (${head}).`;
      }
      return `the page refused to compile the script: ${head}`;
    }
    case 'thrown':
      return describeThrown(r);
    case 'not_serialisable':
      return `the script's result is not JSON-serialisable: ${r.message}. Return plain data instead: pick the fields you need, ` +
        'or use JSON.parse(JSON.stringify(x)).';
    case 'too_large':
      return `the result is over ${maxChars} characters of JSON (at least ${r.chars}); return less data (pick fields, slice arrays or strings).`;
    default:
      return `the script failed: ${r.message || r.kind}`;
  }
}

const STACK_LINES = 4;

/**
 * describeThrown renders a thrown value as "Uncaught Name: message" plus the
 * first stack frames that belong to the user's script, with their lines
 * counted in the script ("script:line:col").
 */
export function describeThrown(r) {
  if (!r.error) return `Uncaught non-Error value: ${oneLine(r.shown ?? '', 200)}`;
  const { name, message, stack } = r.error;
  const lineOffset = 3; // lines the Function constructor and the wrapper ("use strict", return) add
  const msg = String(message ?? '');
  // A page can throw an error as large as itself; the daemon keeps 4 KB.
  const head = `${name || 'Error'}: ${msg.length > 2000 ? `${msg.slice(0, 2000)}… (${msg.length - 2000} more characters cut)` : msg}`;
  const frames = [];
  for (const line of String(stack ?? '').split('\n')) {
    if (!/^\s+at /.test(line)) continue;
    if (/^\s+at (async )?pageRun\b/.test(line)) break;
    // "(eval at pageRun (...), <anonymous>:L:C)" → "(script:l:C)", l a line of the script.
    frames.push(line.trim().replace(/\(eval at .*, <anonymous>:(\d+):(\d+)\)$/,
      (_, l, c) => `(script:${Number(l) - lineOffset}:${c})`));
    if (frames.length === STACK_LINES) break;
  }
  return `Uncaught ${frames.length ? `${head}\n  ${frames.join('\n  ')}` : head}`;
}

function firstLine(s) {
  return String(s ?? '').split('\n')[0].trim();
}

function oneLine(s, n) {
  const t = String(s).replace(/\s+/g, ' ').trim();
  return t.length > n ? `${t.slice(0, n - 1)}…` : t;
}
