set(WEIR_SQL_SOURCES
  src/sql/lex.c
  src/sql/split.c
  src/sql/parse_util.c
  src/sql/parse_expr.c
  src/sql/parse_special.c
  src/sql/parse_query.c
  src/sql/parse_window.c
  src/sql/parse_ddl.c
  src/sql/types.c
  src/sql/reads.c
  src/sql/incremental.c
  src/sql/translate.c
  src/sql/translate_expr.c
  src/sql/pretty.c
  src/sql/functions.c
  src/sql/fn_custom.c
  src/sql/fn_generators.c
  src/sql/fn_lambda.c
  src/sql/fn_strings.c
  src/sql/datetime.c
  src/sql/session.c
  src/sql/read_files.c
  src/sql/regex.c
  src/sql/stmt.c
)
set(WEIR_SQL_DEPS util)

