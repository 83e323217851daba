#!/usr/bin/env bash
# tests/post/no_engine_names.sh SOURCE_DIR: the PoSt proof types are plugins the engine and the
# programs know nothing of: fails, listing the files, when any file under engine/ or apps/ names
# window_post or winning_post (any case, with or without the underscore). Not counted: the
# Filecoin library (engine/filecoin, zkpipe/filecoin/), an SDK library that defines Filecoin's own
# Window and Winning PoSt (their public inputs); it names no plugin and the pipeline does not use it.
set -uo pipefail
cd "$1" || exit 2
[[ -d engine && -d apps ]] || { echo "no engine/ or apps/ in $1" >&2; exit 2; }
files=$(grep -rliE --exclude-dir=filecoin 'window_?post|winning_?post' engine apps)
rc=$?
if [[ $rc -eq 0 ]]; then
  echo "FAIL  these engine/app files name a PoSt proof type:"
  grep -HniE 'window_?post|winning_?post' $files | sed 's/^/        /'
  exit 1
fi
[[ $rc -eq 1 ]] || { echo "grep failed (exit $rc)" >&2; exit 2; }
echo "PASS  no file under engine/ or apps/ names window_post or winning_post"
