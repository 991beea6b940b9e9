#!/usr/bin/env bash
# Prints how to point an MCP client at the gasoline-mcp bridge given as $1.
set -euo pipefail
bridge="${1:?usage: agent-config.sh /abs/path/to/gasoline-mcp}"
cat <<TXT

Connect your agent to gasoline (the bridge starts the daemon by itself if it is not running):

  Claude Code:  claude mcp add gasoline -- "$bridge"

  Cursor (~/.cursor/mcp.json) / VS Code (.vscode/mcp.json uses "servers" instead of "mcpServers"):
    { "mcpServers": { "gasoline": { "command": "$bridge" } } }

Then load the extension (README, "Load the extension") and run: bin/gasoline pair
TXT
