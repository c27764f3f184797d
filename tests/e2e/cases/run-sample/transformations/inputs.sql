-- One dataset per kind of external input.
-- Files as they land (streaming read_files).
CREATE STREAMING TABLE events_raw
AS SELECT * FROM STREAM read_files('landing', format => 'csv', header => true);

-- A file read in batch, by read_files and by path.
CREATE MATERIALIZED VIEW big_rows
AS SELECT * FROM read_files('data/big.csv', format => 'csv', header => true);

CREATE MATERIALIZED VIEW big_path
AS SELECT * FROM csv.`data/big.csv`;

-- An external table, in batch and as a stream.
CREATE MATERIALIZED VIEW customers_copy
AS SELECT * FROM customers;

CREATE STREAMING TABLE customers_stream
AS SELECT * FROM STREAM(customers);

-- Pipeline datasets are never limited: all rows of the (sampled) input.
CREATE MATERIALIZED VIEW events_count
AS SELECT count(*) AS n FROM events_raw;
