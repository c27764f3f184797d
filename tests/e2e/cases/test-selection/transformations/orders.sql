-- orders is an external table (a fixture in the tests).
CREATE MATERIALIZED VIEW orders_clean (
  CONSTRAINT big_enough EXPECT (amount > 2)
)
AS SELECT id, amount FROM orders WHERE amount > 0;

-- Read through a temporary view: a test of big_count needs orders_clean.
CREATE TEMPORARY VIEW big AS SELECT * FROM orders_clean WHERE amount > 10;

CREATE MATERIALIZED VIEW big_count AS SELECT count(*) AS n FROM big;
