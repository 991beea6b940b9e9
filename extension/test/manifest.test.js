// Both manifests (manifests.js: Chrome's, and Firefox's that
// extension/firefox.go makes from it) give the extension what its code
// uses, name only files that exist, and keep pages out; Firefox's has
// what Firefox needs to install and run it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { manifestOf, manifests } from './manifests.js';

const root = fileURLToPath(new URL('../', import.meta.url));

/** sources lists the extension's own .js files (not the tests, not dist/). */
function sources(dir = root) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return ['test', 'dist', 'node_modules'].includes(e.name) ? [] : sources(p);
    return e.name.endsWith('.js') ? [p] : [];
  });
}

// The chrome.* namespaces that need a permission, and the permission.
const NEEDS = { scripting: 'scripting', storage: 'storage', alarms: 'alarms', webRequest: 'webRequest',
  webNavigation: 'webNavigation', userScripts: 'userScripts', tabGroups: 'tabGroups' };

/** filesOf lists every file of the extension the manifest names. */
function filesOf(m) {
  return [
    ...Object.values(m.icons || {}),
    ...Object.values(m.action?.default_icon || {}),
    m.action?.default_popup,
    m.background?.service_worker,
    ...(m.background?.scripts || []),
    ...(m.web_accessible_resources || []).flatMap((w) => w.resources),
  ].filter(Boolean);
}

for (const { browser, manifest: m } of manifests) {
  test(`${browser}: the manifest grants every chrome.* namespace the code uses`, () => {
    const used = new Set();
    for (const f of sources()) {
      for (const [, ns] of fs.readFileSync(f, 'utf8').matchAll(/\bchrome\.([a-zA-Z]+)\./g)) used.add(ns);
    }
    const granted = new Set([...(m.permissions || []), ...(m.optional_permissions || [])]);
    for (const ns of used) {
      if (NEEDS[ns]) assert.ok(granted.has(NEEDS[ns]), `${browser}: the code uses chrome.${ns}, the manifest grants no ${NEEDS[ns]}`);
    }
    assert.ok(used.has('userScripts') && used.has('scripting'), 'the scan found the namespaces the extension is known to use');
  });

  test(`${browser}: every file the manifest names exists`, () => {
    const files = filesOf(m);
    assert.ok(files.includes('popup.html') && files.includes('background.js'), `${browser}: ${files}`);
    for (const f of files) assert.ok(fs.existsSync(path.join(root, f)), `${browser}: the manifest names ${f}, which does not exist`);
  });

  test(`${browser}: pages reach only the note overlay, and extension pages talk only to the loopback daemon`, () => {
    assert.equal(m.manifest_version, 3);
    assert.deepEqual(m.web_accessible_resources.map((w) => w.resources), [['overlay/note.html']]);
    assert.deepEqual(m.host_permissions, ['http://127.0.0.1/*', '<all_urls>']);
    const csp = m.content_security_policy?.extension_pages || '';
    assert.match(csp, /script-src 'self'(;|$)/, `${browser}: ${csp}`);
    assert.match(csp, /connect-src http:\/\/127\.0\.0\.1:\*(;|$)/, `${browser}: ${csp}`);
    assert.equal(m.content_scripts, undefined, `${browser}: capture/declared.js registers the content scripts`);
  });
}

test('firefox: an event page of module scripts, a gecko ID, user scripts asked for at run time', () => {
  const m = manifestOf('firefox');
  assert.deepEqual(m.background, { scripts: ['background.js'], type: 'module' }, 'Firefox refuses background.service_worker');
  assert.equal(m.background.service_worker, undefined);
  assert.equal(m.browser_specific_settings?.gecko?.id, 'gasoline@gasoline-mcp', 'Firefox requires an ID for an MV3 add-on');
  assert.ok(Number.parseFloat(m.browser_specific_settings.gecko.strict_min_version) >= 128, 'the MAIN world needs Firefox 128');
  assert.ok(m.optional_permissions?.includes('userScripts'), 'Firefox grants userScripts only as an optional permission');
  assert.ok(!m.permissions.includes('userScripts'), 'under permissions Firefox silently leaves userScripts ungranted');
  assert.equal(m.key, undefined);
  assert.equal(m.minimum_chrome_version, undefined);
  for (const w of m.web_accessible_resources) assert.equal(w.use_dynamic_url, undefined, 'Firefox does not know use_dynamic_url');
});

test('chrome: a module service worker, user scripts granted at install, a fixed key', () => {
  const m = manifestOf('chrome');
  assert.deepEqual(m.background, { service_worker: 'background.js', type: 'module' });
  assert.ok(m.permissions.includes('userScripts'));
  assert.equal(m.browser_specific_settings, undefined);
  assert.ok(m.key, 'the key fixes the extension ID the daemon expects');
  // The rest is the same in both: Firefox's is Chrome's, rewritten.
  const ff = manifestOf('firefox');
  assert.deepEqual(ff.permissions, m.permissions.filter((p) => p !== 'userScripts'));
  for (const k of ['name', 'version', 'description', 'icons', 'host_permissions', 'action', 'content_security_policy']) assert.deepEqual(ff[k], m[k], k);
});
