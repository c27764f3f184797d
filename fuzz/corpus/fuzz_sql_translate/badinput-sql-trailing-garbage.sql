SELECT 1 AS x garbage garbage
