SELECT (SELECT count(*) FROM st) AS rows, (SELECT count(*) FROM spark_catalog._weir.checkpoints) AS checkpoints, (SELECT count(*) FROM spark_catalog._weir.files) AS files
