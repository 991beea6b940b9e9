// Running one execute_js request with the saved built-ins (see
// pristine.js): the runner (page.js's pageRun, sent as source) is compiled
// with the saved Function constructor, once per source, and called with
// the built-ins B.

/**
 * refused is the answer when the runner itself cannot be compiled: the
 * page's CSP or Trusted Types forbid eval (the worker then runs the script
 * in the USER_SCRIPT world).
 */
function refused(B, err, late) {
  let message = '';
  try {
    message = err !== null && typeof err === 'object' && B.hasOwn(err, 'message') ? '' + err.message : '' + err;
  } catch {
    message = 'an unreadable error';
  }
  let p = null;
  try {
    p = B.getPrototypeOf(err);
  } catch {
    p = null;
  }
  const cls = p === B.evalErrorProto ? 'eval' : 'other';
  return { __proto__: null, ok: false, kind: 'compile', cls, name: cls === 'eval' ? 'EvalError' : 'Error', message, builtins: late ? 'page' : 'pristine' };
}

/**
 * handlerOf returns handle(d, answer), which runs one request, d
 * ([id, runner, body, expr, maxChars, late]), and calls answer with the
 * result once.
 */
export function handlerOf(B) {
  const Fn = Function;
  const { apply, isArray, then } = B;
  let runnerSource = null;
  let runner = null;
  // compile returns the function runner is the source of, compiled once.
  const compile = (source) => {
    if (source !== runnerSource) {
      runner = apply(new Fn('"use strict"; return (' + source + '\n);'), undefined, []);
      runnerSource = source;
    }
    return runner;
  };
  return (d, answer) => {
    if (!isArray(d) || d.length !== 6 || typeof d[1] !== 'string') return;
    const late = d[5] === true;
    let out;
    try {
      out = apply(compile(d[1]), undefined, [B, d[2], d[3], d[4], late]);
    } catch (err) {
      return answer(refused(B, err, late));
    }
    let native = false;
    try {
      apply(then, out, [answer, () => answer(null)]); // a native promise (a brand check that also subscribes)
      native = true;
    } catch {
      native = false;
    }
    if (!native) answer(out);
  };
}
