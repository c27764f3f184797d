# weir serve and Apache Spark's JVM client (spark-connect-client-jvm 4.1.1
# from Maven Central, scripts/jvm-client.sh; Java 17): a small Java program
# connects to `weir serve --spec` and runs SQL, reads tables, a DataFrame
# query with show(), a statement and an error, which arrives as Spark's
# AnalysisException with weir's message (the class in its text).
jars=$("$E2E_LIB/../../scripts/jvm-client.sh" fetch)
mkdir -p "$E2E_ROOT/classes"
javac -cp "$jars/*" -d "$E2E_ROOT/classes" WeirClient.java 2>"$E2E_OUT/javac.err" ||
    e2e_fail "javac: $(cat "$E2E_OUT/javac.err")"
# The shop project the serve-* cases share.
cp -R "$E2E_CASE/../serve-common/project" project
cd project
run_weir run
expect_exit 0
start_server --spec spark-pipeline.yml
timeout 180 java --add-opens=java.base/java.nio=ALL-UNNAMED \
    -cp "$E2E_ROOT/classes:$jars/*" WeirClient "$url" \
    >"$E2E_OUT/client.out" 2>"$E2E_OUT/client.err" ||
    e2e_fail "the JVM client failed: $(grep -v '^\s*at ' "$E2E_OUT/client.err" | tail -20)"
compare_files "JVM client output" ../expected.txt "$E2E_OUT/client.out"
stop_server TERM
