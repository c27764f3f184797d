# Incremental ingestion by cursor column (issue 44): STREAM read_jdbc(...,
# cursorColumn => ...) in SQL and spark.readStream.format("jdbc") in Python
# pull only the rows at or past the last committed cursor value, over
# several updates with inserts, updates that move the cursor, and ties at
# the boundary (rows that arrive later with the boundary's value), without
# loss or duplicates; AUTO CDC applies the pulled rows by key; a server
# down at the start of an update fails it (exit 1) and the next update
# after it is back loses nothing; the cursor value commits with the rows.
root=$(cd "$E2E_LIB/../.." && pwd)
WEIR_PYTHON=$("$root/scripts/pyclient.sh" 4.2.0)
export WEIR_PYTHON
pg_start
mysql_start
pg_sql "CREATE TABLE events (id int PRIMARY KEY, v text, updated_at timestamptz);
        INSERT INTO events VALUES (1, 'a', '2024-01-01 10:00+00'),
          (2, 'b', '2024-01-01 11:00+00'), (3, 'c', '2024-01-01 11:00+00'),
          (9, 'no cursor', NULL);
        CREATE TABLE orders (id int, qty int, seq bigint);
        INSERT INTO orders VALUES (1, 5, 1), (2, 0, 2), (3, 7, 3);"
mysql_sql "CREATE TABLE payments (id bigint PRIMARY KEY, amount decimal(10,2));
           INSERT INTO payments VALUES (1, 9.50), (2, 3.25);"
cd project
CONF="--conf pg.url=jdbc:postgresql://$PG/weir --conf my.url=jdbc:mysql://$MYSQL/weir --conf pg.password=$PG_PASSWORD"

run_weir run $CONF
expect_exit 0
expect_stdout_contains "Run is COMPLETED."
expect_query "SELECT id, v, updated_at FROM events_raw ORDER BY id" "id,v,updated_at
1,a,2024-01-01 10:00:00
2,b,2024-01-01 11:00:00
3,c,2024-01-01 11:00:00"
expect_query "SELECT id, amount FROM payments ORDER BY id" "id,amount
1,9.50
2,3.25"
expect_query "SELECT id, qty, seq FROM orders_raw ORDER BY id" "id,qty,seq
1,5,1
3,7,3"

# Ties at the boundary (11:00, the value the last batch ended at), an
# update that moves a row's cursor, new rows; payments and orders grow.
pg_sql "INSERT INTO events VALUES (4, 'd', '2024-01-01 11:00+00'), (5, 'e', '2024-01-01 12:00+00');
        UPDATE events SET v = 'a2', updated_at = '2024-01-01 13:00+00' WHERE id = 1;
        INSERT INTO orders VALUES (4, 1, 3), (5, 2, 4);"
mysql_sql "INSERT INTO payments VALUES (3, 1.00)"
run_weir run $CONF
expect_exit 0
expect_stdout_contains "Run is COMPLETED."
expect_query "SELECT id, v, updated_at FROM events_raw ORDER BY id, updated_at" "id,v,updated_at
1,a,2024-01-01 10:00:00
1,a2,2024-01-01 13:00:00
2,b,2024-01-01 11:00:00
3,c,2024-01-01 11:00:00
4,d,2024-01-01 11:00:00
5,e,2024-01-01 12:00:00"
expect_query "SELECT id, v FROM events ORDER BY id" "id,v
1,a2
2,b
3,c
4,d
5,e"
expect_query "SELECT count(*) AS n, sum(amount) AS s FROM payments" "n,s
3,13.75"
expect_query "SELECT id, seq FROM orders_raw ORDER BY id" "id,seq
1,1
3,3
4,3
5,4"

# Nothing new: nothing pulled.
run_weir run $CONF
expect_exit 0
expect_stdout_contains "wrote 0 rows"

# The server is down at the start of an update: it fails (exit 1) naming
# the database; nothing is half-written.
pg_stop
run_weir run $CONF
expect_exit 1
expect_stderr_contains "JDBC_CONNECTION_FAILED"
expect_stderr_contains "PostgreSQL database weir at $PG"
pg_resume
pg_sql "INSERT INTO events VALUES (6, 'f', '2024-01-01 13:00+00')"
run_weir run $CONF
expect_exit 0
expect_query "SELECT count(*) AS n, count(DISTINCT (id, updated_at)) AS d, max(id) AS m FROM events_raw" "n,d,m
7,7,6"

# The cursor value is committed with the rows, in the storage's state.
expect_query "SELECT DISTINCT value FROM _weir.jdbc_cursors WHERE source LIKE 'jdbc:postgresql/weir/public.events%' AND batch_id = (SELECT max(batch_id) FROM _weir.jdbc_cursors WHERE source LIKE 'jdbc:postgresql/weir/public.events%')" "value
2024-01-01 13:00:00+00"
if grep -rqa -e "$PG_PASSWORD" storage; then e2e_fail "the password is in the storage"; fi

# A stream needs a cursor column; a batch read takes none.
cat > transformations/bad.sql <<'SQL'
CREATE STREAMING TABLE nocursor AS
SELECT * FROM STREAM read_jdbc(url => 'jdbc:sqlite:x.db', dbtable => 't');
CREATE MATERIALIZED VIEW batchcursor AS
SELECT * FROM read_jdbc(url => 'jdbc:sqlite:x.db', dbtable => 't', cursorColumn => 'id');
SQL
run_weir dry-run $CONF
expect_exit 2
expect_stderr_contains "bad.sql:2:22: error: [INVALID_JDBC_OPTION] read_jdbc(): a streaming read of a database pulls the rows past a cursor column"
expect_stderr_contains "bad.sql:4:84: error: [INVALID_JDBC_OPTION] read_jdbc(): cursorColumn is for streaming reads"
rm transformations/bad.sql
