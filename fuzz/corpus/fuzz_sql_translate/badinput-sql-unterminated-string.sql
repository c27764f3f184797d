SELECT 'abc AS x
