-- A PostgreSQL table, a PostgreSQL query and a SQLite table, read in
-- materialized views; the password comes from the configuration.
CREATE MATERIALIZED VIEW customers AS
SELECT * FROM read_jdbc(url => '${pg.url}', dbtable => 'public.customers',
                        user => 'weir', password => '${pg.password}',
                        fetchsize => '1000', driver => 'org.postgresql.Driver');

CREATE MATERIALIZED VIEW big_spenders AS
SELECT * FROM read_jdbc(url => '${pg.url}',
                        query => 'SELECT id, name FROM customers WHERE amount > 5',
                        user => 'weir', password => '${pg.password}');

CREATE MATERIALIZED VIEW items AS
SELECT * FROM read_jdbc(url => 'jdbc:sqlite:items.db', dbtable => 'items');

CREATE MATERIALIZED VIEW customer_items AS
SELECT c.name, i.label FROM customers c JOIN items i ON i.id = c.id;
