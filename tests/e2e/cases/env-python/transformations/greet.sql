CREATE MATERIALIZED VIEW greet_sql AS SELECT '${greeting}' AS greeting;
