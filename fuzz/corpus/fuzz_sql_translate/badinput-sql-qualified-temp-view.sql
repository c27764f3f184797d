SELECT * FROM spark_catalog.default.v
