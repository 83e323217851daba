#!/usr/bin/env bash
# Runs a command against a throw-away PostgreSQL cluster: pg_virtualenv (postgresql-common)
# creates it, exports PGHOST/PGPORT/PGUSER/PGPASSWORD/PGDATABASE, runs the command and drops the
# cluster (-t: in a temporary directory, so runs never collide). Fails (never skips) when no server can be started. As root, pg_virtualenv runs the
# server as the postgres user; the command itself runs as the caller.
# Usage: tests/store/with_postgres.sh COMMAND [ARGS...]
set -euo pipefail
if ! command -v pg_virtualenv >/dev/null; then
  echo "with_postgres: pg_virtualenv not found: install postgresql and postgresql-common" \
       "(scripts/setup does)" >&2
  exit 1
fi
exec pg_virtualenv -t -- "$@"
