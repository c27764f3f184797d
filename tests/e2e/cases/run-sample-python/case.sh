# weir run --sample N limits the external inputs of Python flows too (they
# go through the same translation as SQL): a batch file read and a
# streaming file source, into <storage>-sample; a normal run reads all.
WEIR_PYTHON=$("$E2E_LIB/../../scripts/pyclient.sh" 4.2.0)
export WEIR_PYTHON

mkdir -p data landing
{ echo "id,name"; for i in $(seq 1 40); do echo "$i,n$i"; done; } > data/big.csv
{ echo "id,name"; for i in $(seq 1 30); do echo "$i,n$i"; done; } > landing/a.csv
sed 's|^storage: .*|storage: storage-sample|' spark-pipeline.yml > inspect.yml

run_weir run --quiet --sample 7
expect_exit 0
counts="SELECT (SELECT count(*) FROM big_py) AS big, (SELECT count(*) FROM stream_py) AS stream"
expect_query "$counts" "big,stream
7,7" --spec inspect.yml
expect_no_file storage/weir.duckdb

run_weir run --quiet
expect_exit 0
expect_query "$counts" "big,stream
40,30"
