// Test helper: pageRun as pristine.js runs it, with pristine.js evaluated in
// this process first, as Chrome does at document_start, and each script
// handed to its request handler as the relay hands it over the port.
import { readFileSync } from 'node:fs';
import vm from 'node:vm';
import { scriptSources, MAX_RESULT_CHARS, PAGE_RUN_SOURCE } from '../page.js';
import { readPageResult } from '../jsresult.js';

vm.runInThisContext(readFileSync(new URL('../dist/pristine.js', import.meta.url), 'utf8'));
const kit = globalThis.gasolinePristineKit;

/** handOver resolves to pristine.js's answer to one request, as the relay receives it. */
export function handOver(k, script, maxChars = MAX_RESULT_CHARS, late = false) {
  const { body, expr } = scriptSources(script);
  return new Promise((resolve) => k.handle([1, PAGE_RUN_SOURCE, body, expr, maxChars, late], (r) => resolve(r === null ? null : structuredClone(r))));
}

/** raw resolves to what pageRun returns for script. */
export async function raw(script, maxChars = MAX_RESULT_CHARS) {
  const { body, expr } = scriptSources(script);
  return new Promise((resolve) => kit.handle([1, PAGE_RUN_SOURCE, body, expr, maxChars, false], resolve));
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
