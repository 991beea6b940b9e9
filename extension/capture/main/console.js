// The page's console calls, recorded (and still made). The stacks of
// warnings and errors name their caller, skipping this script
// (SCRIPT_NAME: full.js's sourceURL).
import { apply, ErrorCtor, now, strReplace } from './builtins.js';
import { emit, on } from './channel.js';
import { callerSource, formatArgs } from './format.js';
import { LIMITS } from './limits.js';
import { win } from './page.js';
import { clip } from './text.js';

let busy = false; // a page getter that logs while we serialise must not recurse

/** captureConsole records the console's calls (and still makes them). */
export function captureConsole() {
  const con = win.console;
  hookConsole(con, 'debug', 'debug');
  hookConsole(con, 'info', 'info');
  hookConsole(con, 'log', 'log');
  hookConsole(con, 'warn', 'warn');
  hookConsole(con, 'error', 'error');
  hookConsole(con, 'trace', 'log');
  hookConsole(con, 'assert', 'error');
  hookConsole(con, 'dir', 'log');
  hookConsole(con, 'table', 'log');
}

/** hookConsole replaces con[method] with a wrapper of the same name that records its call at level. */
function hookConsole(con, method, level) {
  const orig = con[method];
  if (typeof orig !== 'function') return;
  const wantStack = level === 'warn' || level === 'error' || method === 'trace';
  const hooked = {
    [method](...args) {
      if (!busy && on('log') && (method !== 'assert' || !args[0])) {
        busy = true;
        try {
          // The stack is taken here, so that its frames are the caller's
          // below this wrapper's one, as in the console's own.
          record(method, level, args, wantStack && new ErrorCtor().stack);
        } catch {
          // never let capture break a console call
        } finally {
          busy = false;
        }
      }
      return apply(orig, this, args);
    },
  }[method];
  try {
    con[method] = hooked;
  } catch {
    // a frozen console
  }
}

/** record emits the log record of a console call (a failed console.assert's), with the stack st when it is one. */
function record(method, level, args, st) {
  let a = args;
  if (method === 'assert') {
    a = ['Assertion failed:'];
    for (let i = 1; i < args.length; i++) a[i] = args[i];
  }
  const f = formatArgs(a);
  const rec = { kind: 'log', ts: now(), level, message: f.message };
  if (typeof st === 'string') {
    const src = callerSource(st);
    if (src) rec.source = src;
    if (!f.stack) f.stack = clip(strReplace(st, /^Error\n/, ''), LIMITS.stack);
  }
  if (f.stack) rec.stack = f.stack;
  emit(rec);
}
