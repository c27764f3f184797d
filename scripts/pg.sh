#!/usr/bin/env bash
# A throwaway PostgreSQL server for the database tests: the machine's
# Debian PostgreSQL (the `postgresql` package the bootstrap installs), a
# cluster initialised in a folder of the caller's, listening on a free
# loopback port only (no Unix socket outside that folder), password
# authentication for TCP clients.
#
#   scripts/pg.sh start DIR      initialise DIR/data, start the server;
#                                prints HOST:PORT (also in DIR/endpoint)
#   scripts/pg.sh stop DIR       stop it (fast shutdown; waits)
#   scripts/pg.sh resume DIR     start a stopped server again, on its port
#   scripts/pg.sh sql DIR SQL    run SQL (psql, as the superuser, database
#                                "weir"); reads stdin when SQL is "-"
#
# The superuser is "weir" with the password "weir-test-pw"; the database
# "weir" exists. PostgreSQL refuses to run as root: as root the cluster
# belongs to the system's "postgres" user.
set -euo pipefail

USER_NAME=weir
PASSWORD=weir-test-pw

die() { echo "pg.sh: $*" >&2; exit 1; }

bindir() {
    local d
    for d in /usr/lib/postgresql/*/bin; do
        [ -x "$d/pg_ctl" ] && { echo "$d"; return 0; }
    done
    die "PostgreSQL is not installed (apt-get install postgresql; scripts/bootstrap.sh does)"
}

free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# as_owner CMD...: run as the cluster's owner.
as_owner() {
    if [ "$(id -u)" -eq 0 ]; then
        runuser -u postgres -- "$@"
    else
        "$@"
    fi
}

start() {
    local dir=$1 bin port
    bin=$(bindir)
    mkdir -p "$dir"
    dir=$(cd "$dir" && pwd -P)
    [ ! -f "$dir/data/postmaster.pid" ] || die "a server already runs for $dir"
    port=$(free_port)
    rm -rf "$dir/data" "$dir/run"
    mkdir -p "$dir/data" "$dir/run"
    printf '%s\n' "$PASSWORD" >"$dir/pwfile"
    if [ "$(id -u)" -eq 0 ]; then
        chown postgres "$dir" "$dir/data" "$dir/run" "$dir/pwfile"
        # The path to the folder must be traversable by that user.
        local p=$dir
        while [ "$p" != / ]; do chmod o+x "$p" 2>/dev/null || true; p=$(dirname "$p"); done
    fi
    as_owner "$bin/initdb" -D "$dir/data" -U "$USER_NAME" --pwfile="$dir/pwfile" \
        -A scram-sha-256 --auth-local=trust -E UTF8 --locale=C.UTF-8 \
        >"$dir/initdb.log" 2>&1 || { cat "$dir/initdb.log" >&2; die "initdb failed"; }
    as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
        -o "-c listen_addresses=127.0.0.1 -p $port -c unix_socket_directories=$dir/run -c fsync=off -c max_connections=50 -c shared_buffers=32MB" \
        start >/dev/null || { tail -20 "$dir/server.log" >&2; die "the server did not start"; }
    echo "$port" >"$dir/port"
    as_owner "$bin/psql" -h "$dir/run" -p "$port" -U "$USER_NAME" -d postgres \
        -v ON_ERROR_STOP=1 -q -c "CREATE DATABASE weir" >/dev/null
    echo "127.0.0.1:$port" | tee "$dir/endpoint"
}

resume() {
    local dir=$1 bin port
    bin=$(bindir)
    port=$(cat "$dir/port")
    as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
        -o "-c listen_addresses=127.0.0.1 -p $port -c unix_socket_directories=$dir/run -c fsync=off -c max_connections=50 -c shared_buffers=32MB" \
        start >/dev/null || { tail -20 "$dir/server.log" >&2; die "the server did not start"; }
}

stop() {
    local dir=$1 bin
    [ -f "$dir/data/postmaster.pid" ] || return 0
    bin=$(bindir)
    as_owner "$bin/pg_ctl" -D "$dir/data" -m fast -w -t 60 stop >/dev/null 2>&1 || true
}

sql() {
    local dir=$1 text=$2 bin
    bin=$(bindir)
    if [ "$text" = - ]; then
        as_owner "$bin/psql" -h "$dir/run" -p "$(cat "$dir/port")" -U "$USER_NAME" \
            -d weir -v ON_ERROR_STOP=1 -q -X -A -t
    else
        as_owner "$bin/psql" -h "$dir/run" -p "$(cat "$dir/port")" -U "$USER_NAME" \
            -d weir -v ON_ERROR_STOP=1 -q -X -A -t -c "$text"
    fi
}

case "${1:-}" in
    start) [ $# -eq 2 ] || die "usage: pg.sh start DIR"; start "$2" ;;
    stop) [ $# -eq 2 ] || die "usage: pg.sh stop DIR"; stop "$2" ;;
    resume) [ $# -eq 2 ] || die "usage: pg.sh resume DIR"; resume "$2" ;;
    sql) [ $# -eq 3 ] || die "usage: pg.sh sql DIR SQL"; sql "$2" "$3" ;;
    *) die "usage: pg.sh start|stop|resume|sql DIR ..." ;;
esac
