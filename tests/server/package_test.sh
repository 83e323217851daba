#!/usr/bin/env bash
# tests/server/package_test.sh BUILD_DIR: the Debian package end to end, without installing it.
# `cpack -G DEB` in BUILD_DIR (into a temp dir), its file list and control fields (dpkg-deb -c,
# -f, -e), then the files extracted (dpkg-deb -x) into a temp root: the installed zkpipe and
# zkpipe-tool run from there, find the installed plugins from their own location
# (<binary>/../lib/zkpipe/plugins; ZKPIPE_PLUGIN_DIR unset), validate the plugins and the shipped
# configs, prove one tiny PoRep request and run `zkpipe serve` as the unit does (status, SIGHUP,
# SIGTERM: exit 0). `systemd-analyze verify` checks the extracted unit offline against that root
# (systemd is not PID 1 here; no unit is started). Needs cpack ($CPACK, else on PATH), dpkg-deb
# and dpkg-shlibdeps (dpkg-dev), systemd-analyze (systemd): scripts/setup installs them.
# About 16 s on 2 idle cores, 20 s the first time (the proof's params, then kept in BUILD_DIR);
# each step runs under a timeout.
set -euo pipefail

if [ $# -ne 1 ]; then
  echo "usage: $0 BUILD_DIR" >&2
  exit 2
fi
build=$(cd "$1" && pwd)
source_dir=$(cd "$(dirname "$0")/../.." && pwd)
cpack=${CPACK:-cpack}
tmp=$(mktemp -d)
serve_pid=
trap '[ -z "$serve_pid" ] || kill -KILL "$serve_pid" 2>/dev/null; rm -rf "$tmp"' EXIT
trap 'echo "package_test: FAIL: line $LINENO: $BASH_COMMAND exited $?" >&2' ERR
unset ZKPIPE_PLUGIN_DIR

fail() {
  echo "package_test: FAIL: $*" >&2
  exit 1
}
step() { echo "== [${SECONDS}s] $*"; }
for tool in "$cpack" dpkg-deb dpkg-shlibdeps systemd-analyze timeout; do
  command -v "$tool" >/dev/null || fail "$tool not found (scripts/setup installs it)"
done

version=$(sed -n 's/^CMAKE_PROJECT_VERSION:STATIC=//p' "$build/CMakeCache.txt")
[ -n "$version" ] || fail "no CMAKE_PROJECT_VERSION in $build/CMakeCache.txt"
arch=$(dpkg --print-architecture)
deb=$tmp/out/zkpipe_${version}_${arch}.deb

step "cpack -G DEB in $build"
(cd "$build" && timeout 120 "$cpack" -G DEB -B "$tmp/out" >"$tmp/cpack.log" 2>&1) ||
  { cat "$tmp/cpack.log" >&2; fail "cpack -G DEB failed"; }
[ -f "$deb" ] || { ls "$tmp/out" >&2; fail "cpack did not write $(basename "$deb")"; }

step "contents (dpkg-deb -c)"
dpkg-deb -c "$deb" >"$tmp/contents"
awk '{print $6}' "$tmp/contents" | sed 's|^\./|/|; s|/$||' | sort >"$tmp/paths"
expect=(/usr/bin/zkpipe /usr/bin/zkpipe-tool /lib/systemd/system/zkpipe.service
        /etc/zkpipe/zkpipe.yaml /usr/share/zkpipe/configs/README.md
        /usr/include/zkpipe/sdk/sdk.h /usr/include/zkpipe/sdk/abi/common.h
        /usr/include/zkpipe/sdk/proof_type_plugin.h /usr/include/zkpipe/sector/shape.h
        /usr/share/doc/zkpipe/copyright /usr/share/doc/zkpipe/changelog.gz)
for p in pageable pinned_pool zero_copy porep snapdeals; do
  expect+=("/usr/lib/zkpipe/plugins/$p.so" "/usr/lib/zkpipe/plugins/$p.plugin.toml")
done
for c in "$source_dir"/configs/*.yaml; do
  expect+=("/usr/share/zkpipe/configs/$(basename "$c")")
done
for p in "${expect[@]}"; do
  grep -qxF "$p" "$tmp/paths" || fail "$p is not in the package"
done
for b in zkpipe zkpipe-tool; do
  grep -qE "^-rwxr-xr-x .* \./usr/bin/$b\$" "$tmp/contents" || fail "/usr/bin/$b is not mode 0755"
done
# Nothing outside the package's places (no test plugins, no build paths).
if grep -vE '^(|/etc|/lib|/lib/systemd|/usr|/usr/lib|/usr/share|/usr/share/doc|/usr/include)$|^/usr/bin(/|$)|^/usr/include/zkpipe(/|$)|^/usr/lib/zkpipe(/|$)|^/usr/share/zkpipe(/|$)|^/usr/share/doc/zkpipe(/|$)|^/etc/zkpipe(/|$)|^/lib/systemd/system(/|$)' \
    "$tmp/paths" >"$tmp/stray"; then
  cat "$tmp/stray" >&2
  fail "files outside /usr/{bin,include/zkpipe,lib/zkpipe,share/zkpipe,share/doc/zkpipe}, /etc/zkpipe, /lib/systemd/system"
fi
# Every plugin has its manifest and every manifest its plugin.
diff <(grep -E '^/usr/lib/zkpipe/plugins/[^/]+\.so$' "$tmp/paths" | sed 's/\.so$//') \
     <(grep -E '^/usr/lib/zkpipe/plugins/[^/]+\.plugin\.toml$' "$tmp/paths" | sed 's/\.plugin\.toml$//') ||
  fail "plugins and manifests in /usr/lib/zkpipe/plugins do not pair up"

step "control fields (dpkg-deb -f, -e)"
field() { dpkg-deb -f "$deb" "$1"; }
[ "$(field Package)" = zkpipe ] || fail "Package: $(field Package)"
[ "$(field Version)" = "$version" ] || fail "Version: $(field Version), expected $version"
[ "$(field Architecture)" = "$arch" ] || fail "Architecture: $(field Architecture)"
[ -n "$(field Maintainer)" ] || fail "no Maintainer"
[ -n "$(field Section)" ] || fail "no Section"
depends=$(field Depends)
echo "Depends: $depends"
# Depends' package names, one a line (alternatives split, versions dropped).
sed 's/^ *//; s/ .*//' <<<"${depends//[,|]/$'\n'}" >"$tmp/depends"
# libjs-chart.js and adduser by hand; the rest from dpkg-shlibdeps (the binaries' libraries).
for d in libjs-chart.js adduser libc6 libstdc++6 libyaml-cpp0.7 libssl3; do
  grep -qxF "$d" "$tmp/depends" || fail "Depends lacks $d"
done
dpkg-deb -e "$deb" "$tmp/control"
[ "$(cat "$tmp/control/conffiles")" = /etc/zkpipe/zkpipe.yaml ] ||
  fail "conffiles: '$(cat "$tmp/control/conffiles")', expected /etc/zkpipe/zkpipe.yaml"
for s in postinst prerm postrm; do
  [ -x "$tmp/control/$s" ] || fail "no executable $s"
  sh -n "$tmp/control/$s" || fail "$s: sh syntax error"
done

step "extract (dpkg-deb -x) and run from the installed paths"
root=$tmp/root
dpkg-deb -x "$deb" "$root"
# Debian policy's /usr/share/doc/zkpipe: a machine-readable copyright file, and a changelog
# (gzip -9n) whose newest entry is this version.
head -1 "$root/usr/share/doc/zkpipe/copyright" |
  grep -qx 'Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/' ||
  fail "/usr/share/doc/zkpipe/copyright is not in the copyright format 1.0"
gzip -dc "$root/usr/share/doc/zkpipe/changelog.gz" >"$tmp/changelog"
[ "$(dpkg-parsechangelog -l "$tmp/changelog" -S Version)" = "$version" ] ||
  fail "changelog.gz's newest entry is $(dpkg-parsechangelog -l "$tmp/changelog" -S Version), not $version"
cmp "$root/etc/zkpipe/zkpipe.yaml" "$source_dir/configs/zkpipe.yaml" ||
  fail "/etc/zkpipe/zkpipe.yaml differs from configs/zkpipe.yaml"
# Every library an ELF file of the package links (NEEDED) is in Depends: its package, or a
# name that package Provides (libspdlog1.10 provides libspdlog1.10-fmt9, its shlibs name).
for f in "$root"/usr/bin/* "$root"/usr/lib/zkpipe/plugins/*.so; do
  readelf -d "$f" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'
done | sort -u >"$tmp/needed"
[ -s "$tmp/needed" ] || fail "readelf found no NEEDED libraries"
ldconfig -p >"$tmp/ldcache"  # files, not pipes into awk/grep that stop early (pipefail)
while read -r so; do
  lib=$(awk -v so="$so" '$1 == so {print $NF; exit}' "$tmp/ldcache")
  [ -n "$lib" ] || fail "$so (NEEDED) is not in the ld.so cache"
  echo "$so $lib"
done <"$tmp/needed" >"$tmp/needed-paths"
# One dpkg -S for all (it is slow); a path it does not know is retried by its real path.
mapfile -t lib_paths < <(awk '{print $2}' "$tmp/needed-paths")
dpkg -S "${lib_paths[@]}" 2>/dev/null >"$tmp/owners" || true
while read -r so lib; do
  owner=$(awk -v lib="$lib" '$NF == lib {print $1; exit}' "$tmp/owners")
  if [ -z "$owner" ]; then
    owner=$(dpkg -S "$(realpath "$lib")" 2>/dev/null | head -c 4096 | awk 'NR == 1 {print $1}') ||
      true
  fi
  [ -n "$owner" ] || fail "$so ($lib): no package owns it"
  owner=${owner%%:*}
  names=$(printf '%s\n%s\n' "$owner" "$(dpkg-query -W -f='${Provides}' "$owner" | tr ',' '\n' |
    sed 's/^ *//; s/ .*//')")
  grep -qxFf <(echo "$names") "$tmp/depends" ||
    fail "Depends lacks $owner (for $so): did dpkg-shlibdeps run?"
done <"$tmp/needed-paths"
zkpipe=$root/usr/bin/zkpipe
tool=$root/usr/bin/zkpipe-tool
out=$(timeout 20 "$zkpipe" --version) || fail "zkpipe --version failed"
[[ "$out" == "zkpipe $version "* ]] || fail "zkpipe --version: '$out'"
timeout 20 "$tool" --version >/dev/null || fail "zkpipe-tool --version failed"
timeout 120 "$tool" validate --allow-unavailable --plugin-dir "$root/usr/lib/zkpipe/plugins" \
  >"$tmp/validate.txt" || { cat "$tmp/validate.txt" >&2; fail "zkpipe-tool validate --plugin-dir"; }
for p in pageable pinned_pool zero_copy porep snapdeals; do
  grep -qE "^\S+ +$p " "$tmp/validate.txt" || { cat "$tmp/validate.txt" >&2; fail "validate: no row for $p"; }
done
# The configs' plugins, found from the binary's location alone.
timeout 120 "$tool" validate --allow-unavailable "$root"/usr/share/zkpipe/configs/*.yaml \
  "$root/etc/zkpipe/zkpipe.yaml" >"$tmp/validate-configs.txt" ||
  { cat "$tmp/validate-configs.txt" >&2; fail "zkpipe-tool validate of the installed configs"; }
# ...and from nowhere else: without the installed plugin directory the same check fails.
mv "$root/usr/lib/zkpipe/plugins" "$root/usr/lib/zkpipe/plugins.away"
if timeout 60 "$tool" validate --allow-unavailable "$root/usr/share/zkpipe/configs/cpu.yaml" \
    >"$tmp/validate-away.txt" 2>&1; then
  cat "$tmp/validate-away.txt" >&2
  fail "validate passed without /usr/lib/zkpipe/plugins: plugins came from elsewhere"
fi
mv "$root/usr/lib/zkpipe/plugins.away" "$root/usr/lib/zkpipe/plugins"

step "prove a tiny porep request with the installed zkpipe, plugins and cpu.yaml"
# The tiny shape (2 partitions). Its params are made once by the development setup (13 s of
# CPU) into the build's shared test params (BUILD_DIR/tests/params: the golden, memory and
# interop tests use them too, and whichever comes first makes them under the params lock):
# --params-dir, so nothing is written next to the installed config.
params=$build/tests/params
mkdir -p "$params"
(cd "$tmp" && timeout 60 "$tool" proof-type porep seal --shape tiny --seed package-test \
    --out tiny.sector >/dev/null &&
  timeout 60 "$tool" proof-type porep vanilla --sector tiny.sector --challenge-seed package-test \
    --out porep.vanilla >/dev/null) || fail "zkpipe-tool proof-type porep seal / vanilla"
timeout 240 "$zkpipe" prove --config "$root/usr/share/zkpipe/configs/cpu.yaml" \
  --params-dir "$params" --proof porep --input "$tmp/porep.vanilla" --out "$tmp/porep.proof" \
  >"$tmp/prove.log" 2>&1 || { rc=$?; tail -30 "$tmp/prove.log" >&2; fail "zkpipe prove: exit $rc"; }
# --out is written only when every partition verified.
[ -s "$tmp/porep.proof" ] || { cat "$tmp/prove.log" >&2; fail "prove exited 0 but wrote no proof"; }

step "zkpipe serve as zkpipe.service runs it: ExecStart, then ExecReload's SIGHUP, then SIGTERM"
# The unit's command line and config, with the socket in the temp dir instead of /run/zkpipe,
# no HTTP listener (no port to collide on) and the params dir above.
sock=$tmp/zkpipe.sock
"$zkpipe" serve --config "$root/etc/zkpipe/zkpipe.yaml" --params-dir "$params" \
  --listen "unix://$sock" --http '' >"$tmp/serve.log" 2>&1 &
serve_pid=$!
serving() { timeout 10 "$zkpipe" status --addr "unix://$sock" >"$tmp/status.txt" 2>&1; }
for _ in $(seq 100); do
  serving && break
  kill -0 "$serve_pid" 2>/dev/null || break
  sleep 0.1
done
serving || { cat "$tmp/serve.log" "$tmp/status.txt" >&2; fail "zkpipe serve: no status on $sock"; }
kill -HUP "$serve_pid"
sleep 0.3
serving || { cat "$tmp/serve.log" >&2; fail "zkpipe serve stopped serving after SIGHUP"; }
kill -TERM "$serve_pid"
for _ in $(seq 300); do
  kill -0 "$serve_pid" 2>/dev/null || break
  sleep 0.1
done
if kill -0 "$serve_pid" 2>/dev/null; then
  cat "$tmp/serve.log" >&2
  fail "zkpipe serve still running 30 s after SIGTERM with nothing in flight"
fi
serve_rc=0
wait "$serve_pid" || serve_rc=$?
serve_pid=
[ "$serve_rc" -eq 0 ] || { cat "$tmp/serve.log" >&2; fail "zkpipe serve: exit $serve_rc after SIGTERM"; }

step "systemd-analyze verify of the extracted unit (offline, --root)"
# The root is the extracted package plus what the unit names from outside it: the host's
# units (sysinit.target, network.target, ...) and /bin/kill (ExecReload). Then verify resolves
# ExecStart=/usr/bin/zkpipe inside the package. Its warnings (an unknown key, a bad value) do
# not change its exit status, so any output fails. It does not check that User= exists
# (postinst creates zkpipe).
mkdir -p "$root/usr/lib/systemd" "$root/bin"
cp -a /lib/systemd/system "$root/usr/lib/systemd/"
cp /bin/kill "$root/bin/kill"
unit=$root/lib/systemd/system/zkpipe.service
grep -qx 'ExecStart=/usr/bin/zkpipe serve --config /etc/zkpipe/zkpipe.yaml' "$unit" ||
  fail "zkpipe.service: unexpected ExecStart"
if ! timeout 30 systemd-analyze verify --man=no --root="$root" "$unit" >"$tmp/verify.txt" 2>&1 ||
    [ -s "$tmp/verify.txt" ]; then
  cat "$tmp/verify.txt" >&2
  fail "systemd-analyze verify zkpipe.service"
fi

echo "package_test: PASS ($(basename "$deb"), $(stat -c %s "$deb") bytes)"
