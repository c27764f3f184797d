# A named pipe among the SQL files: never opened, so nothing hangs.
mkfifo transformations/b.sql
