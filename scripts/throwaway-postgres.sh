# Sourced by test.sh and bench/run.sh (which define `step`): `start_postgres` installs PostgreSQL
# from Debian packages when missing (saying so first), starts a throwaway cluster with trust auth
# on a free port from 55432 under /tmp, creates the database `flicker_test`, exports
# FLICKER_TEST_POSTGRES_URL (that database) and FLICKER_POSTGRES_ADMIN_URL (the `postgres`
# database, for creating others), and stops and removes the cluster when the shell exits.
start_postgres() {
  local initdb
  initdb=$(ls /usr/lib/postgresql/*/bin/initdb 2>/dev/null | sort -V | tail -n 1 || true)
  if [ -z "$initdb" ]; then
    step "PostgreSQL is not installed: installing it from Debian packages (apt-get install postgresql)"
    if [ "$(id -u)" = 0 ]; then
      apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
    else
      sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
    fi
    initdb=$(ls /usr/lib/postgresql/*/bin/initdb | sort -V | tail -n 1)
  fi
  local bin port
  bin=$(dirname "$initdb")
  PGDATA_DIR=$(mktemp -d /tmp/flicker-pg.XXXXXX)
  port=55432
  while (echo > /dev/tcp/127.0.0.1/$port) 2>/dev/null; do port=$((port + 1)); done
  local as=()
  if [ "$(id -u)" = 0 ]; then
    chown postgres:postgres "$PGDATA_DIR"
    as=(su postgres -s /bin/bash -c)
  else
    as=(bash -c)
  fi
  step "starting a throwaway PostgreSQL ($bin) on 127.0.0.1:$port"
  "${as[@]}" "$bin/initdb -D $PGDATA_DIR -U postgres --auth=trust -E UTF8 --locale=C.UTF-8 >/dev/null"
  "${as[@]}" "$bin/pg_ctl -D $PGDATA_DIR -l $PGDATA_DIR/server.log -o '-c listen_addresses=127.0.0.1 -p $port -k /tmp -c max_connections=300' -w start >/dev/null"
  PG_STOP=("${as[@]}" "$bin/pg_ctl -D $PGDATA_DIR -m fast stop >/dev/null")
  trap stop_postgres EXIT
  "$bin/psql" -h 127.0.0.1 -p "$port" -U postgres -qc 'CREATE DATABASE flicker_test' >/dev/null
  export FLICKER_TEST_POSTGRES_URL="postgres://postgres@127.0.0.1:$port/flicker_test"
  export FLICKER_POSTGRES_ADMIN_URL="postgres://postgres@127.0.0.1:$port/postgres"
}
stop_postgres() {
  if [ -n "${PGDATA_DIR:-}" ]; then
    "${PG_STOP[@]}" || true
    rm -rf "$PGDATA_DIR"
  fi
}

