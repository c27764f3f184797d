# FAILFAST over CSV files read by their headers' names (a header that
# orders the columns differently from the inferred schema): a value that
# does not fit its column fails the flow naming the file, the column and
# the value (DuckDB's cast error named none of them), and the table keeps
# the rows of the batches before.

mkdir -p land
printf 'id,a\n1,x\n2,y\n' > land/f1.csv
run_weir run
expect_exit 0
printf 'a,id\nz,3\nw,qq\n' > land/f2.csv
run_weir run
expect_exit 1
expect_stdout_matches 'land/f2\.csv: cannot read the file: column id: could not convert "qq" to BIGINT \(mode FAILFAST\)'
expect_query "SELECT id, a FROM t ORDER BY id" "id,a
1,x
2,y"
# The file fixed, the next update reads it by name.
printf 'a,id\nz,3\nw,4\n' > land/f2.csv
run_weir run
expect_exit 0
expect_query "SELECT id, a FROM t ORDER BY id" "id,a
1,x
2,y
3,z
4,w"
