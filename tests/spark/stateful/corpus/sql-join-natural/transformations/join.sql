-- A NATURAL join of two streams: USING their common column uid, which
-- `*` lists first. Matches span updates, as in sql-join-unbounded.
CREATE STREAMING TABLE matched AS
SELECT * FROM STREAM(users_a) NATURAL JOIN STREAM(users_b);
