# Database catalogs declared in the configuration (issue 44):
# weir.catalogs.<name>.url / .user / .password make pg.public.customers
# and shop.weir.payments read like tables (Spark's JDBC types, read-only)
# in pipelines and in `weir query`; the password comes from --conf and
# appears nowhere; a stream of a catalog's table and a bad declaration
# are errors naming them.
pg_start
mysql_start
pg_sql "CREATE TABLE customers (id int PRIMARY KEY, name text, tag uuid);
        INSERT INTO customers VALUES (1, 'Ann', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'), (2, 'Bob', NULL);"
mysql_sql "CREATE TABLE payments (id int PRIMARY KEY, customer int, amount decimal(10,2));
           INSERT INTO payments VALUES (1, 1, 9.50), (2, 1, 0.50), (3, 2, 4.00);
           CREATE TABLE kinds (id int PRIMARY KEY, code char(3), at time, yr year, doc json);
           INSERT INTO kinds VALUES (1, 'ab', '12:30:00', 2024, '{\"a\": 1}'), (2, NULL, NULL, NULL, NULL);"
cd project
cat > spark-pipeline.yml <<YML
name: db-catalog
storage: storage
libraries:
  - glob:
      include: transformations/**
configuration:
  spark.sql.pipelines.maxFlowRetryAttempts: "0"
  weir.catalogs.pg.type: postgres
  weir.catalogs.pg.url: jdbc:postgresql://$PG/weir
  weir.catalogs.pg.user: weir
  weir.catalogs.shop.url: jdbc:mariadb://$MYSQL/weir
  weir.catalogs.shop.user: weir
YML
SECRET="--conf weir.catalogs.pg.password=$PG_PASSWORD --conf weir.catalogs.shop.password=$PG_PASSWORD"
no_secret() {
    ! grep -q -e "$PG_PASSWORD" "$WEIR_STDOUT" "$WEIR_STDERR" || e2e_fail "a password was printed"
}

run_weir run $SECRET
expect_exit 0
no_secret
expect_query "SELECT name, paid FROM customer_payments ORDER BY name" "name,paid
Ann,10.00
Bob,4.00" $SECRET

# weir query browses them, with the same types.
expect_query "SELECT id, name, tag FROM pg.public.customers ORDER BY id" "id,name,tag
1,Ann,a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11
2,Bob," $SECRET
expect_query "SELECT count(*) AS n FROM shop.weir.payments" "n
3" $SECRET
# As Spark's MySQL reads: CHAR(n) padded, time a timestamp on 1970-01-01,
# year a date, JSON its text (tests/spark/jdbc_types.py checks these
# against Spark's own reads).
expect_query "SELECT id, concat('[', code, ']') AS code, at, yr, doc, typeof(at) AS t, typeof(yr) AS y, typeof(doc) AS d FROM shop.weir.kinds ORDER BY id" "id,code,at,yr,doc,t,y,d
1,[ab ],1970-01-01 12:30:00,2024-01-01,\"{\"\"a\"\": 1}\",timestamp,date,string
2,,,,,timestamp,date,string" $SECRET

# Read-only: a write to a catalog's table fails and changes nothing.
run_weir query "INSERT INTO pg.public.customers VALUES (3, 'Cy', NULL)" $SECRET
expect_failure
no_secret
[ "$(pg_sql "SELECT count(*) FROM customers")" = 2 ] || e2e_fail "the source table changed"

# A wrong password names the catalog's database.
run_weir run --conf weir.catalogs.pg.password=wrong-pw-42 --conf weir.catalogs.shop.password=$PG_PASSWORD
expect_exit 1
expect_stderr_contains "JDBC_CONNECTION_FAILED"
expect_stderr_contains "PostgreSQL database weir at $PG as user weir"
expect_stderr_not_contains "wrong-pw-42"
if grep -rqa -e "$PG_PASSWORD" -e wrong-pw-42 storage; then e2e_fail "a password is in the storage"; fi

# A stream of a catalog's table is refused.
cat > transformations/bad.sql <<'SQL'
CREATE STREAMING TABLE s AS SELECT * FROM STREAM pg.public.customers;
SQL
run_weir dry-run $SECRET
expect_exit 2
expect_stderr_contains "bad.sql:1:50: error: [INVALID_JDBC_OPTION] pg.public.customers is a table of the database catalog pg, which is read in batch"
rm transformations/bad.sql
