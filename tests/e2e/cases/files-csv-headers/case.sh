# CSV files are read by their headers' names.
#
# A column only the 1001st file of a batch has is a column: every file of
# a batch is inferred from (weir used to sniff the first 1000 files only,
# and their columns were all the readers took: the column was dropped
# without a word), in the first batch and in a later one.

mkdir -p landing hdr
for i in $(seq 1000 2000); do printf 'id,a\n%d,x\n' "$i" > landing/f$i.csv; done
printf 'id,a,late\n2001,y,keep\n' > landing/f2001.csv
run_weir run
expect_exit 0
expect_query "SELECT id, a, late FROM t WHERE late IS NOT NULL" "id,a,late
2001,y,keep"
expect_query "SELECT count(*) AS n, count(_rescued_data) AS rescued FROM t" "n,rescued
1002,0"

# A later batch of 1001 files: the new column of its last file evolves the
# schema (schemaEvolutionMode addNewColumns, the default).
for i in $(seq 3000 4000); do printf 'id,a\n%d,x\n' "$i" > landing/g$i.csv; done
printf 'id,a,later\n4001,z,kept\n' > landing/g4001.csv
run_weir run
expect_exit 0
expect_query "SELECT id, later FROM t WHERE later IS NOT NULL" "id,later
4001,kept"
expect_query "SELECT count(*) AS n FROM t" "n
2004"

# Headers in other orders, and a quoted name holding the separator: each
# value lands in its header's column (the readers used to take fields by
# position: 'qq' went to id). (A given schema is applied by position, as
# Spark's CSV reader does.)
printf 'id,a,"a,b"\n1,x,q\n' > hdr/f1.csv
printf '"a,b",a,id\nqq,y,2\n' > hdr/f2.csv
printf 'a,id,extra\nz,notanint,e\n' > hdr/f3.csv
run_weir run
expect_exit 0
# _metadata is hidden from *, as in Spark: not a column of h (created
# while hdr was empty, h gained the files' columns after its own).
expect_query "SELECT * FROM h LIMIT 0" '_rescued_data,fn,id,a,"a,b",extra'
expect_query 'SELECT id, a, `a,b`, extra, fn FROM h ORDER BY fn' 'id,a,"a,b",extra,fn
1,x,q,,f1.csv
2,y,qq,,f2.csv
notanint,z,,e,f3.csv'
# Odd headers are read by position (a CRLF header used to fail the flow,
# an empty or repeated name to lose the column); a star in a nested SELECT
# of a query naming _metadata is left alone.
mkdir -p odd
printf 'a,b\r\n1,2\r\n' > odd/o1.csv
printf 'a, b\n3,4\n' > odd/o2.csv
printf 'a,b,\n5,6,\n' > odd/o3.csv
run_weir run
expect_exit 0
expect_query "SELECT a, b, f FROM o ORDER BY a" "a,b,f
1,2,o1.csv
3,4,o2.csv
5,6,o3.csv"

# FAILFAST with a given schema (by position): 'qq' is no INT, the flow
# fails naming the file; the tables keep their rows.
cat > transformations/ff.sql <<'EOF'
CREATE STREAMING TABLE ff AS
SELECT * FROM STREAM read_files('hdr', format => 'csv', header => true,
                                schema => 'id INT, a STRING', mode => 'FAILFAST');
EOF
run_weir run
expect_exit 1
expect_stdout_contains "CAST_INVALID_INPUT"
expect_query "SELECT count(*) AS n FROM h" "n
3"
