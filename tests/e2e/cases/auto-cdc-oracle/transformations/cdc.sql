-- One change feed, three targets: the latest row per key, the full
-- history, and a history that tracks only `name` (v changes in place).
-- They read the feed without its truncates (cdc_inu.sql applies them).
CREATE STREAMING TABLE changes AS
SELECT id, seq, op, name, v FROM STREAM read_files('landing', format => 'json');

CREATE STREAMING TABLE updates AS
SELECT * FROM STREAM(changes) WHERE op <> 'TRUNCATE';

CREATE STREAMING TABLE latest;
CREATE FLOW latest_cdc AS AUTO CDC INTO latest
FROM STREAM(updates)
KEYS (id)
APPLY AS DELETE WHEN op = 'DELETE'
SEQUENCE BY seq
COLUMNS * EXCEPT (op);

CREATE STREAMING TABLE history
FLOW AUTO CDC FROM STREAM(updates) KEYS (id)
APPLY AS DELETE WHEN op = 'DELETE' SEQUENCE BY seq
COLUMNS * EXCEPT (op, seq) STORED AS SCD TYPE 2;

CREATE STREAMING TABLE names;
APPLY CHANGES INTO names FROM STREAM(updates) KEYS (id)
APPLY AS DELETE WHEN op = 'DELETE' SEQUENCE BY seq
COLUMNS * EXCEPT (op, seq) STORED AS SCD TYPE 2 TRACK HISTORY ON (name);
