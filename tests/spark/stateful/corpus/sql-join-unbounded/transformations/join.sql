-- Matches across updates: a uid seen on one side in update 1 and on the
-- other in update 2 is joined in update 2.
CREATE STREAMING TABLE matched AS
SELECT a.uid, a.name, b.score
FROM STREAM(users_a) AS a JOIN STREAM(users_b) AS b ON a.uid = b.uid;
