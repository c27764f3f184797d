CREATE MATERIALIZED VIEW readings AS
SELECT * FROM read_files('data/weather.json', format => 'json');

-- weather is array<struct<main, description, wind struct<speed>>>: a field
-- of it is the array of every element's field, as in Spark.
CREATE MATERIALIZED VIEW conditions AS
SELECT city, weather.main AS mains, weather.wind.speed AS speeds,
       readings.weather.description AS descriptions
FROM readings;

CREATE TEMPORARY VIEW latest AS SELECT city, weather FROM readings;
CREATE MATERIALIZED VIEW first_main AS
SELECT city, weather.main[0] AS main FROM latest;
