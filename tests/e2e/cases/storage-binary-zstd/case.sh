# BINARY columns of the tables weir creates from a schema are stored with
# DuckDB's zstd compression (docs/storage.md, "Binary columns"): a
# streaming table's, a materialized view's with declared columns, and a
# column a source gained later (added to the streaming table). Stock
# DuckDB reads the rows back and reports the compression of each column's
# data segments. Without it they are DuckDB's default for strings
# (dictionary and FSST), two to three times slower to write.

write_spec binary
cat > transformations/t.sql <<'SQL'
CREATE STREAMING TABLE bronze AS SELECT * FROM STREAM src;
CREATE MATERIALIZED VIEW declared (id BIGINT, payload BINARY) AS
SELECT id, payload FROM bronze;
SQL
py=$(weir_python)
# compression TABLE COLUMN: the compressions of the column's data segments
compression() {
    "$py" -c 'import duckdb, sys
c = duckdb.connect("storage/spark_catalog.duckdb", read_only=True)
rows = c.execute("SELECT DISTINCT compression FROM pragma_storage_info(?) WHERE column_name = ? AND segment_type <> ? ORDER BY 1", ["default." + sys.argv[1], sys.argv[2], "VALIDITY"]).fetchall()
print(",".join(r[0] for r in rows))' "$1" "$2"
}
stock_rows() { # TABLE: count and checksum of the payloads, read by stock DuckDB
    "$py" -c 'import duckdb, sys
c = duckdb.connect("storage/spark_catalog.duckdb", read_only=True)
print(c.execute("SELECT count(*), sum(octet_length(payload)), count(DISTINCT payload) FROM \"default\".\"" + sys.argv[1] + "\"").fetchone())' "$1"
}

run_weir query "CREATE TABLE src AS SELECT id, CAST(concat('payload-', id, '-', repeat('x', CAST(id % 50 AS INT))) AS BINARY) AS payload FROM range(0, 20000) AS t(id)"
expect_exit 0
run_weir run
expect_exit 0
expect_equal "bronze payload" "$(compression bronze payload)" "ZSTD"
expect_equal "declared payload" "$(compression declared payload)" "ZSTD"
expect_equal "bronze id" "$(compression bronze id)" "BitPacking"
expect_equal "bronze rows" "$(stock_rows bronze)" "(20000, 758890, 20000)"
expect_equal "declared rows" "$(stock_rows declared)" "(20000, 758890, 20000)"

# A BINARY column the source gained: added to the streaming table with
# the same compression, its rows readable.
run_weir query "ALTER TABLE src ADD COLUMNS (extra BINARY)"
expect_exit 0
run_weir query "INSERT INTO src SELECT id, CAST('p' AS BINARY), CAST(concat('extra-', id) AS BINARY) FROM range(20000, 40000) AS t(id)"
expect_exit 0
run_weir run
expect_exit 0
expect_equal "bronze extra" "$(compression bronze extra)" "ZSTD"
expect_query "SELECT count(*) AS n, count(extra) AS e, max(CAST(extra AS STRING)) AS m FROM bronze" "n,e,m
40000,20000,extra-39999"
