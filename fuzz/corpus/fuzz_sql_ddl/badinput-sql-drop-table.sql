DROP TABLE something;
