SELECT nope_fn(1) AS x
