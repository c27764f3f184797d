# Batches large enough to be read in lanes (a consumer per lane, the lanes
# filled by DuckDB's threads at once; sources/kafka.c LANE_MESSAGES): every
# message is stored once, each partition's messages in offset order, and
# the batches' offsets are where the next batch starts.

kafka_start
mkdir -p transformations
cat > transformations/kafka.sql <<SQL
CREATE STREAMING TABLE raw AS
SELECT * FROM STREAM read_kafka(bootstrapServers => '$KAFKA', subscribe => 'big',
                                startingOffsets => 'earliest');
CREATE STREAMING TABLE capped AS
SELECT * FROM STREAM read_kafka(bootstrapServers => '$KAFKA', subscribe => 'big',
                                startingOffsets => 'earliest',
                                maxOffsetsPerTrigger => 130000);
SQL
ktool create big 4 >/dev/null
ktool produce-n big 200000 -s 20 >/dev/null

# The table's rows in storage order, each partition's offsets ascending
# one by one: a stored row out of place or missing shows as a gap.
in_order() { # table
    expect_query "SELECT count(*) AS n, count(DISTINCT concat(\`partition\`, ':', \`offset\`)) AS d, sum(CASE WHEN \`offset\` = prev + 1 OR prev IS NULL THEN 0 ELSE 1 END) AS gaps FROM (SELECT \`partition\`, \`offset\`, lag(\`offset\`) OVER (PARTITION BY \`partition\` ORDER BY rowid) AS prev FROM $1)" "$2"
}

update_holds() { # messages: an update, then both tables hold them all
    run_weir run
    expect_exit 0
    in_order raw "n,d,gaps
$1,$1,0"
    in_order capped "n,d,gaps
$1,$1,0"
}

update_holds 200000
# Two batches (the cap is shared out over the partitions, as Spark's).
expect_query "SELECT count(*) AS batches, sum(rows) AS n, bool_and(rows BETWEEN 60000 AND 130000) AS capped FROM _weir.checkpoints WHERE flow = 'spark_catalog.default.capped' AND batch_id >= 0" "batches,n,capped
2,200000,true"

# More messages: a next batch in lanes goes on where the last one ended.
ktool produce-n big 100000 -s 20 >/dev/null
update_holds 300000
