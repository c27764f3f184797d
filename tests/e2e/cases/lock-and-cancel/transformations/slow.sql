-- Seconds of work, so a second process can try the storage meanwhile.
CREATE MATERIALIZED VIEW slow AS SELECT sum(hash(id)) AS h FROM range(400000000);
