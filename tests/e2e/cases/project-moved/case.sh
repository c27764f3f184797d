# A project moved (or copied) with its storage: file sources are keyed by
# absolute path in _weir, so the next update must re-key them to the new
# folder instead of reading every file again; a source outside the project
# keeps its key.

outside="$E2E_ROOT/outside"
mkdir -p landing "$outside"
sed -i "s|\${OUTSIDE}|$outside|" transformations/pipeline.sql
printf '{"id": 1}\n{"id": 2}\n' > landing/a.json
printf '{"id": 10}\n' > "$outside/a.json"
run_weir run
expect_exit 0
expect_query "SELECT (SELECT count(*) FROM inside) AS i, (SELECT count(*) FROM outside) AS o" "i,o
2,1"

# Move the whole project, land one more file in each source, update.
moved="$E2E_ROOT/moved-project"
mv "$E2E_WORK" "$moved"
cd "$moved"
printf '{"id": 3}\n' > landing/b.json
printf '{"id": 11}\n' > "$outside/b.json"
run_weir run
expect_exit 0
expect_stdout_contains "The project moved from $E2E_WORK to $moved"
expect_query "SELECT (SELECT count(*) FROM inside) AS i, (SELECT count(DISTINCT id) FROM inside) AS di, (SELECT count(*) FROM outside) AS o" "i,di,o
3,3,2"
expect_query "SELECT count(*) AS n FROM spark_catalog._weir.files WHERE starts_with(path, '$E2E_WORK/')" "n
0"

# A copy of the moved project runs on its own storage, also without
# reading its files again; the second run of the copy moves nothing.
cp -R "$moved" "$E2E_ROOT/copy"
cd "$E2E_ROOT/copy"
run_weir run
expect_exit 0
expect_stdout_contains "The project moved from $moved to $E2E_ROOT/copy"
expect_query "SELECT count(*) AS n FROM inside" "n
3"
run_weir run
expect_exit 0
expect_stdout_not_contains "The project moved"
mv "$moved" "$E2E_WORK" # the runner keeps the work folder on failure
