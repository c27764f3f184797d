-- `broken` fails at run time (a malformed cast the analyzer cannot see),
-- so it is retried and then gives up; `after_broken` reads it and is
-- SKIPPED; the independent branch completes anyway.
CREATE MATERIALIZED VIEW base AS SELECT id, CAST(id AS STRING) AS s FROM range(5);

CREATE MATERIALIZED VIEW broken AS SELECT CAST(s || 'x' AS INT) AS n FROM base;

CREATE MATERIALIZED VIEW after_broken AS SELECT count(*) AS c FROM broken;

CREATE MATERIALIZED VIEW independent AS SELECT sum(id) AS total FROM base;
