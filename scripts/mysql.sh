#!/usr/bin/env bash
# A throwaway MariaDB server (MySQL's protocol) for the database tests:
# the machine's Debian MariaDB (the `mariadb-server` package the bootstrap
# installs; the Debian service itself is never used), a data folder of the
# caller's, listening on a free loopback port only, its socket inside
# that folder.
#
#   scripts/mysql.sh start DIR     initialise DIR/data, start the server;
#                                  prints HOST:PORT (also in DIR/endpoint)
#   scripts/mysql.sh stop DIR      stop it (and wait)
#   scripts/mysql.sh sql DIR SQL   run SQL as root in database "weir"
#                                  (tab-separated, no headers); "-" reads
#                                  stdin
#
# The user "weir" with the password "weir-test-pw" may do anything from
# 127.0.0.1; the database "weir" exists.
set -euo pipefail

USER_NAME=weir
PASSWORD=weir-test-pw

die() { echo "mysql.sh: $*" >&2; exit 1; }

command -v mariadbd >/dev/null 2>&1 || [ -x /usr/sbin/mariadbd ] \
    || die "MariaDB is not installed (apt-get install mariadb-server; scripts/bootstrap.sh does)"
server=$(command -v mariadbd || echo /usr/sbin/mariadbd)

free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

client() {
    local dir=$1; shift
    mariadb --no-defaults -S "$dir/mysqld.sock" -u root "$@"
}

start() {
    local dir=$1 port
    mkdir -p "$dir"
    dir=$(cd "$dir" && pwd -P)
    [ ! -f "$dir/pid" ] || ! kill -0 "$(cat "$dir/pid")" 2>/dev/null \
        || die "a server already runs for $dir"
    rm -rf "$dir/data"
    mkdir -p "$dir/data" "$dir/tmp"
    local me
    me=$(id -un)
    mariadb-install-db --no-defaults --datadir="$dir/data" --user="$me" \
        --auth-root-authentication-method=socket --skip-test-db \
        >"$dir/install.log" 2>&1 || { cat "$dir/install.log" >&2; die "mariadb-install-db failed"; }
    port=$(free_port)
    "$server" --no-defaults --datadir="$dir/data" --user="$me" \
        --bind-address=127.0.0.1 --port="$port" --socket="$dir/mysqld.sock" \
        --pid-file="$dir/mysqld.pid" --tmpdir="$dir/tmp" --skip-name-resolve \
        --innodb-buffer-pool-size=32M --innodb-log-file-size=8M \
        --skip-log-bin --max-connections=50 >"$dir/server.log" 2>&1 &
    echo $! >"$dir/pid"
    for _ in $(seq 1 600); do
        if [ -S "$dir/mysqld.sock" ] && client "$dir" -e "SELECT 1" >/dev/null 2>&1; then
            client "$dir" -e "CREATE DATABASE weir;
                CREATE USER '$USER_NAME'@'127.0.0.1' IDENTIFIED BY '$PASSWORD';
                GRANT ALL ON *.* TO '$USER_NAME'@'127.0.0.1';"
            echo "$port" >"$dir/port"
            echo "127.0.0.1:$port" | tee "$dir/endpoint"
            return 0
        fi
        kill -0 "$(cat "$dir/pid")" 2>/dev/null || break
        sleep 0.1
    done
    tail -20 "$dir/server.log" >&2
    stop "$dir"
    die "MariaDB did not start"
}

stop() {
    local dir=$1 pid
    [ -f "$dir/pid" ] || return 0
    pid=$(cat "$dir/pid")
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 300); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
    rm -f "$dir/pid"
}

sql() {
    local dir=$1 text=$2
    if [ "$text" = - ]; then
        client "$dir" -N -B weir
    else
        client "$dir" -N -B weir -e "$text"
    fi
}

case "${1:-}" in
    start) [ $# -eq 2 ] || die "usage: mysql.sh start DIR"; start "$2" ;;
    stop) [ $# -eq 2 ] || die "usage: mysql.sh stop DIR"; stop "$2" ;;
    sql) [ $# -eq 3 ] || die "usage: mysql.sh sql DIR SQL"; sql "$2" "$3" ;;
    *) die "usage: mysql.sh start|stop|sql DIR ..." ;;
esac
