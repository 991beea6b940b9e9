#!/usr/bin/env bash
# Runs each fuzz target for a fixed number of executions and reports every
# failure at the end, so one failing target does not hide the ones after it.
#
#   scripts/fuzz.sh FUZZTIME pkg:Target [pkg:Target ...]
#
# FUZZTIME is an execution count such as 20000x: a count, unlike a duration,
# does not make the Go fuzz runner fail with a bare "context deadline
# exceeded" when a busy machine starves its workers.
set -uo pipefail
fuzztime=$1
shift
failed=()
for spec in "$@"; do
  pkg=${spec%%:*}
  target=${spec##*:}
  echo "fuzz $target ($pkg, $fuzztime)"
  if ! go test -run '^$' -fuzz "^${target}\$" -fuzztime "$fuzztime" -parallel 2 "$pkg"; then
    failed+=("$target")
  fi
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz targets failed: ${failed[*]}" >&2
  exit 1
fi
echo "all ${#} fuzz targets passed"
