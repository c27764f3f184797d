# A dataset whose kind changes between a view and a table keeps working:
# the object of its old kind is replaced (a view holds no rows, a
# materialized view's rows are computed again), except a streaming
# table's rows, which only a full refresh drops. A streaming table that was
# a materialized view starts over from its sources, and one that was
# dropped for a view and comes back reads its sources again.
write_spec kind-change
mkdir -p landing
printf '1,a\n2,b\n3,c\n' >landing/f1.csv
define() { # the definition of x
    cat >transformations/a.sql <<SQL
CREATE STREAMING TABLE raw AS SELECT * FROM STREAM read_files('landing', format => 'csv');
$1
CREATE MATERIALIZED VIEW y AS SELECT count(*) AS n FROM x;
SQL
}
kind_of_x() {
    expect_query "SELECT table_type, (SELECT count(*) FROM x) AS n, (SELECT n FROM y) AS y FROM information_schema.tables WHERE table_name = 'x'" "table_type,n,y
$1"
}

define "CREATE VIEW x AS SELECT * FROM raw;"
run_weir run
expect_exit 0
kind_of_x "VIEW,3,3"

# A view becomes a materialized view, and back.
define "CREATE MATERIALIZED VIEW x AS SELECT * FROM raw;"
run_weir run
expect_exit 0
expect_stdout_not_contains "FAILED"
kind_of_x "BASE TABLE,3,3"
define "CREATE VIEW x AS SELECT * FROM raw;"
run_weir run
expect_exit 0
expect_stdout_not_contains "FAILED"
kind_of_x "VIEW,3,3"

# A view becomes a streaming table.
define "CREATE STREAMING TABLE x; CREATE FLOW xf AS INSERT INTO x BY NAME SELECT * FROM STREAM raw;"
run_weir run
expect_exit 0
expect_stdout_not_contains "FAILED"
kind_of_x "BASE TABLE,3,3"
printf '4,d\n5,e\n' >landing/f2.csv
run_weir run
expect_exit 0
kind_of_x "BASE TABLE,5,5"

# A streaming table does not become a view on its own: its rows stay.
define "CREATE VIEW x AS SELECT * FROM raw;"
run_weir run
expect_exit 0
expect_stdout_contains "Flow 'spark_catalog.default.x' has FAILED."
expect_stdout_contains "[DATASET_KIND_CHANGED] spark_catalog.default.x is now a view, but it was a streaming table: its table holds the rows its flows read, which dropping it would lose. Run \`weir run --full-refresh x\` to drop the table and publish the view."
kind_of_x "BASE TABLE,5,5"
run_weir run --full-refresh x
expect_exit 0
expect_stdout_not_contains "FAILED"
expect_stdout_not_contains "is not a table or sink"
kind_of_x "VIEW,5,5"

# Back to a streaming table: its flow reads its source again from the
# start (a new checkpoint generation for every flow that wrote x, not only
# the view's own).
define "CREATE STREAMING TABLE x; CREATE FLOW xf AS INSERT INTO x BY NAME SELECT * FROM STREAM raw;"
run_weir run
expect_exit 0
kind_of_x "BASE TABLE,5,5"

# A streaming table that was a materialized view starts over: no rows
# twice, no missing checkpoint.
define "CREATE MATERIALIZED VIEW x AS SELECT * FROM raw;"
run_weir run
expect_exit 0
kind_of_x "BASE TABLE,5,5"
define "CREATE STREAMING TABLE x AS SELECT * FROM STREAM raw;"
run_weir run
expect_exit 0
expect_stdout_not_contains "CHECKPOINT_MISSING"
kind_of_x "BASE TABLE,5,5"
printf '6,f\n' >landing/f3.csv
run_weir run
expect_exit 0
kind_of_x "BASE TABLE,6,6"

# --- Review cases -------------------------------------------------------------
rm -rf storage transformations landing
write_spec kind-change-2
mkdir -p landing old
printf '1,a\n2,b\n-3,c\n' >landing/f1.csv
printf '9,z\n' >old/f.csv
two() { # the definitions of p (protected), s2.`we.ird` (quoted), q, MiXed
    cat >transformations/a.sql <<SQL
CREATE STREAMING TABLE raw TBLPROPERTIES ('pipelines.reset.allowed' = 'false') AS SELECT * FROM STREAM read_files('landing', format => 'csv');
$1
$2
$3
$4
CREATE VIEW stale AS SELECT * FROM read_files('old', format => 'csv');
SQL
}
st_p="CREATE STREAMING TABLE p TBLPROPERTIES ('pipelines.reset.allowed' = 'false') AS SELECT * FROM STREAM raw;"
st_w="CREATE STREAMING TABLE s2.\`we.ird\` AS SELECT * FROM STREAM raw;"
st_q="CREATE STREAMING TABLE q (CONSTRAINT pos EXPECT (_c0 > 0) ON VIOLATION QUARANTINE) AS SELECT * FROM STREAM raw;"
mv_m="CREATE MATERIALIZED VIEW MiXed AS SELECT * FROM raw;"
two "$st_p" "$st_w" "$st_q" "$mv_m"
run_weir run
expect_exit 0
expect_query "SELECT (SELECT count(*) FROM p) p, (SELECT count(*) FROM s2.\`we.ird\`) w, (SELECT count(*) FROM q) q, (SELECT count(*) FROM q_quarantine) qq" "p,w,q,qq
3,3,2,1"

