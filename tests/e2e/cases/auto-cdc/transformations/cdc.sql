CREATE STREAMING TABLE feed AS
SELECT id, seq, op, name, city FROM STREAM read_files('landing', format => 'json');

-- IGNORE NULL UPDATES and truncates, the newest row per key.
CREATE STREAMING TABLE customers;
CREATE FLOW customers_cdc COMMENT 'latest customer rows' AS AUTO CDC INTO customers
FROM STREAM(feed)
KEYS (id)
IGNORE NULL UPDATES
APPLY AS DELETE WHEN op = 'DELETE'
APPLY AS TRUNCATE WHEN op = 'TRUNCATE'
SEQUENCE BY seq
COLUMNS * EXCEPT (op);

-- A column list, in its order, keys added first when left out.
CREATE STREAMING TABLE cities
FLOW AUTO CDC FROM STREAM(feed) KEYS (id)
APPLY AS DELETE WHEN op = 'DELETE' SEQUENCE BY seq COLUMNS (city, name);
