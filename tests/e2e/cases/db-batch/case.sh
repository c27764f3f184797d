# Batch reads of databases (issue 44): read_jdbc(...) in SQL and
# spark.read.format("jdbc") / spark.read.jdbc in Python against a real
# PostgreSQL server (scripts/pg.sh) and a SQLite file; column types as
# Spark's JDBC dialect maps them; the database is only read; errors name
# the database and the table (wrong password, no server, missing table,
# bad options); the password appears nowhere weir prints or writes.
root=$(cd "$E2E_LIB/../.." && pwd)
WEIR_PYTHON=$("$root/scripts/pyclient.sh" 4.2.0)
export WEIR_PYTHON
pg_start
pg_sql "CREATE TYPE mood AS ENUM ('calm', 'busy');
        CREATE TABLE customers (id int PRIMARY KEY, name text, amount numeric(10,2),
          score numeric, seen timestamptz, born timestamp, tag uuid, doc json,
          docb jsonb, nums int[], raw bytea, small smallint, ratio real, at time,
          day date, flag boolean, big bigint, ip inet, feel mood,
          wait interval, code char(3), b1 bit(1), b3 bit(3));
        INSERT INTO customers VALUES
          (1, 'Ann', 10.50, 1.25, '2024-01-01 10:00:00+02', '2024-01-01 10:00:00',
           'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '{\"a\": 1}', '{\"b\": 2}', '{1,2}',
           '\\xdeadbeef', 3, 1.5, '12:30:00', '2024-02-03', true, 9000000000, '10.0.0.1', 'busy', '1 day 02:00:00', 'ab', B'1', B'101'),
          (2, 'Bob', 2.00, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
           NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
        CREATE SCHEMA sales;
        CREATE TABLE sales.orders (id int, customer int, qty int);
        INSERT INTO sales.orders VALUES (1, 1, 2), (2, 1, 3), (3, 2, 1);"
python3 -c "
import sqlite3
c = sqlite3.connect('project/items.db')
c.execute('CREATE TABLE items (id INTEGER PRIMARY KEY, label TEXT)')
c.executemany('INSERT INTO items VALUES (?, ?)', [(1, 'lamp'), (2, 'desk')])
c.commit()"
cd project
SECRET="--conf pg.password=$PG_PASSWORD"
URLCONF="--conf pg.url=jdbc:postgresql://$PG/weir"
# no_secret: the last weir call printed no password.
no_secret() {
    ! grep -q -e "$PG_PASSWORD" -e wrong-pw-42 "$WEIR_STDOUT" "$WEIR_STDERR" \
        || e2e_fail "a password was printed"
}

run_weir dry-run $URLCONF $SECRET
expect_exit 0
no_secret
expect_stdout_contains "read_jdbc(PostgreSQL database weir at $PG, table public.customers)"

run_weir run $URLCONF $SECRET
expect_exit 0
no_secret
expect_stdout_contains "Run is COMPLETED."
# Spark's PostgresDialect: numeric without precision is decimal(38,18),
# timestamptz and timestamp are timestamps (UTC), uuid, json, jsonb, inet,
# enums and intervals are strings (the server's text), int[] an array,
# bytea binary, smallint short, real float, time a timestamp on
# 1970-01-01.
expect_query "DESCRIBE customers" "col_name,data_type,comment
id,int,
name,string,
amount,\"decimal(10,2)\",
score,\"decimal(38,18)\",
seen,timestamp,
born,timestamp,
tag,string,
doc,string,
docb,string,
nums,array<int>,
raw,binary,
small,smallint,
ratio,float,
at,timestamp,
day,date,
flag,boolean,
big,bigint,
ip,string,
feel,string,
wait,string,
code,string,
b1,boolean,
b3,binary,"
expect_query "SELECT id, name, amount, score, seen, born, tag, doc, docb, nums, hex(raw) AS raw, small, ratio, at, day, flag, big, ip, feel, wait FROM customers ORDER BY id" "id,name,amount,score,seen,born,tag,doc,docb,nums,raw,small,ratio,at,day,flag,big,ip,feel,wait
1,Ann,10.50,1.250000000000000000,2024-01-01 08:00:00,2024-01-01 10:00:00,a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11,\"{\"\"a\"\": 1}\",\"{\"\"b\"\": 2}\",\"[1, 2]\",DEADBEEF,3,1.5,1970-01-01 12:30:00,2024-02-03,true,9000000000,10.0.0.1,busy,1 day 02:00:00
2,Bob,2.00,,,,,,,,,,,,,,,,,"
# Spark pads CHAR(n) on read, reads bit(1) as a boolean and a longer bit
# string as the bytes of its text (tests/spark/jdbc_types.py checks these
# against Spark's own reads).
expect_query "SELECT id, concat('[', code, ']') AS code, b1, hex(b3) AS b3 FROM customers ORDER BY id" "id,code,b1,b3
1,[ab ],true,313031
2,,,"
expect_query "SELECT * FROM big_spenders" "id,name
1,Ann"
expect_query "SELECT * FROM customer_items ORDER BY name" "name,label
Ann,lamp
Bob,desk"
expect_query "SELECT id, customer, qty FROM orders ORDER BY id" "id,customer,qty
1,1,2
2,1,3
3,2,1"
expect_query "SELECT customer, qty FROM order_totals ORDER BY customer" "customer,qty
1,5
2,1"

# Updates of the source show on the next run (a batch read rereads).
pg_sql "INSERT INTO customers (id, name, amount) VALUES (3, 'Cy', 7)"
run_weir run $URLCONF $SECRET
expect_exit 0
expect_query "SELECT count(*) AS n FROM big_spenders" "n
2"

# The password is in no file weir wrote, nor in its events.
if grep -rqa -e "$PG_PASSWORD" storage; then e2e_fail "the password is in the storage"; fi
run_weir events --update all --format json
expect_exit 0
no_secret

# A wrong password: the update fails naming the database, and the
# password given is not printed.
run_weir run $URLCONF --conf pg.password=wrong-pw-42
expect_exit 1
no_secret
expect_stderr_contains "JDBC_CONNECTION_FAILED"
expect_stderr_contains "PostgreSQL database weir at $PG as user weir"
expect_stderr_contains "password authentication failed"

# No server there (a port nothing listens on).
run_weir run --conf pg.url=jdbc:postgresql://127.0.0.1:1/weir $SECRET
expect_exit 1
no_secret
expect_stderr_contains "PostgreSQL database weir at 127.0.0.1:1"
expect_stderr_contains "Connection refused"

# The database is only read: a statement in a query option fails and
# changes nothing.
cat > transformations/bad.sql <<'SQL'
CREATE MATERIALIZED VIEW sneaky AS
SELECT * FROM read_jdbc(url => '${pg.url}', query => 'DELETE FROM customers RETURNING id',
                        user => 'weir', password => '${pg.password}');
SQL
run_weir run $URLCONF $SECRET
expect_exit 1
no_secret
[ "$(pg_sql "SELECT count(*) FROM customers")" = 3 ] || e2e_fail "the source table changed"

# A missing table is named (an invalid graph, as a missing table of the
# catalog: exit 2).
cat > transformations/bad.sql <<'SQL'
CREATE MATERIALIZED VIEW missing AS
SELECT * FROM read_jdbc(url => '${pg.url}', dbtable => 'public.nope',
                        user => 'weir', password => '${pg.password}');
SQL
run_weir run $URLCONF $SECRET
expect_exit 2
no_secret
expect_stderr_contains "JDBC_TABLE_NOT_FOUND"
expect_stderr_contains "PostgreSQL database weir at $PG, table public.nope"

# Options are checked before anything connects, at their place.
cat > transformations/bad.sql <<'SQL'
CREATE MATERIALIZED VIEW both AS
SELECT * FROM read_jdbc(url => '${pg.url}',
  dbtable => 'customers', query => 'SELECT 1', user => 'weir', password => '${pg.password}');
CREATE MATERIALIZED VIEW odd AS
SELECT * FROM read_jdbc(url => 'jdbc:oracle:thin:@x:1521:db', dbtable => 't');
CREATE MATERIALIZED VIEW unknown AS
SELECT * FROM read_jdbc(url => '${pg.url}',
  dbtable => 'customers', colour => 'red', password => '${pg.password}');
CREATE MATERIALIZED VIEW init AS
SELECT * FROM read_jdbc(url => '${pg.url}', dbtable => 'customers',
                        sessionInitStatement => 'DROP TABLE customers');
CREATE MATERIALIZED VIEW half AS
SELECT * FROM read_jdbc(url => '${pg.url}', dbtable => 'customers', user => 'weir',
                        partitionColumn => 'id');
SQL
run_weir dry-run $URLCONF $SECRET
expect_exit 2
no_secret
expect_stderr_contains "transformations/bad.sql:3:14: error: [INVALID_JDBC_OPTION] read_jdbc(): options dbtable and query can not be specified at the same time"
expect_stderr_contains "transformations/bad.sql:5:32: error: [INVALID_JDBC_OPTION] read_jdbc(): url 'jdbc:oracle:thin:@x:1521:db' is not one weir reads"
expect_stderr_contains "transformations/bad.sql:8:37: error: [INVALID_JDBC_OPTION] read_jdbc(): unknown option colour"
expect_stderr_contains "bad.sql:11:49: error: [INVALID_JDBC_OPTION] read_jdbc(): option sessionInitStatement runs a statement on the source database"
expect_stderr_contains "specify all or none of partitionColumn, lowerBound, upperBound and numPartitions"
# The source line shown masks the password.
expect_stderr_contains "password => '***');"
rm transformations/bad.sql

# Portable: --target spark names the Python spelling of read_jdbc.
run_weir dry-run --target spark $URLCONF $SECRET
expect_exit 2
no_secret
expect_stdout_contains "spark.read.format(\"jdbc\").option(\"url\", \"jdbc:postgresql://$PG/weir\").option(\"dbtable\", ...)"
