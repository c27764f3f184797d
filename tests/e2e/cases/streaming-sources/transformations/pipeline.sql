-- Two streaming sources into one table through two append flows: an
-- external table (created with `weir query`) and a landing folder of files.
CREATE STREAMING TABLE events;

CREATE FLOW from_table AS INSERT INTO events BY NAME
SELECT id, 'table' AS origin FROM STREAM(source_events);

CREATE FLOW from_files AS INSERT INTO events BY NAME
SELECT id, 'files' AS origin FROM STREAM read_files('landing', format => 'json');

-- A streaming table over a streaming table, and a stream-static join.
CREATE STREAMING TABLE enriched AS
SELECT e.id, e.origin, d.label
FROM STREAM(events) e JOIN labels d ON e.id % 3 = d.k;

CREATE MATERIALIZED VIEW totals AS
SELECT origin, count(*) AS n FROM events GROUP BY origin;
