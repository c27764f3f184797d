-- Names that look like paths: a catalog, a database, tables, a sink and
-- flows whose names hold "../", "/", "\", "%" and dots only. (A catalog
-- name with a path separator is refused: see bad.sql.)
CREATE STREAMING TABLE `..`.`../db`.`../t` AS
SELECT id FROM STREAM range(3);

CREATE STREAMING TABLE `c%2F..`.`default`.`..` AS
SELECT id FROM STREAM range(4);

CREATE SINK `../../sk` USING parquet OPTIONS (path 'out/pq');
CREATE FLOW `../../fl` AS INSERT INTO `../../sk` BY NAME
SELECT id FROM STREAM range(5);

CREATE SINK `..` USING json OPTIONS (path 'out/js');
CREATE FLOW `/abs/fl` AS INSERT INTO `..` BY NAME
SELECT id FROM STREAM range(6);
