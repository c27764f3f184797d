# weir dry-run --target spark lists each construct open-source Apache Spark
# 4.1 rejects or runs differently, at its file:line:col, with what Spark
# does and the portable spelling; a portable project passes with exit 0,
# one that is not exits 2 (docs/spark.md).

# project NAME: a project whose transformations/a.sql is stdin, with an
# absolute file:// storage (portable).
project() {
    mkdir -p "$1/transformations"
    printf 'name: %s\nstorage: file://%s/%s/storage\nlibraries:\n  - glob:\n      include: transformations/**\n' \
        "$1" "$E2E_WORK" "$1" >"$1/spark-pipeline.yml"
    cat >"$1/transformations/a.sql"
}

# check NAME: weir dry-run --target spark in project NAME.
check() {
    cd "$1"
    run_weir dry-run --target spark
    cd ..
}

mkdir -p in
echo '{"id": 1, "name": "a"}' >in/a.json

# Spark's own spellings: portable, exit 0, no graph listing.
project portable <<'SQL'
CREATE MATERIALIZED VIEW a AS SELECT * FROM json.`in`;
CREATE STREAMING TABLE s;
CREATE FLOW f AS INSERT INTO s BY NAME SELECT * FROM STREAM(a);
CREATE TEMPORARY VIEW v AS SELECT id FROM a;
CREATE VIEW pv AS SELECT * FROM a;
CREATE MATERIALIZED VIEW r AS SELECT * FROM range(3);
SQL
cp in/a.json portable/
sed -i "s#json.\`in\`#json.\`$E2E_WORK/in\`#" portable/transformations/a.sql
check portable
expect_exit 0
expect_stdout_contains "Run is COMPLETED."
expect_stdout_contains "Portable: nothing Apache Spark 4.1 would reject or run differently."
expect_stdout_not_contains "Datasets ("
expect_stderr_empty

# A relative storage (weir resolves it against the spec's folder).
project storage <<'SQL'
CREATE MATERIALIZED VIEW a AS SELECT 1 AS x;
SQL
sed -i 's#^storage: .*#storage: pipeline-storage#' storage/spark-pipeline.yml
check storage
expect_exit 2
expect_stdout_contains "spark-pipeline.yml:2:10: Spark rejects relative storage: [PIPELINE_STORAGE_ROOT_INVALID]"
expect_stdout_contains "= portable: storage: file://$E2E_WORK/storage/pipeline-storage"
expect_stdout_contains "1 construct that Apache Spark 4.1 rejects or runs differently (docs/spark.md)."
expect_no_file storage/pipeline-storage

# With --env, the environment's storage is the one checked, in its file.
printf 'prod:\n  storage: file://%s/prod-storage\ndev:\n  storage: dev-storage\n' "$E2E_WORK" \
    >storage/weir-environments.yml
cd storage
run_weir dry-run --target spark --env dev
expect_exit 2
expect_stdout_contains "weir-environments.yml:4:12: Spark rejects relative storage: [PIPELINE_STORAGE_ROOT_INVALID]"
expect_stdout_contains "   4 |   storage: dev-storage"
run_weir dry-run --target spark --env prod
expect_exit 0
cd ..
# A folder name a URI cannot hold is percent-encoded in the advice.
mkdir "sp ace"
cp -r storage/spark-pipeline.yml storage/transformations "sp ace/"
check "sp ace"
expect_exit 2
expect_stdout_contains "= portable: storage: file://$E2E_WORK/sp%20ace/pipeline-storage"

# The spec's expectations field.
project spec-expectations <<'SQL'
CREATE MATERIALIZED VIEW a AS SELECT 1 AS x;
SQL
printf 'expectations:\n  a:\n    - name: positive\n      expect: x > 0\n' >>spec-expectations/spark-pipeline.yml
check spec-expectations
expect_exit 2
expect_stdout_matches "^spark-pipeline\.yml:8:[0-9]+: Spark rejects spec expectations: \[PIPELINE_SPEC_UNEXPECTED_FIELD\]"

# read_files, streaming and batch, and cloud_files.
project read-files <<'SQL'
CREATE STREAMING TABLE a AS SELECT * FROM STREAM read_files('in', format => 'json');
CREATE MATERIALIZED VIEW b AS SELECT * FROM cloud_files('in', 'json');
SQL
cp -r in read-files/
check read-files
expect_exit 2
expect_stdout_contains "transformations/a.sql:1:50: Spark rejects read_files: [PARSE_SYNTAX_ERROR]"
expect_stdout_contains '= portable: a Python file: spark.readStream.format("json").schema("<columns>").load("in")'
expect_stdout_contains "transformations/a.sql:2:45: Spark rejects cloud_files: [UNRESOLVABLE_TABLE_VALUED_FUNCTION]"
expect_stdout_contains '= portable: a Python file: spark.read.format("json").load("in"), or in SQL json.`in`'

