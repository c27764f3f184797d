SELECT count(*) AS n FROM mv
