-- Returns land as CSV files with a header; the price list is one CSV file.
CREATE STREAMING TABLE returns_raw
AS SELECT * FROM STREAM read_files('landing/returns', format => 'csv', header => true);

CREATE MATERIALIZED VIEW refunds
AS SELECT r.sku, count(*) AS returns, sum(p.price) AS refunded
FROM returns_raw r JOIN read_files('data/prices.csv', format => 'csv', header => true) p
  ON p.sku = r.sku
GROUP BY r.sku;
