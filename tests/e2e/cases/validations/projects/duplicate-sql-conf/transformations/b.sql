SET spark.sql.session.timeZone = UTC;
CREATE MATERIALIZED VIEW base AS SELECT 1 AS x;
CREATE VIEW v1 AS SELECT x FROM base;
SET spark.sql.session.timeZone = Europe/Paris;
CREATE VIEW v2 AS SELECT x FROM v1;
SET spark.sql.session.timeZone = UTC;
CREATE MATERIALIZED VIEW r2 AS SELECT x FROM base;
