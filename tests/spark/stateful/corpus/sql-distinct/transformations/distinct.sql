-- Every distinct (id, k) once, whichever update brings a copy.
CREATE STREAMING TABLE distinct_ids AS
SELECT DISTINCT id, k FROM STREAM(events);
