CREATE MATERIALIZED VIEW orders AS
SELECT id,
       concat('c', CAST(id % 3 AS STRING)) AS customer,
       CAST(id * 10 AS DECIMAL(10, 2)) AS amount,
       DATE'2024-01-01' + CAST(id AS INT) AS day,
       TIMESTAMP'2024-01-01 10:00:00' AS placed_at,
       id % 2 = 0 AS paid,
       X'CAFE' AS tag
FROM range(6);

CREATE MATERIALIZED VIEW by_customer AS
SELECT customer, count(*) AS n, sum(amount) AS total
FROM orders GROUP BY customer;
