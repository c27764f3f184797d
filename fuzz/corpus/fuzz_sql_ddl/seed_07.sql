SET spark.sql.x = 1;
USE CATALOG c;
SET CATALOG d;
USE SCHEMA s;
USE a.b;