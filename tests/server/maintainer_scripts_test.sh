#!/usr/bin/env bash
# tests/server/maintainer_scripts_test.sh: the package's postinst, prerm and postrm
# (cmake/debian/) run as dpkg would run them on install, upgrade, remove and purge, inside a
# private mount namespace whose /etc, /var and /usr/lib/systemd/system are overlays that vanish
# with it: the host keeps no zkpipe user or state. Needs root, unshare and overlayfs (CTest runs
# it, label package, and it fails saying so without them). Checks: the system user and group zkpipe, /var/lib/zkpipe
# and its params/ owned by them (0750), the unit enabled but not started (no systemd as PID 1:
# no /run/systemd/system), a second configure (upgrade) changes nothing, remove masks the unit
# and leaves no dangling multi-user.target.wants link, an install after a remove enables the
# unit again, purge drops its state and the empty /var/lib/zkpipe. A few seconds.
set -euo pipefail

if [ "${1:-}" != --inside ]; then
  [ "$(id -u)" -eq 0 ] || { echo "maintainer_scripts_test: FAIL: needs root" >&2; exit 1; }
  [ ! -d /run/systemd/system ] ||
    { echo "maintainer_scripts_test: FAIL: systemd runs here; postinst would start zkpipe" >&2; exit 1; }
  exec timeout 60 unshare -m --propagation private "$0" --inside
fi

source_dir=$(cd "$(dirname "$0")/../.." && pwd)
scratch=$(mktemp -d)  # in the host's /tmp, outside the overlays
trap 'rm -rf "$scratch"' EXIT
fail() {
  echo "maintainer_scripts_test: FAIL: $*" >&2
  exit 1
}
for d in etc var usr/lib/systemd/system; do
  n=${d//\//_}
  mkdir -p "$scratch/$n.up" "$scratch/$n.work"
  mount -t overlay overlay -o "lowerdir=/$d,upperdir=$scratch/$n.up,workdir=$scratch/$n.work" "/$d"
done
! getent passwd zkpipe >/dev/null || fail "a user zkpipe exists already"
cp "$source_dir/configs/systemd/zkpipe.service" /lib/systemd/system/  # what dpkg unpacks
export DPKG_MAINTSCRIPT_PACKAGE=zkpipe  # deb-systemd-helper runs only under dpkg
run() { DPKG_MAINTSCRIPT_NAME=$1 "$source_dir/cmake/debian/$1" "${@:2}"; }

echo "== postinst configure (first install)"
run postinst configure
[ "$(getent passwd zkpipe | cut -d: -f6,7)" = /var/lib/zkpipe:/usr/sbin/nologin ] ||
  fail "zkpipe user: $(getent passwd zkpipe)"
[ "$(id -gn zkpipe)" = zkpipe ] || fail "zkpipe's group is $(id -gn zkpipe)"
for d in /var/lib/zkpipe /var/lib/zkpipe/params; do
  [ "$(stat -c '%U:%G %a' "$d")" = "zkpipe:zkpipe 750" ] || fail "$d: $(stat -c '%U:%G %a' "$d")"
done
wants=/etc/systemd/system/multi-user.target.wants/zkpipe.service
[ -L "$wants" ] || fail "zkpipe.service is not enabled ($wants)"

echo "== postinst configure 0.1.0 (upgrade)"
before=$(getent passwd zkpipe)
run postinst configure 0.1.0
[ "$(getent passwd zkpipe)" = "$before" ] || fail "the upgrade changed the user"
[ -L "$wants" ] || fail "the upgrade disabled zkpipe.service"

echo "== prerm remove, postrm remove"
run prerm remove
rm /lib/systemd/system/zkpipe.service  # what dpkg removes
run postrm remove
[ "$(readlink /etc/systemd/system/zkpipe.service)" = /dev/null ] || fail "remove did not mask zkpipe.service"
[ ! -L "$wants" ] || fail "remove left the dangling link $wants"

echo "== postinst configure (installed again after remove)"
cp "$source_dir/configs/systemd/zkpipe.service" /lib/systemd/system/
run postinst configure
[ ! -e /etc/systemd/system/zkpipe.service ] || fail "the install again left the mask"
[ -L "$wants" ] && [ -e "$wants" ] || fail "the install again did not enable zkpipe.service as it was"
run prerm remove
rm /lib/systemd/system/zkpipe.service
run postrm remove
[ ! -L "$wants" ] || fail "the second remove left the dangling link $wants"

echo "== postrm purge"
run postrm purge
[ ! -e /etc/systemd/system/zkpipe.service ] || fail "purge left the mask"
[ ! -e "$wants" ] || fail "purge left $wants"
[ ! -e /var/lib/zkpipe ] || fail "purge left the empty /var/lib/zkpipe"
getent passwd zkpipe >/dev/null || fail "purge removed the user (Debian keeps system users)"
echo "maintainer_scripts_test: PASS"
