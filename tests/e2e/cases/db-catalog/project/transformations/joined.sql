-- Tables of database catalogs declared in the configuration, read like
-- any table: a PostgreSQL table and a MariaDB table joined.
CREATE MATERIALIZED VIEW customer_payments AS
SELECT c.name, sum(p.amount) AS paid
FROM pg.public.customers c JOIN shop.weir.payments p ON p.customer = c.id
GROUP BY c.name;
