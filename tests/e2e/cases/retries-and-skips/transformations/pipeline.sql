-- `broken` fails at run time (out of memory: it collects a million strings
-- under a 32 MB limit), so it is retried and then gives up; `after_broken`
-- reads it and is SKIPPED; the independent branch completes anyway.
CREATE MATERIALIZED VIEW base AS SELECT id, CAST(id AS STRING) AS s FROM range(5);

CREATE MATERIALIZED VIEW broken AS
SELECT size(collect_list(repeat('x', 100 + id % 7))) AS n FROM range(1000000);

CREATE MATERIALIZED VIEW after_broken AS SELECT count(*) AS c FROM broken;

CREATE MATERIALIZED VIEW independent AS SELECT sum(id) AS total FROM base;
