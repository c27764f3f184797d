-- The tables of tests/spark/jdbc_types.py: per database (a `-- db:`
-- section, run as one script), a table `types` with a column of every
-- type its JDBC dialect maps, one row of values and one of NULLs.
-- db: postgres
CREATE TYPE mood AS ENUM ('sad', 'busy');
CREATE TABLE types (id int PRIMARY KEY, small smallint, big bigint, ratio real,
  dbl double precision, amount numeric(10,2), score numeric, wide numeric(38,0),
  name text, code char(3), label varchar(20), flag boolean, day date, at time,
  born timestamp, seen timestamptz, tag uuid, doc json, docb jsonb, nums int[],
  words text[], raw bytea, ip inet, feel mood, wait interval, bits bit(3),
  cash money);
INSERT INTO types VALUES (1, -3, 9000000000, 1.5, 2.25, -10.50, 1.25,
  12345678901234567890123456789, 'Ann', 'ab', 'x', true, '2024-02-03',
  '12:30:00', '2024-01-01 10:00:00', '2024-01-01 10:00:00+02',
  'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '{"a": 1}', '{"b": 2}', '{1,2}',
  '{"x","y z"}', '\xdeadbeef', '10.0.0.1', 'busy', '1 day 02:00:00', B'101',
  12.34);
INSERT INTO types (id) VALUES (2);
-- db: mysql
CREATE TABLE types (id int PRIMARY KEY, tiny tinyint, flag tinyint(1),
  small smallint, medium mediumint, big bigint, ubig bigint unsigned,
  uint int unsigned, amount decimal(10,2), ratio float, dbl double,
  bit1 bit(1), bits bit(8), code char(3), label varchar(20), body text,
  raw blob, day date, born datetime, seen timestamp NULL, at time, yr year,
  doc json, feel enum('sad','busy'));
INSERT INTO types VALUES (1, -3, 1, -300, 70000, 9000000000,
  18000000000000000000, 4000000000, -10.50, 1.5, 2.25, b'1', b'10100000',
  'ab', 'x', 'long text', x'deadbeef', '2024-02-03', '2024-01-01 10:00:00',
  '2024-01-01 10:00:00', '12:30:00', 2024, '{"a": 1}', 'busy');
INSERT INTO types (id) VALUES (2);
-- (No DATE column: Spark's read of one holding '2024-02-03' fails in
-- sqlite-jdbc, "Error parsing date", unless the URL sets date_string_format.)
-- db: sqlite
CREATE TABLE types (id INTEGER PRIMARY KEY, n INTEGER, r REAL, t TEXT,
  b BLOB, num NUMERIC, v VARCHAR(10));
INSERT INTO types VALUES (1, 42, 1.5, 'lamp', x'dead', 3, 'x');
INSERT INTO types (id) VALUES (2);
