-- comment ; 
/* nested /* c */ ; */ CREATE MATERIALIZED VIEW a AS SELECT ';' AS s