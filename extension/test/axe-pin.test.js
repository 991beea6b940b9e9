// The accessibility audit's axe-core is a pinned copy (make axe refreshes
// it from npm): the file must be the version and bytes audit/axe.json
// records, and it must come into pages only when an audit asks for it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { manifests } from './manifests.js';

const root = new URL('../', import.meta.url);
const read = (p) => readFileSync(new URL(p, root));

// AXE_PIN is the pin this test holds the copy to; make axe rewrites
// audit/axe.json, and a change there shows in review beside this constant.
const AXE_PIN = { version: '4.14.1', sha256: '29348999450cdf2849a8e70b7912fc2da85a849da39c0d0d5394f51d4a9ed95c' };

test('audit/axe.min.js is the pinned axe-core', () => {
  const pin = JSON.parse(read('audit/axe.json'));
  assert.deepEqual(pin, AXE_PIN, 'audit/axe.json changed: update AXE_PIN after checking the new version');
  const file = read('audit/axe.min.js');
  assert.equal(createHash('sha256').update(file).digest('hex'), AXE_PIN.sha256, 'audit/axe.min.js is not the pinned file: run make axe');
  const header = file.subarray(0, 40).toString();
  assert.ok(header.startsWith(`/*! axe v${AXE_PIN.version}\n`), `got header ${JSON.stringify(header)}, want axe v${AXE_PIN.version}`);
});

test('axe comes into a page only when an audit asks for it', () => {
  for (const { browser, manifest } of manifests) {
    assert.equal(manifest.content_scripts, undefined, `${browser}: content scripts are registered by capture/declared.js, not the manifest`);
  }
  const declared = JSON.parse(read('capture/declared.json')).flatMap((c) => c.js || []);
  assert.ok(!declared.some((f) => f.includes('axe')), `capture/declared.json declares axe: ${declared}`);
  const audit = read('audit/audit.js').toString();
  assert.match(audit, /export const AXE_FILE = 'audit\/axe\.min\.js'/);
});
