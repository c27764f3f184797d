SELECT substr() AS x
