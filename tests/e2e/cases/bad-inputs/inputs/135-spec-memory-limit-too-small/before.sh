# A good update under DuckDB's default limit; then the limit drops to 1KB,
# which the spec check refuses before storage is opened.
cp spark-pipeline.yml tiny.yml
sed '/^configuration:/,$d' tiny.yml >spark-pipeline.yml
"$WEIR" run >/dev/null 2>&1 || e2e_fail "$name: the good update failed"
mv tiny.yml spark-pipeline.yml
