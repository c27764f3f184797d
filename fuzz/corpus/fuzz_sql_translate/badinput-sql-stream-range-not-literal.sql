SELECT * FROM STREAM range(1, nope)
