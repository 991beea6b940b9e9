#!/usr/bin/env node
// Starts gasoline from the npm package of this platform: with no argument
// (what an MCP client runs: `npx -y gasoline-browser-mcp`) the stdio bridge
// gasoline-mcp, whose standard streams are the protocol; with a gasoline
// command (`npx gasoline-browser-mcp doctor`, `... extension install`,
// `... pair`) the gasoline command line. Nothing is downloaded: the binaries
// come in the optional dependency npm picked for this os and cpu.
'use strict';

const { spawn } = require('node:child_process');
const path = require('node:path');

const PKG = 'gasoline-browser-mcp';
const PLATFORMS = ['linux-x64', 'linux-arm64', 'darwin-x64', 'darwin-arm64', 'win32-x64'];
// The gasoline commands; anything else (flags such as --port included)
// goes to the bridge.
const COMMANDS = new Set([
  'config', 'daemon', 'doctor', 'extension', 'logs', 'pair', 'unpair', 'version',
  'help', 'completion', '--help', '-h', '--version',
]);

function binDir() {
  const platform = `${process.platform}-${process.arch}`;
  const name = `${PKG}-${platform}`;
  try {
    return path.join(path.dirname(require.resolve(`${name}/package.json`)), 'bin');
  } catch {
    const why = PLATFORMS.includes(platform)
      ? `${name} is not installed: npm skips optional dependencies with --omit=optional or --no-optional; install again without it`
      : `gasoline has no build for ${platform} (there are builds for ${PLATFORMS.join(', ')})`;
    process.stderr.write(`${PKG}: ${why}\n`);
    process.exit(1);
  }
}

const args = process.argv.slice(2);
const program = args.length > 0 && COMMANDS.has(args[0]) ? 'gasoline' : 'gasoline-mcp';
const exe = path.join(binDir(), program + (process.platform === 'win32' ? '.exe' : ''));
const child = spawn(exe, args, {
  stdio: 'inherit',
  env: { ...process.env, GASOLINE_NPM_PACKAGE: PKG },
});
const signals = ['SIGINT', 'SIGTERM', 'SIGHUP'];
for (const sig of signals) process.on(sig, () => child.kill(sig));
child.on('error', (err) => {
  process.stderr.write(`${PKG}: starting ${exe}: ${err.message}\n`);
  process.exit(1);
});
child.on('exit', (code, signal) => {
  if (signal) {
    for (const sig of signals) process.removeAllListeners(sig);
    process.kill(process.pid, signal);
    return;
  }
  process.exit(code ?? 1);
});
