# tests/interop/snarkjs.sh: sourced by the scripts that check proofs with snarkjs
# (tests/interop/run.sh, tests/sdk_plugin/run_proof_type.sh). ensure_snarkjs BUILD_DIR installs
# snarkjs $SNARKJS_VERSION with npm into BUILD_DIR/interop/npm unless that version is there (one
# installer at a time: flock), sets SNARKJS_BIN, and returns 1 saying why when node or npm is
# missing or the install fails: a check that needs snarkjs fails without it, never skips.
SNARKJS_VERSION=0.7.6

ensure_snarkjs() {
  local cache="$1/interop"
  local npm_dir="$cache/npm"
  SNARKJS_BIN="$npm_dir/node_modules/.bin/snarkjs"
  local cmd
  for cmd in node npm flock; do
    if ! command -v "$cmd" >/dev/null 2>&1; then
      echo "snarkjs: '$cmd' is not installed; these checks need Node.js and npm" \
        "(scripts/setup installs nodejs and npm)" >&2
      return 1
    fi
  done
  mkdir -p "$cache"
  (
    flock 9
    local installed
    installed=$(node -p "require('$npm_dir/node_modules/snarkjs/package.json').version" \
      2>/dev/null || true)
    if [[ "$installed" != "$SNARKJS_VERSION" ]]; then
      echo "snarkjs: installing snarkjs@$SNARKJS_VERSION into $npm_dir"
      mkdir -p "$npm_dir"
      if ! npm install --prefix "$npm_dir" --no-audit --no-fund --loglevel=error \
        "snarkjs@$SNARKJS_VERSION" >"$cache/npm-install.log" 2>&1; then
        echo "snarkjs: npm install snarkjs@$SNARKJS_VERSION failed (log: $cache/npm-install.log)" >&2
        tail -5 "$cache/npm-install.log" >&2
        exit 1
      fi
    fi
  ) 9>"$cache/npm.lock" || return 1
  [[ -x "$SNARKJS_BIN" ]] || { echo "snarkjs: $SNARKJS_BIN is missing after the install" >&2; return 1; }
}
