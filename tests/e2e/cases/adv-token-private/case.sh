# Tokens stay off the command line (issue 39, item 10): `weir serve` and
# `weir ui` take theirs from a file (--token-file) or the environment
# (WEIR_SERVE_TOKEN, WEIR_UI_TOKEN). /proc/PID/cmdline, which every local
# user can read, then does not show it, and the endpoint accepts exactly
# that token. --token still works; a non-loopback address accepts a token
# from the environment as a given one.
py=$("$E2E_LIB/../../scripts/pyclient.sh" 4.2.0)
run_weir init demo
expect_exit 0
cd demo
new_token() { od -An -N16 -tx1 /dev/urandom | tr -d ' \n'; }
file_token=$(new_token)
(umask 077; printf '%s\n' "$file_token" >"$E2E_WORK/token")
env_token=$(new_token)

# cmdline_free PID TOKEN: neither PID nor its children show TOKEN in their
# arguments (the servers run under timeout(1)).
cmdline_free() {
    local p
    for p in "$1" $(pgrep -P "$1"); do
        if tr '\0' ' ' <"/proc/$p/cmdline" | grep -qF "$2"; then
            e2e_fail "pid $p shows the token in /proc/$p/cmdline"
        fi
    done
    e2e_pass
}
# query URL TOKEN: a Spark Connect session with TOKEN runs SELECT 41 + 1.
query() {
    timeout 120 "$py" - "$1" "$2" <<'PY' 2>&1
import sys
from pyspark.sql import SparkSession
url = sys.argv[1].split(";token=")[0] + ";token=" + sys.argv[2]
spark = SparkSession.builder.remote(url).getOrCreate()
try:
    print(spark.sql("SELECT 41 + 1 AS n").collect()[0].n)
except Exception as e:
    print("refused:", "UNAUTHENTICATED" if "UNAUTHENTICATED" in str(e) else str(e)[:200])
PY
}

# weir serve --token-file
start_server --spec spark-pipeline.yml --token-file "$E2E_WORK/token"
expect_equal "serve's token from --token-file" "$token" "$file_token"
cmdline_free "$srv_pid" "$file_token"
expect_equal "a query with that token" "$(query "$url" "$file_token")" 42
expect_equal "a query with another token" "$(query "$url" "$env_token")" \
    "refused: UNAUTHENTICATED"
stop_server TERM

# weir serve with WEIR_SERVE_TOKEN
export WEIR_SERVE_TOKEN=$env_token
start_server --spec spark-pipeline.yml
unset WEIR_SERVE_TOKEN
expect_equal "serve's token from WEIR_SERVE_TOKEN" "$token" "$env_token"
cmdline_free "$srv_pid" "$env_token"
expect_equal "a query with that token" "$(query "$url" "$env_token")" 42
stop_server TERM

# --token still works (and wins over the environment); it excludes
# --token-file; an address that is not loopback needs a token given, and
# one from the environment is given.
export WEIR_SERVE_TOKEN=$env_token
start_server --token "$file_token"
expect_equal "--token over WEIR_SERVE_TOKEN" "$token" "$file_token"
stop_server TERM
run_weir serve --port 0 --token a --token-file "$E2E_WORK/token"
expect_exit 2
expect_stderr_contains "--token and --token-file exclude each other"
run_weir serve --port 0 --host 203.0.113.9
expect_exit 1
expect_stderr_not_contains "is not a loopback address"
unset WEIR_SERVE_TOKEN
run_weir serve --port 0 --host 203.0.113.9
expect_exit 2
expect_stderr_contains "is not a loopback address: give the token clients must send with --token-file, WEIR_SERVE_TOKEN or --token"
WEIR_SERVE_TOKEN= run_weir serve --port 0 --host 203.0.113.9
expect_exit 2

# weir ui: --token-file, then WEIR_UI_TOKEN.
start_ui --token-file "$E2E_WORK/token"
expect_equal "ui's token from --token-file" "$token" "$file_token"
cmdline_free "$ui_pid" "$file_token"
expect_equal "a page with that token" \
    "$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $file_token" "$base/")" 200
expect_equal "a page without it" "$(curl -s -o /dev/null -w '%{http_code}' "$base/")" 401
stop_ui
export WEIR_UI_TOKEN=$env_token
start_ui
unset WEIR_UI_TOKEN
expect_equal "ui's token from WEIR_UI_TOKEN" "$token" "$env_token"
cmdline_free "$ui_pid" "$env_token"
expect_equal "a page with that token" \
    "$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $env_token" "$base/")" 200
expect_equal "a page with the other" \
    "$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $file_token" "$base/")" 401
stop_ui
