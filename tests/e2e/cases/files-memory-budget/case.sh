# The longest record the file readers take follows the run's memory budget
# (weir.duckdb.memory_limit / (8 x threads), 16 MB to 256 MB), since DuckDB
# reserves buffers of a few times it: under a 1 GB limit JSON, CSV and text
# files are read; a record longer than the limit fails the update with an
# error naming the file, the line and weir.duckdb.memory_limit, and is
# never skipped (not in the careful reader, nor with DROPMALFORMED); with a
# larger budget the same record is read.

project() { # NAME MEMORY_LIMIT THREADS
    mkdir -p "$1/transformations" "$1/landing/json" "$1/landing/csv" \
        "$1/landing/text"
    cat >"$1/spark-pipeline.yml" <<YAML
name: $1
storage: storage
configuration:
  weir.duckdb.memory_limit: "$2"
  weir.duckdb.threads: "$3"
  spark.sql.pipelines.maxFlowRetryAttempts: "0"
libraries:
  - glob:
      include: transformations/**
YAML
}

# A few MB of each format under a 1 GB limit and 4 threads (16 MB lines).
project small 1GB 4
cd small
awk 'BEGIN { for (i = 0; i < 40000; i++)
    printf "{\"id\": %d, \"pad\": \"%0100d\"}\n", i, i }' >landing/json/a.json
awk 'BEGIN { print "id,pad"; for (i = 0; i < 40000; i++)
    printf "%d,%0100d\n", i, i }' >landing/csv/a.csv
cp landing/csv/a.csv landing/text/a.txt
cat >transformations/t.sql <<'SQL'
CREATE STREAMING TABLE j AS SELECT * FROM STREAM read_files('landing/json', format => 'json');
CREATE STREAMING TABLE c AS SELECT * FROM STREAM read_files('landing/csv', format => 'csv', header => true);
CREATE STREAMING TABLE t AS SELECT * FROM STREAM read_files('landing/text', format => 'text');
SQL
run_weir run --quiet
expect_exit 0
expect_query "SELECT (SELECT count(*) FROM j) AS j, (SELECT count(*) FROM c) AS c, (SELECT count(*) FROM t) AS t, (SELECT sum(id) FROM j) AS s" "j,c,t,s
40000,40000,40001,799980000"
cd ..

# Records of 34 MB (JSON: over DuckDB's buffer of 2 x 16 MB) and 20 MB (CSV)
# under 128 MB and one thread (16 MB records).
pad() { head -c "$1" /dev/zero | tr '\0' x; }
project tight 128MB 1
cd tight
{ echo '{"id": 1, "pad": "a"}'; printf '{"id": 2, "pad": "'; pad 34000000
  echo '"}'; echo '{"id": 3, "pad": "c"}'; } >landing/json/big.json
{ echo 'id,pad'; echo '1,a'; printf '2,'; pad 20000000; echo; echo '3,c'; } \
    >landing/csv/big.csv
echo "CREATE STREAMING TABLE j AS SELECT * FROM STREAM read_files('landing/json', format => 'json');" >transformations/j.sql
run_weir run --quiet
expect_failure # inference at resolution reads the file: exit 2
expect_stderr_contains "big.json:2: a JSON record longer than 16777216 bytes"
expect_stderr_contains "raise weir.duckdb.memory_limit"

# The same with a given schema (no inference): DuckDB's reader is not
# reached (DuckDB 1.4.4 never returns from such a line).
echo "CREATE STREAMING TABLE j AS SELECT * FROM STREAM read_files('landing/json', format => 'json', schema => 'id BIGINT, pad STRING');" >transformations/j.sql
run_weir run --quiet
expect_exit 1
expect_stdout_contains "big.json:2: a JSON record longer than 16777216 bytes"
expect_query "SELECT count(*) AS n FROM j" "n
0"
rm transformations/j.sql

# CSV: the fast reader fails, the careful one (which skips lines DuckDB
# cannot read) does not skip it; nor does DROPMALFORMED.
for mode in PERMISSIVE DROPMALFORMED; do
    echo "CREATE STREAMING TABLE c AS SELECT * FROM STREAM read_files('landing/csv', format => 'csv', header => true, schema => 'id BIGINT, pad STRING', mode => '$mode');" >transformations/c.sql
    run_weir run --quiet
    expect_exit 1
    expect_stdout_contains "big.csv:3: a CSV record longer than 16777216 bytes"
    expect_stdout_contains "weir.duckdb.memory_limit"
    expect_query "SELECT count(*) AS n FROM c" "n
0"
done
echo "CREATE STREAMING TABLE c AS SELECT * FROM STREAM read_files('landing/csv', format => 'csv', header => true);" >transformations/c.sql
run_weir run --quiet
expect_failure
expect_stderr_contains "big.csv:3: a"
expect_stderr_contains "longer than 16777216 bytes"
echo "CREATE STREAMING TABLE j AS SELECT * FROM STREAM read_files('landing/json', format => 'json');" >transformations/j.sql

# A budget of 1 GB for one thread takes records of 128 MB: all rows come.
sed -i 's/"128MB"/"1GB"/' spark-pipeline.yml
run_weir run --quiet
expect_exit 0
expect_query "SELECT id, length(pad) AS len FROM j ORDER BY id" "id,len
1,1
2,34000000
3,1"
expect_query "SELECT id, length(pad) AS len FROM c ORDER BY id" "id,len
1,1
2,20000000
3,1"
