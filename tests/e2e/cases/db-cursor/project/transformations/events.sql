-- Incremental ingestion of a PostgreSQL table by its updated_at column,
-- the pulled rows applied by key (SCD type 1) to a table of the latest
-- version of each row, and a MariaDB table pulled by an integer id.
CREATE STREAMING TABLE events_raw AS
SELECT * FROM STREAM read_jdbc(url => '${pg.url}', dbtable => 'public.events',
                               user => 'weir', password => '${pg.password}',
                               cursorColumn => 'updated_at');

CREATE STREAMING TABLE events;
CREATE FLOW events_cdc AS AUTO CDC INTO events
FROM STREAM(events_raw) KEYS (id) SEQUENCE BY updated_at;

CREATE STREAMING TABLE payments AS
SELECT * FROM STREAM read_jdbc(url => '${my.url}', dbtable => 'payments',
                               user => 'weir', password => '${pg.password}',
                               cursorColumn => 'id');
