-- Catalog names holding a path separator cannot name a file: refused.
CREATE STREAMING TABLE `../../cat`.`db`.`t` AS
SELECT id FROM STREAM range(3);

CREATE STREAMING TABLE `a/b\\c`.`default`.`t` AS
SELECT id FROM STREAM range(4);
