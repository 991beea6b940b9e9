// Test helper: pageRun as the worker runs it, with pristine.js evaluated in
// this process first, as Chrome does at document_start.
import { readFileSync } from 'node:fs';
import vm from 'node:vm';
import { pageRun, scriptSources, MAX_RESULT_CHARS } from '../page.js';
import { readPageResult } from '../jsresult.js';

vm.runInThisContext(readFileSync(new URL('../pristine.js', import.meta.url), 'utf8'));

/** raw resolves to what pageRun returns for script. */
export async function raw(script, maxChars = MAX_RESULT_CHARS) {
  const { body, expr } = scriptSources(script);
  return pageRun(body, expr, maxChars);
}

/**
 * run resolves to {r, result} on success or {r, error} (the CommandError's
 * message) on failure: pageRun's answer and the worker's reading of it.
 */
export async function run(script, maxChars = MAX_RESULT_CHARS) {
  const r = await raw(script, maxChars);
  try {
    return { r, result: readPageResult(r, { script, url: 'http://page.test/', maxChars }) };
  } catch (err) {
    return { r, error: err.message };
  }
}