# Expectations: each action, and a table-property expectation.
project expectations <<'SQL'
CREATE MATERIALIZED VIEW a (
  CONSTRAINT warn_x EXPECT (x <> 5),
  CONSTRAINT drop_x EXPECT (x > 0) ON VIOLATION DROP ROW,
  CONSTRAINT fail_x EXPECT (x < 9) ON VIOLATION FAIL UPDATE
) AS SELECT 1 AS x;
CREATE MATERIALIZED VIEW q (
  CONSTRAINT q_x EXPECT (x > 1) ON VIOLATION QUARANTINE
) AS SELECT 1 AS x;
CREATE MATERIALIZED VIEW p TBLPROPERTIES ('pipelines.expect_or_drop.p_x' = 'x >= 0')
AS SELECT 1 AS x;
SQL
check expectations
expect_exit 2
expect_stdout_contains "transformations/a.sql:2:3: Spark rejects CONSTRAINT ... EXPECT: [PARSE_SYNTAX_ERROR]"
expect_stdout_contains "= portable: remove it: Spark keeps every row, as a warning expectation does, but counts nothing (x <> 5)"
expect_stdout_contains "transformations/a.sql:3:3: Spark rejects CONSTRAINT ... EXPECT"
expect_stdout_contains "= portable: drop the rows with WHERE (x > 0) in the query"
expect_stdout_contains "= portable: fail on the first violation with WHERE assert_true(x < 9) IS NULL in the query"
expect_stdout_contains "transformations/a.sql:7:3: Spark rejects ON VIOLATION QUARANTINE: [PARSE_SYNTAX_ERROR]"
expect_stdout_contains "WHERE NOT (x > 1)"
expect_stdout_contains "transformations/a.sql:9:1: Spark runs pipelines.expect* table property differently: Spark drops the table property of expectation 'p_x'"
expect_stdout_contains "5 constructs that Apache Spark 4.1 rejects or runs differently"

# Once flows and imported checkpoints.
project flows <<'SQL'
CREATE MATERIALIZED VIEW src AS SELECT 1 AS x;
CREATE STREAMING TABLE t;
CREATE FLOW backfill AS INSERT INTO ONCE t BY NAME SELECT * FROM src;
CREATE STREAMING TABLE u;
CREATE FLOW moved OPTIONS (import_checkpoint 'old-checkpoint') AS
INSERT INTO u BY NAME SELECT * FROM STREAM(src);
SQL
check flows
expect_exit 2
expect_stdout_contains "transformations/a.sql:3:1: Spark rejects INSERT INTO ONCE: [PARSE_SYNTAX_ERROR] Spark's SQL has no once flows"
expect_stdout_contains "transformations/a.sql:5:1: Spark rejects CREATE FLOW ... OPTIONS (import_checkpoint ...): [PARSE_SYNTAX_ERROR]"

# A SQL sink.
project sink <<'SQL'
CREATE STREAMING TABLE t AS SELECT * FROM STREAM range(2);
CREATE SINK out USING json OPTIONS (path 'out');
CREATE FLOW to_out AS INSERT INTO out BY NAME SELECT * FROM STREAM(t);
SQL
check sink
expect_exit 2
expect_stdout_contains "transformations/a.sql:1:50: Spark rejects STREAM range(...): [PARSE_SYNTAX_ERROR]"
expect_stdout_contains "transformations/a.sql:2:1: Spark rejects CREATE SINK: [PARSE_SYNTAX_ERROR]"
expect_stdout_contains '= portable: a Python file: dp.create_sink("out", "json", {...options}), its flows @dp.append_flow(target="out")'

# Databricks spellings: CREATE OR REFRESH, LIVE TABLE, PRIVATE, LIVE.
project spellings <<'SQL'
CREATE OR REFRESH MATERIALIZED VIEW a AS SELECT 1 AS x;
CREATE LIVE TABLE b AS SELECT * FROM LIVE.a;
CREATE PRIVATE MATERIALIZED VIEW c AS SELECT * FROM a;
CREATE STREAMING TABLE d TBLPROPERTIES ('pipelines.skipChangeCommits' = 'true')
AS SELECT * FROM STREAM(a);
SQL
check spellings
expect_exit 2
expect_stdout_contains "transformations/a.sql:1:1: Spark rejects Databricks CREATE spelling: [PARSE_SYNTAX_ERROR] Spark's parser does not know \`CREATE OR REFRESH MATERIALIZED VIEW\`"
expect_stdout_contains "= portable: CREATE MATERIALIZED VIEW"
expect_stdout_contains "transformations/a.sql:2:1: Spark rejects Databricks CREATE spelling"
expect_stdout_contains "transformations/a.sql:2:38: Spark rejects LIVE. prefix: [TABLE_OR_VIEW_NOT_FOUND]"
expect_stdout_contains "transformations/a.sql:3:1: Spark rejects Databricks CREATE spelling: [PARSE_SYNTAX_ERROR] Spark's parser does not know \`CREATE PRIVATE MATERIALIZED VIEW\`"
expect_stdout_contains "transformations/a.sql:4:1: Spark runs pipelines.skipChangeCommits table property differently"

# --json: the events, then one {"spark": ...} object.
cd flows
run_weir dry-run --target spark --json
expect_exit 2
expect_json_lines
expect_stdout_contains '{"spark":{"portable":false,"findings":[{"construct":"INSERT INTO ONCE","rejected":true,"path":"transformations/a.sql","line":3,"column":1,"error_class":"PARSE_SYNTAX_ERROR","spark":"Spark'
cd ../portable
run_weir dry-run --target spark --json
expect_exit 0
expect_stdout_contains '{"spark":{"portable":true,"findings":[]}}'

# An unknown target is bad usage; an invalid project fails as a dry run does.
run_weir dry-run --target flink
expect_exit 2
expect_stderr_contains "weir: dry-run: unknown --target 'flink'"
cd ..
project broken <<'SQL'
CREATE MATERIALIZED VIEW a AS SELECT * FROM nowhere;
SQL
check broken
expect_exit 2
expect_stderr_contains "[TABLE_OR_VIEW_NOT_FOUND]"
expect_stdout_not_contains "Portable"
