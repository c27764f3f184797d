CREATE STREAMING TABLE history
FLOW AUTO CDC FROM STREAM read_files('landing', format => 'json')
KEYS (id)
APPLY AS DELETE WHEN op = 'DELETE'
SEQUENCE BY seq
COLUMNS * EXCEPT (op, _rescued_data)
STORED AS SCD TYPE 2
TRACK HISTORY ON * EXCEPT (seq, note);

-- IGNORE NULL UPDATES: a NULL keeps the value before it.
CREATE STREAMING TABLE sparse
FLOW AUTO CDC FROM STREAM read_files('landing', format => 'json')
KEYS (id) IGNORE NULL UPDATES APPLY AS DELETE WHEN op = 'DELETE'
SEQUENCE BY seq COLUMNS (id, city, note) STORED AS SCD TYPE 2
TRACK HISTORY ON (city);
