-- Spark's hash() (Murmur3 x86_32, seed 42) and xxhash64() (XXH64, seed
-- 42): values stored by one engine are compared with the other's, so every
-- type must give Spark's bits. Strings of every length mod 4 and 8 and past
-- 32 bytes (XXH64's stripes); NULL keeps the seed.
SELECT hash('Spark', array(123), 2) AS a, xxhash64('Spark', array(123), 2) AS b;
SELECT hash(1) AS i, hash(1L) AS l, hash(CAST(1 AS SMALLINT)) AS s, hash(CAST(1 AS TINYINT)) AS t, hash(true) AS b, hash(false) AS f;
SELECT xxhash64(1) AS i, xxhash64(1L) AS l, xxhash64(CAST(1 AS SMALLINT)) AS s, xxhash64(true) AS b;
SELECT hash(NULL) AS n, hash(1, NULL) AS a, hash(NULL, 1) AS b, xxhash64(NULL) AS x, xxhash64(CAST(NULL AS STRING), 'a') AS y;
SELECT hash(-1) AS a, hash(2147483647) AS b, hash(-9223372036854775808L) AS c, xxhash64(-1) AS d, xxhash64(9223372036854775807L) AS e;
SELECT s, hash(s) AS h, xxhash64(s) AS x FROM VALUES (''), ('a'), ('ab'), ('abc'), ('abcd'), ('abcde'), ('abcdefg'), ('abcdefgh'), ('abcdefghi'), ('héllo wörld'), ('the quick brown fox jumps over the lazy dog 0123456789') AS v(s);
SELECT hash(1.5D) AS d, hash(-0.0D) AS nz, hash(0.0D) AS z, hash(CAST('NaN' AS DOUBLE)) AS nan, hash(CAST(1.5 AS FLOAT)) AS f, xxhash64(1.5D) AS xd, xxhash64(CAST(1.5 AS FLOAT)) AS xf;
SELECT hash(CAST(12.34 AS DECIMAL(10,2))) AS a, hash(CAST(-12.34 AS DECIMAL(4,2))) AS b, hash(CAST(12345678901234567890.5 AS DECIMAL(38,1))) AS c, hash(CAST(-1 AS DECIMAL(30,0))) AS d, xxhash64(CAST(12.34 AS DECIMAL(10,2))) AS e, xxhash64(CAST(12345678901234567890.5 AS DECIMAL(38,1))) AS f;
SELECT hash(DATE '2024-03-05') AS d, hash(TIMESTAMP '2024-03-05 10:11:12.345678') AS t, xxhash64(DATE '2024-03-05') AS xd, xxhash64(TIMESTAMP '2024-03-05 10:11:12.345678') AS xt;
SELECT hash(X'00FF10') AS b, xxhash64(X'00FF1020') AS x, hash(array(1, NULL, 3)) AS arr, hash(named_struct('a', 1, 'b', 'x')) AS st, xxhash64(array('a', 'b')) AS xa;
SELECT id, hash(id, CAST(id AS STRING)) AS h, xxhash64(id * 1000000007L) AS x FROM range(5) AS r(id);
SELECT pmod(hash(k), 8) AS bucket, count(*) AS n FROM VALUES ('a'), ('b'), ('c'), ('d'), ('e'), ('f') AS v(k) GROUP BY 1;
-- error
SELECT hash(map('k', 1)) AS m;
