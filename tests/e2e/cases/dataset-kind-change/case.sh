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
