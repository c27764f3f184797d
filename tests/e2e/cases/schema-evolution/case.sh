# A streaming table gains new columns additively (old rows read NULL); a
# materialized view takes its query's new schema; an incompatible type
# change fails the flow with a hint to run a full refresh.

run_weir query "CREATE TABLE src (id BIGINT, name STRING, score DOUBLE)"
run_weir query "INSERT INTO src VALUES (1, 'a', 1.5), (2, 'b', 2.5)"
run_weir run
expect_exit 0

# The query now also selects score.
cat > transformations/pipeline.sql <<'SQL'
CREATE STREAMING TABLE st AS SELECT id, name, score FROM STREAM(src);
CREATE MATERIALIZED VIEW mv AS SELECT id, score * 2 AS double_score FROM st;
SQL
run_weir query "INSERT INTO src VALUES (3, 'c', 3.5)"
run_weir run
expect_exit 0
expect_query "SELECT id, name, score FROM st ORDER BY id" "id,name,score
1,a,
2,b,
3,c,3.5"
expect_query "SELECT * FROM mv ORDER BY id" "id,double_score
1,
2,
3,7.0"

# id becomes a string: incompatible with the stored table.
cat > transformations/pipeline.sql <<'SQL'
CREATE STREAMING TABLE st AS SELECT CAST(id AS STRING) AS id, name, score FROM STREAM(src);
CREATE MATERIALIZED VIEW mv AS SELECT id FROM st;
SQL
run_weir query "INSERT INTO src VALUES (4, 'd', 4.5)"
run_weir run
expect_exit 1
expect_stdout_contains "CANNOT_MERGE_INCOMPATIBLE_DATA_TYPE"
expect_stdout_contains "weir run --full-refresh st"
expect_stdout_contains "Flow 'spark_catalog.default.mv' SKIPPED due to upstream failure(s)."
expect_query "SELECT count(*) AS n FROM st" "n
3"

# The suggested full refresh rebuilds it with the new schema.
run_weir run --full-refresh st
expect_exit 0
run_weir query --format json "SELECT id FROM st ORDER BY id LIMIT 1"
expect_stdout_contains '{"id":"1"}'
expect_query "SELECT count(*) AS n FROM st" "n
4"
