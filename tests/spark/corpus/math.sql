-- Math functions.
SELECT abs(-5) AS a, abs(-2.5) AS b;
SELECT sqrt(16) AS r;
SELECT sqrt(-1) AS r;
SELECT cbrt(27) AS r;
SELECT exp(1) AS r;
SELECT ln(10) AS r;
SELECT log10(1000) AS r;
SELECT log2(8) AS r;
SELECT log(2, 8) AS r;
SELECT ln(0) AS r;
SELECT pow(2, 10) AS a, power(2.5, 2) AS b;
-- known: decimal result precision/scale follow DuckDB's rules (same value)
SELECT round(2.5) AS a, round(-2.5) AS b, round(3.14159, 2) AS c;
SELECT round(2.5D) AS r;
-- known: decimal result precision/scale follow DuckDB's rules (same value)
SELECT round(1234.5678, -2) AS r;
-- known: bround returns DOUBLE in weir (Spark: DECIMAL for a DECIMAL input)
SELECT bround(2.5) AS a, bround(3.5) AS b;
-- known: bround returns DOUBLE in weir (Spark: DECIMAL for a DECIMAL input)
SELECT bround(2.25, 1) AS r;
-- known: floor/ceil of a DECIMAL return BIGINT in weir (Spark: DECIMAL(p,0))
SELECT floor(3.7) AS a, floor(-3.7) AS b;
-- known: floor/ceil of a DECIMAL return BIGINT in weir (Spark: DECIMAL(p,0))
SELECT ceil(3.2) AS a, ceiling(-3.2) AS b;
SELECT floor(3.7D) AS a, ceil(3.2D) AS b;
SELECT sign(-3) AS a, signum(0) AS b, sign(2.5) AS c;
SELECT mod(10, 3) AS a, 10 % 3 AS b, -10 % 3 AS c;
SELECT pmod(-10, 3) AS a, pmod(10, -3) AS b;
SELECT 7 div 2 AS a, -7 div 2 AS b;
SELECT 7 / 2 AS r;
SELECT 1 / 3 AS r;
SELECT sin(0) AS a, cos(0) AS b, tan(0) AS c;
SELECT asin(1) AS a, acos(1) AS b, atan(1) AS c;
SELECT atan2(1, 1) AS r;
SELECT sinh(1) AS a, cosh(1) AS b, tanh(1) AS c;
SELECT cot(1) AS r;
SELECT degrees(pi()) AS a, radians(180) AS b;
SELECT pi() AS a, e() AS b;
SELECT factorial(5) AS r;
SELECT hypot(3, 4) AS r;
SELECT conv('100', 2, 10) AS r;
SELECT conv('ff', 16, 10) AS r;
SELECT bin(13) AS r;
SELECT greatest(1.5, 2) AS r;
SELECT shiftleft(1, 4) AS a, shiftright(16, 2) AS b;
SELECT 5 & 3 AS a, 5 | 3 AS b, 5 ^ 3 AS c, ~5 AS d;
SELECT bit_count(7) AS r;
SELECT positive(-1) AS a, negative(1) AS b;
SELECT -x AS r FROM VALUES (1), (-2) AS t(x);
SELECT width_bucket(5.3, 0.2, 10.6, 5) AS r;
SELECT rint(2.5) AS r;
SELECT expm1(0) AS a, log1p(0) AS b;
SELECT round(x, 1) AS r FROM VALUES (1.25D), (1.35D), (-1.25D) AS t(x);
SELECT try_add(1, 2) AS a, try_subtract(5, 3) AS b, try_multiply(2, 3) AS c;
SELECT try_divide(1, 0) AS r;
SELECT try_divide(10, 4) AS r;
SELECT try_add(2147483647, 1) AS r;
SELECT try_mod(5, 0) AS r;
SELECT uniform(1, 1, 7) AS r;
