-- Seed 003's hands-on lab in SQL: a bronze streaming table over the landing
-- folder, a silver table with the lesson's three expectations (one warn,
-- one drop, one fail) and a gold materialized view.

CREATE OR REFRESH STREAMING TABLE page_views_bronze AS
SELECT * FROM STREAM read_files('data/landing/page_views/', format => 'json');

CREATE OR REFRESH STREAMING TABLE page_views_silver (
  CONSTRAINT valid_customer_age EXPECT (age BETWEEN 0 AND 120),
  CONSTRAINT valid_current_page EXPECT (current_page_id IS NOT NULL AND current_page_title IS NOT NULL) ON VIOLATION DROP ROW,
  CONSTRAINT valid_count EXPECT (count > 0) ON VIOLATION FAIL UPDATE
) AS SELECT user_id, age, current_page_id, current_page_title, count
FROM STREAM(page_views_bronze);

CREATE OR REFRESH MATERIALIZED VIEW page_views_gold AS
SELECT current_page_title, count(*) AS visits, sum(count) AS views
FROM page_views_silver
GROUP BY current_page_title;
