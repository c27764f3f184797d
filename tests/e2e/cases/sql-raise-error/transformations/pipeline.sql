CREATE MATERIALIZED VIEW ids AS SELECT * FROM VALUES (1), (2) AS t(id);
-- raise_error() fails the flow when a row reaches it, not at analysis.
CREATE MATERIALIZED VIEW checked AS
SELECT id, CASE WHEN id > 1 THEN raise_error('id ' || id || ' is too big') ELSE id END AS v
FROM ids;
CREATE MATERIALIZED VIEW after_checked AS SELECT * FROM checked;
CREATE MATERIALIZED VIEW unreached AS
SELECT id, CASE WHEN id > 5 THEN raise_error('never') ELSE id END AS v FROM ids;
