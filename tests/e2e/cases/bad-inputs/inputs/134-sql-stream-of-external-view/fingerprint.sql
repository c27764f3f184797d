SELECT count(*) AS n FROM ext_v
