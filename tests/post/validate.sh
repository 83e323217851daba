#!/usr/bin/env bash
# tests/post/validate.sh TOOL PLUGIN_DIR: zkpipe-tool validate over the build's plugin directory
# (every plugin: manifest, ELF, descriptor, self-test in a child process) exits 0 (a CUDA plugin
# without a GPU may be UNAVAILABLE) and lists window_post and winning_post as PASS.
set -uo pipefail
out=$("$1" validate --plugin-dir "$2" --allow-unavailable 2>&1)
rc=$?
printf '%s\n' "$out"
[[ $rc -eq 0 ]] || { echo "FAIL  validate exited $rc"; exit 1; }
for type in window_post winning_post; do
  if ! grep -qE " $type +proof_type +0\.1\.0 +[0-9]+\.[0-9]+ +PASS" <<<"$out"; then
    echo "FAIL  no PASS row for $type"
    exit 1
  fi
done
echo "PASS  window_post and winning_post validate"
