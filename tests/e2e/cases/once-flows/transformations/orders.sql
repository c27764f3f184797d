-- A streaming table fed incrementally, plus a one-time backfill of history
-- (a batch query) that runs once, and again only after a full refresh.
CREATE STREAMING TABLE orders AS
SELECT id, 'live' AS origin FROM STREAM(live_orders);

CREATE FLOW backfill AS INSERT INTO ONCE orders BY NAME
SELECT id, 'history' AS origin FROM range(1000, 1005);

-- The other accepted spelling of a once flow.
CREATE FLOW backfill_late AS INSERT INTO orders BY NAME ONCE
SELECT id, 'late' AS origin FROM range(2000, 2002);
