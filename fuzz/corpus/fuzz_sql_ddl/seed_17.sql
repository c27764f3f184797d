SET;
SET a;
USE a.b.c;