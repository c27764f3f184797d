-- raw is protected from full refreshes (pipelines.reset.allowed = false);
-- copy streams from it; summary recomputes.
CREATE STREAMING TABLE raw
TBLPROPERTIES ('pipelines.reset.allowed' = 'false')
AS SELECT id FROM STREAM(source);

CREATE STREAMING TABLE copy
TBLPROPERTIES ('pipelines.reset.allowed' = 'false')
AS SELECT id FROM STREAM(raw);

CREATE STREAMING TABLE other AS SELECT id FROM STREAM(source);

CREATE MATERIALIZED VIEW summary AS SELECT count(*) AS n FROM raw;
