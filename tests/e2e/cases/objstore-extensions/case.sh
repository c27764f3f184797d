# DuckDB's extensions come from weir's pinned folder and load on first use:
# an HTTP URL in a pipeline and in `weir query` loads httpfs by itself;
# with the folder missing, the same pipeline stops before any flow runs
# with exit 2 and an error naming the install command.
printf '{"a":1}\n{"a":2}\n{"a":3}\n' > www/x.json
# A loopback HTTP server on a free port (written to port.txt).
python3 -c '
import http.server, functools, sys
h = functools.partial(http.server.SimpleHTTPRequestHandler, directory="www")
s = http.server.ThreadingHTTPServer(("127.0.0.1", 0), h)
open("port.txt", "w").write(str(s.server_address[1]))
s.serve_forever()' 2>/dev/null &
bg_pids+=($!)
e2e_at_exit serve_cleanup
for _ in $(seq 1 100); do [ -s port.txt ] && break; sleep 0.1; done
port=$(cat port.txt)
mkdir -p t && sed "s/PORT/$port/" in/m.sql.in > t/m.sql

WEIR_DUCKDB_EXTENSIONS="$PWD/none" run_weir run
expect_exit 2
expect_stderr_contains "[DUCKDB_EXTENSION_MISSING] DuckDB's httpfs extension, which HTTP URLs need, is not installed"
expect_stderr_contains "run scripts/bootstrap.sh"
expect_stderr_not_contains "Flow spark_catalog.default.m has COMPLETED"

run_weir run
expect_exit 0
expect_query "SELECT sum(a) AS s FROM m" "s
6"
expect_query "SELECT count(*) AS n FROM r" "n
3"

run_weir query "SELECT count(*) AS n FROM json.\`http://127.0.0.1:$port/x.json\`"
expect_exit 0
expect_stdout_contains "│ 3 │"
WEIR_DUCKDB_EXTENSIONS="$PWD/none" run_weir query "SELECT count(*) AS n FROM json.\`http://127.0.0.1:$port/x.json\`"
expect_exit 2
expect_stderr_contains "DUCKDB_EXTENSION_MISSING"