# A protected streaming table is not dropped for a view, not even by
# --full-refresh-all; the hint names a dataset outside the default schema
# the way --full-refresh takes it, and that command works.
two "CREATE VIEW p AS SELECT * FROM raw;" "CREATE VIEW s2.\`we.ird\` AS SELECT * FROM raw;" "$st_q" "$mv_m"
run_weir run --full-refresh-all
expect_exit 0
expect_stdout_contains "[DATASET_KIND_CHANGED] spark_catalog.default.p is now a view, but it was a streaming table whose table property pipelines.reset.allowed is false: weir does not drop its table."
expect_query "SELECT table_type FROM information_schema.tables WHERE table_name = 'p'" "table_type
BASE TABLE"
expect_query "SELECT count(*) AS n FROM p" "n
3"
# (--full-refresh-all dropped s2.we.ird; put it back for the hint.)
two "$st_p" "$st_w" "$st_q" "$mv_m"
run_weir run
expect_exit 0
two "$st_p" "CREATE VIEW s2.\`we.ird\` AS SELECT * FROM raw;" "$st_q" "$mv_m"
run_weir run
expect_exit 0
expect_stdout_contains "Run \`weir run --full-refresh 's2.\`we.ird\`'\` to drop the table and publish the view."
run_weir run --full-refresh 's2.`we.ird`'
expect_exit 0
expect_stdout_not_contains "FAILED"
expect_query "SELECT table_type FROM information_schema.tables WHERE table_name = 'we.ird'" "table_type
VIEW"

# A streaming table with a quarantine table, made a view and back: its
# quarantine table starts over with it (no row quarantined twice).
two "$st_p" "$st_w" "CREATE VIEW q AS SELECT * FROM raw;" "$mv_m"
run_weir run --full-refresh q
expect_exit 0
two "$st_p" "$st_w" "$st_q" "$mv_m"
run_weir run
expect_exit 0
expect_query "SELECT (SELECT count(*) FROM q) q, (SELECT count(*) FROM q_quarantine) qq" "q,qq
2,1"

# A view whose sources are gone becomes a materialized view (under another
# spelling of its name): the other datasets are not held up, and the
# materialized view of a renamed case replaces the old view.
two "$st_p" "$st_w" "$st_q" "CREATE VIEW mixed AS SELECT * FROM raw;"
run_weir run
expect_exit 0
expect_stdout_not_contains "FAILED"
expect_query "SELECT table_type FROM information_schema.tables WHERE table_name = 'mixed'" "table_type
VIEW"
rm -rf old
cat >transformations/a.sql <<SQL
CREATE STREAMING TABLE raw TBLPROPERTIES ('pipelines.reset.allowed' = 'false') AS SELECT * FROM STREAM read_files('landing', format => 'csv');
$st_p
$st_w
$st_q
CREATE VIEW MIXED AS SELECT * FROM raw;
CREATE MATERIALIZED VIEW stale AS SELECT * FROM raw;
SQL
run_weir run
expect_exit 0
expect_stdout_not_contains "FAILED"
expect_query "SELECT table_type, (SELECT count(*) FROM stale) AS n FROM information_schema.tables WHERE table_name = 'stale'" "table_type,n
BASE TABLE,3"

# The partitioning of an existing table is fixed, as in Spark
# (DatasetManager.materializeTable: CANNOT_UPDATE_PARTITION_COLUMNS,
# "Declared partitioning <requested> conflicts with existing table
# partitioning <existing>.", each list joined by ", "): the update fails
# and the table keeps its rows; declared as before, it runs again.
part() { # PARTITIONED BY list
    echo "CREATE MATERIALIZED VIEW part PARTITIONED BY ($1) AS SELECT * FROM VALUES (1, 'a', 2), (2, 'b', 3) AS t(k, v, w);" >transformations/a.sql
}
part "k"
run_weir run
expect_exit 0
part "v, w"
run_weir run
expect_exit 1
expect_stdout_contains "CANNOT_UPDATE_PARTITION_COLUMNS"
expect_stdout_contains "Declared partitioning v, w conflicts with existing table partitioning k. Please delete the table"
expect_query "SELECT count(*) AS n FROM part" "n
2"
part "k"
run_weir run
expect_exit 0
