# Named environments in weir-environments.yml beside the spec select
# storage, catalog, database and configuration; --conf applies over the
# environment; an unknown environment or a bad file is an error at its
# file:line:col (exit 2).

# The test environment writes to a storage folder of this case.
sed -i "s|file:///tmp/weir-e2e-env-unused|file://$E2E_WORK/test-storage|" weir-environments.yml

run_weir run --quiet
expect_exit 0
expect_dir_exists storage
expect_query "SELECT count(*) AS n, min(label) AS label FROM nums" "n,label
4,spec"

run_weir run --quiet --env dev
expect_exit 0
expect_dir_exists dev-storage
expect_query "SELECT count(*) AS n, min(label) AS label FROM nums" "n,label
4,dev" --env dev
# The spec's storage was not touched by the dev run.
expect_query "SELECT min(label) AS label FROM nums" "label
spec"

run_weir run --quiet --env test --conf label=override
expect_exit 0
expect_dir_exists test-storage
expect_query "SELECT id, label FROM testdb.nums ORDER BY id" "id,label
3,override
4,override" --env test
run_weir dry-run --env test
expect_exit 0
expect_stdout_contains "materialized view spark_catalog.testdb.nums"
# weir events reads the environment's event log: the test storage had one
# update, the spec's and dev's none with this label.
run_weir events --env test --update all --format csv
expect_exit 0
expect_stdout_contains "spark_catalog.testdb.nums"
expect_equal "updates in the test storage" "$(grep -c 'Run is COMPLETED' "$WEIR_STDOUT")" 1
run_weir events --env prod
expect_exit 2
expect_stderr_contains "[UNKNOWN_ENVIRONMENT]"

# Unknown environment: the names defined are listed.
run_weir run --env prod
expect_exit 2
expect_stderr_contains "weir-environments.yml:2:1: error: [UNKNOWN_ENVIRONMENT] Environment \`prod\` is not defined in weir-environments.yml (defined: \`dev\`, \`test\`)."
run_weir graph --env prod
expect_exit 2
run_weir query --env prod "SELECT 1"
expect_exit 2

# A bad field in an environment.
cat >> weir-environments.yml <<'YML'
bad:
  storage: s3://bucket/x
  colour: blue
YML
run_weir dry-run --env bad
expect_exit 2
expect_stderr_contains "weir-environments.yml:14:12: error: [PIPELINE_STORAGE_ROOT_INVALID]"
expect_stderr_contains "weir-environments.yml:15:3: error: [PIPELINE_SPEC_UNEXPECTED_FIELD]"

# A YAML error.
printf 'dev:\n  storage: [x\n' > weir-environments.yml
run_weir dry-run --env dev
expect_exit 2
expect_stderr_contains "weir-environments.yml:"
expect_stderr_contains "[PIPELINE_SPEC_YAML_ERROR]"

# No environments file at all.
rm weir-environments.yml
run_weir run --env dev
expect_exit 2
expect_stderr_contains "[ENVIRONMENTS_FILE_NOT_FOUND]"
