-- landing/data.csv has empty unquoted fields, a quoted empty string and
-- the null marker NA; Spark reads them as the case's comments say.
CREATE STREAMING TABLE readings AS
SELECT id, name, CAST(score AS DOUBLE) AS score
FROM STREAM read_files('landing', format => 'csv', header => true,
                       inferColumnTypes => false, nullValue => 'NA',
                       nanValue => 'NaN', positiveInf => 'Inf');
