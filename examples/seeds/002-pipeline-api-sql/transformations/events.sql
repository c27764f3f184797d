-- Seed 002's events table and events_backfill flow in SQL (see
-- ../002-pipeline-api-python/transformations/events.py for why events is
-- streaming and the backfill a once flow).
CREATE STREAMING TABLE events (ts TIMESTAMP, value STRING)
COMMENT 'Raw event records'
AS SELECT * FROM STREAM read_files('data/incoming', format => 'json',
                                   schema => 'ts TIMESTAMP, value STRING');

CREATE FLOW events_backfill AS INSERT INTO ONCE events BY NAME
SELECT * FROM read_files('data/backfill', format => 'json',
                         schema => 'ts TIMESTAMP, value STRING');

CREATE TEMPORARY VIEW clean_events AS
SELECT * FROM events WHERE value IS NOT NULL;
