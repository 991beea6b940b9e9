// The MAIN-world capture's modules (capture/main/), the recorder's
// (capture/record/, entry capture/record.js) and the relay's
// (capture/relay/, entry capture/relay.js): small functions, as the style
// asks of the extension, each module used by an entry (full.js at work,
// lean.js idle; record.js; relay.js), and the lean entry without what it
// leaves out.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';

const dir = new URL('../capture/main/', import.meta.url);
const files = fs.readdirSync(dir).filter((f) => f.endsWith('.js'));
const read = (f) => fs.readFileSync(new URL(f, dir), 'utf8');

/** MAX_LINES is the most lines a function of capture/main/ (from its first line to its closing brace) may take. */
const MAX_LINES = 80;

/** tooLong fails for a top-level function of the source file (named name) over MAX_LINES lines. */
function tooLong(name, src) {
  const lines = src.split('\n');
  // A module's functions (and an IIFE) are written at its top level: each
  // opens in column 0 and closes with a "}" there (the nested ones are inside).
  let open = -1;
  lines.forEach((l, i) => {
    if (open < 0 && /^(export )?(async )?function |^(export )?const \w+ = (\(.*\)|\w+) => \{$|^\((function|\(\) =>)/.test(l)) open = i;
    else if (open >= 0 && /^\}/.test(l)) {
      assert.ok(i - open + 1 <= MAX_LINES, `${name}:${open + 1} ${lines[open].trim()} is ${i - open + 1} lines: split it`);
      open = -1;
    }
  });
  assert.equal(open, -1, `${name}: a function at line ${open + 1} does not close in column 0`);
}

/** entryOf reads the ISOLATED-world entry name (capture/NAME.js) and its modules (capture/NAME/). */
function entryOf(name) {
  const dir = new URL(`../capture/${name}/`, import.meta.url);
  const files = fs.readdirSync(dir).filter((f) => f.endsWith('.js'));
  const read = (f) => fs.readFileSync(new URL(f, dir), 'utf8');
  return { files, read, entry: fs.readFileSync(new URL(`../capture/${name}.js`, import.meta.url), 'utf8') };
}

for (const name of ['record', 'relay']) {
  const { files: mods, read: readMod, entry } = entryOf(name);

  test(`no function of capture/${name}.js and capture/${name}/ is over MAX_LINES lines`, () => {
    tooLong(`capture/${name}.js`, entry);
    for (const f of mods) tooLong(`capture/${name}/${f}`, readMod(f));
  });

  test(`every module of capture/${name}/ is bundled: ${name}.js imports what it needs`, () => {
    const seen = new Set();
    const imports = (src, re) => {
      for (const [, dep] of src.matchAll(re)) {
        if (seen.has(dep)) continue;
        seen.add(dep);
        imports(readMod(dep), /^import .* from '\.\/([\w-]+\.js)';$/gm);
      }
    };
    imports(entry, new RegExp(`^import .* from '\\./${name}/([\\w-]+\\.js)';$`, 'gm'));
    for (const f of mods) {
      assert.ok(seen.has(f), `capture/${name}/${f} is not imported by capture/${name}.js`);
      assert.doesNotMatch(readMod(f), /^import \* as /m, `capture/${name}/${f}: a namespace import makes esbuild add helpers`);
    }
  });
}

test('no function of capture/main/ is over MAX_LINES lines', () => {
  for (const f of files) tooLong(`capture/main/${f}`, read(f));
});

test('every module of capture/main/ is bundled: the entries import what they need', () => {
  const imports = (f, seen = new Set()) => {
    if (seen.has(f)) return seen;
    seen.add(f);
    for (const [, dep] of read(f).matchAll(/^import .* from '\.\/([\w-]+\.js)';$/gm)) imports(dep, seen);
    return seen;
  };
  const full = imports('full.js');
  const lean = imports('lean.js');
  for (const f of files) assert.ok(full.has(f) || lean.has(f), `capture/main/${f} is imported by neither full.js nor lean.js`);
  for (const f of ['websocket.js', 'vitals.js']) {
    assert.ok(full.has(f), `full.js does not import ${f}`);
    assert.ok(!lean.has(f), `lean.js imports ${f}, which the lean capture leaves out`);
  }
  for (const f of files) {
    assert.doesNotMatch(read(f), /^import \* as /m, `capture/main/${f}: a namespace import makes esbuild add helpers that call the page's built-ins`);
  }
});
