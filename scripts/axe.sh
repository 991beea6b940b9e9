#!/usr/bin/env bash
# Refreshes the accessibility audit's axe-core (extension/audit/axe.min.js)
# from the npm package, at the version npm serves (or $AXE_VERSION), and
# pins it: extension/audit/axe.json records its version and SHA-256, which
# extension/test/axe-pin.test.js checks the file against.
set -euo pipefail
cd "$(dirname "$0")/.."
version="${AXE_VERSION:-latest}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
echo "Fetching axe-core@$version with npm pack"
(cd "$tmp" && npm pack "axe-core@$version" --silent >/dev/null && tar xzf axe-core-*.tgz)
got="$(node -p "require('$tmp/package/package.json').version")"
cp "$tmp/package/axe.min.js" extension/audit/axe.min.js
sum="$(node -e "process.stdout.write(require('crypto').createHash('sha256').update(require('fs').readFileSync('extension/audit/axe.min.js')).digest('hex'))")"
printf '{\n  "version": "%s",\n  "sha256": "%s"\n}\n' "$got" "$sum" > extension/audit/axe.json
echo "extension/audit/axe.min.js is axe-core $got (sha256 $sum): set AXE_PIN in extension/test/axe-pin.test.js to it, then run node --test extension/test/ and the e2e TestAccessibility"
