-- a;
SELECT 1