# Reading files: a 50 MB CSV line is read (DuckDB stops at 2 MB by
# default); an error reading a file starts with the file and its true
# line, and is not cut before naming them; CSV files or lines of blanks
# only yield no rows.

mkdir -p landing/long landing/strict landing/blank landing/blank_header landing/blank_lines
{ printf 'a,b\n1,x\n2,'; head -c 50000000 /dev/zero | tr '\0' y; printf '\n3,z\n'; } > landing/long/big.csv
printf '   \n  \n\t\n' > landing/blank/a.csv
printf '   \n  \n' > landing/blank_header/a.csv
printf 'a,b\n1,x\n   \n2,y\n' > landing/blank_lines/a.csv
mkdir -p later
{ printf 'a,b\n1,x\n2,'; head -c 3000000 /dev/zero | tr '\0' y; printf '\nnot-a-number,w\n'; } > later/bad.csv

run_weir run
expect_exit 0
expect_query "SELECT a, b_len FROM long_lines ORDER BY a" "a,b_len
1,1
2,50000000
3,1"
expect_query "SELECT count(*) AS n FROM blank" "n
0"
expect_query "SELECT count(*) AS n FROM blank_header" "n
0"
expect_query "SELECT a, b FROM blank_lines ORDER BY a" "a,b
1,x
2,y"

# FAILFAST: the error names the file and line 4 (after a 3 MB line).
cp later/bad.csv landing/strict/bad.csv
run_weir run
expect_exit 1
expect_stdout_matches "landing/strict/bad\.csv:4: cannot read the file: .*Could not convert string \"not-a-number\" to 'INTEGER'"
