# File names are passed to DuckDB exactly: glob characters in a name (or a
# folder's name) are not expanded again, so a file is read once and only
# itself; every special character is read literally; a name DuckDB cannot
# be given (not UTF-8, or a backslash with a glob character) is skipped
# with a warning naming it while the rest of the folder is ingested.

mkdir -p landing/g 'landing/land[1]' landing/land1 landing/odd
for i in 1 2 3 4 5 6 7 8 9 10; do echo "{\"id\": $i}"; done > landing/g/a1.json
echo '{"id": 100}' > 'landing/land[1]/x.json'
echo '{"id": 200}' > landing/land1/x.json
echo '{"id": 0}' > landing/odd/plain.json

run_weir run
expect_exit 0
expect_query "SELECT count(*) AS n FROM glob_names" "n
10"
# The folder named land[1] is itself, not the pattern matching land1.
expect_query "SELECT id FROM bracket_folder" "id
100"
expect_query "SELECT id FROM bracket_folder_batch" "id
100"

# a*.json is one new file of one row (it used to be expanded to a1.json
# too: 21 rows); b1.json and b[1].json in one batch are two files.
echo '{"id": 11}' > 'landing/g/a*.json'
echo '{"id": 12}' > landing/g/b1.json
echo '{"id": 13}' > 'landing/g/b[1].json'
n=20
for name in 'c?.json' 'c{x}.json' 'c}.json' 'c].json' 'c\z.json' "q'uote.json" 'q"uote.json' 'sp ace.json' 'star*[?].json'; do
    n=$((n + 1))
    echo "{\"id\": $n}" > "landing/g/$name"
done
run_weir run
expect_exit 0
expect_query "SELECT count(*) AS n, count(DISTINCT id) AS ids FROM glob_names" "n,ids
22,22"
expect_query "SELECT id, file FROM glob_names WHERE id > 10 ORDER BY id" "id,file
11,a*.json
12,b1.json
13,b[1].json
21,c?.json
22,c{x}.json
23,c}.json
24,c].json
25,c\\z.json
26,q'uote.json
27,\"q\"\"uote.json\"
28,sp ace.json
29,star*[?].json"

# Names DuckDB cannot be given: skipped, named (bytes escaped) in a
# warning; the other new file of the folder is ingested.
echo '{"id": 1}' > "landing/odd/bad$(printf '\xff').json"
echo '{"id": 2}' > 'landing/odd/back\sl*sh.json'
echo '{"id": 3}' > landing/odd/fine.json
run_weir run
expect_exit 0
expect_stdout_contains "skipped 2 files whose name cannot be read"
expect_stdout_contains 'landing/odd/bad\xff.json (the name is not valid UTF-8)'
expect_stdout_contains 'landing/odd/back\x5csl*sh.json (DuckDB cannot read a name with a backslash'
expect_query "SELECT id, file FROM odd_names ORDER BY id" "id,file
0,plain.json
3,fine.json"
run_weir events --format json
expect_stdout_contains '"level":"WARN"'
