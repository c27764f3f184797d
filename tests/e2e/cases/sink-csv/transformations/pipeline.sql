-- Source rows -> a gzip-compressed CSV sink with a header and ';'.
CREATE SINK orders_out USING csv
OPTIONS (path 'out/orders', header 'true', sep ';', compression 'gzip',
         nullValue 'NA');

CREATE FLOW to_csv AS INSERT INTO orders_out BY NAME
SELECT id, s, CASE WHEN id % 10 = 0 THEN NULL ELSE id * 2 END AS twice
FROM STREAM src;
