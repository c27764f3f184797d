/*
 * Parser tests for src/sql: lexing edge cases, statement splitting, every
 * pipeline statement form and error class (with line:col), what queries
 * read (CTE scoping, subqueries, STREAM, table-valued functions), shape
 * facts, types, statements for `weir query`, and read_files rendering.
 */
#include "harness.h"

#include <string.h>

#include "sql/sql.h"
#include "util/arena.h"
#include "util/buf.h"

static weir_sql_source src_of(const char *text)
{
    weir_sql_source s = { "p.sql", text, strlen(text), NULL, 0, NULL, 0, false };
    return s;
}

/* ------------------------------------------------------------------------
 * Splitter
 * ------------------------------------------------------------------------ */

TEST(test_sql_split__basics)
{
    weir_arena a = WEIR_ARENA_INIT;
    const char *text = "SELECT 1;\n-- c;\n  SELECT ';' , \"a;b\", `x;y`;\n"
                       "/* a; /* nested; */ b; */ SELECT 3 -- tail;\n; ;  \n";
    weir_sql_source s = src_of(text);
    weir_sql_span *sp;
    size_t n;
    weir_error err;
    CHECK_INT(weir__sql_split(&sp, &n, &a, &s, &err), 0);
    CHECK_INT(n, 3);
    if (n == 3) {
        CHECK(strncmp(text + sp[0].offset, "SELECT 1", sp[0].len) == 0);
        CHECK_INT(sp[0].line, 1);
        CHECK_INT(sp[1].line, 2);
        CHECK(strncmp(text + sp[1].offset, "-- c;", 5) == 0 ||
              strncmp(text + sp[1].offset, "SELECT ';'", 10) == 0);
        CHECK(memchr(text + sp[2].offset, '3', sp[2].len) != NULL);
    }
    /* Last ';' optional; comment-only statements dropped. */
    s = src_of("SELECT 1; -- only a comment\n/* x */");
    CHECK_INT(weir__sql_split(&sp, &n, &a, &s, &err), 0);
    CHECK_INT(n, 1);
    s = src_of("");
    CHECK_INT(weir__sql_split(&sp, &n, &a, &s, &err), 0);
    CHECK_INT(n, 0);
    s = src_of("SELECT 'it\\'s;' ; SELECT 2");
    CHECK_INT(weir__sql_split(&sp, &n, &a, &s, &err), 0);
    CHECK_INT(n, 2);
    weir__arena_free(&a);
}

TEST(test_sql_split__errors)
{
    weir_arena a = WEIR_ARENA_INIT;
    weir_sql_span *sp;
    size_t n;
    weir_error err;
    weir_sql_source s = src_of("SELECT 1;\nSELECT 'abc");
    CHECK_INT(weir__sql_split(&sp, &n, &a, &s, &err), WEIR_ESQL);
    CHECK_INT(err.line, 2);
    CHECK_INT(err.column, 8);
    s = src_of("SELECT 1 /* open /* nested */");
    CHECK_INT(weir__sql_split(&sp, &n, &a, &s, &err), WEIR_ESQL);
    CHECK_STR(err.error_class, "UNCLOSED_BRACKETED_COMMENT");
    CHECK_INT(err.column, 10);
    weir__arena_free(&a);
}

/* ------------------------------------------------------------------------
 * Pipeline statements
 * ------------------------------------------------------------------------ */

typedef struct parsed {
    weir_arena a;
    weir_sql_source s;
    weir_sql_stmt *st;
    size_t n;
    weir__diags d;
    int rc;
} parsed;

static void parse(parsed *p, const char *text)
{
    memset(p, 0, sizeof(*p));
    p->s = src_of(text);
    p->rc = weir__sql_parse_file(&p->st, &p->n, &p->a, &p->s, &p->d);
}

static void done(parsed *p)
{
    weir__diags_free(&p->d);
    weir__arena_free(&p->a);
}

TEST(test_sql_ddl__materialized_view_and_table)
{
    parsed p;
    parse(&p,
          "CREATE MATERIALIZED VIEW mv AS SELECT 1;\n"
          "CREATE OR REFRESH PRIVATE STREAMING TABLE IF NOT EXISTS cat.db.st (\n"
          "  id BIGINT NOT NULL COMMENT 'the id',\n"
          "  CONSTRAINT pos EXPECT (id > 0) ON VIOLATION DROP ROW,\n"
          "  v DECIMAL(10, 2),\n"
          "  CONSTRAINT ok EXPECT (v IS NOT NULL) ON VIOLATION FAIL UPDATE,\n"
          "  CONSTRAINT q EXPECT (true) ON VIOLATION QUARANTINE,\n"
          "  CONSTRAINT w EXPECT (id < 10)\n"
          ") USING parquet PARTITIONED BY (id) COMMENT 'st' "
          "TBLPROPERTIES ('a' = 'x', b.c = TRUE, d 100) CLUSTER BY (v) "
          "AS SELECT * FROM STREAM(src);\n"
          "CREATE STREAMING TABLE bare;\n"
          "CREATE OR REFRESH LIVE TABLE old AS SELECT 1;\n"
          "CREATE STREAMING LIVE TABLE old_st AS SELECT * FROM STREAM LIVE.src;\n"
          "CREATE INCREMENTAL LIVE TABLE inc AS SELECT 1;\n"
          "CREATE STREAMING TABLE only_c (CONSTRAINT c EXPECT (x > 0)) AS SELECT 1 x;\n");
    CHECK_INT(p.rc, 0);
    CHECK_INT(p.d.len, 0);
    CHECK_INT(p.n, 7);
    if (p.n == 7) {
        CHECK_INT(p.st[0].kind, WEIR_SQL_CREATE_MATERIALIZED_VIEW);
        CHECK(p.st[0].query != NULL);
        weir_sql_stmt *s = &p.st[1];
        CHECK_INT(s->kind, WEIR_SQL_CREATE_STREAMING_TABLE);
        CHECK(s->or_refresh && s->is_private && s->if_not_exists);
        CHECK_INT(s->name.n, 3);
        CHECK_STR(s->name.parts[2], "st");
        CHECK_INT(s->pos.line, 2);
        CHECK_INT(s->n_columns, 2);
        CHECK_STR(s->columns[0].name, "id");
        CHECK(s->columns[0].not_null);
        CHECK_STR(s->columns[0].comment, "the id");
        CHECK_STR(s->columns[1].type_text, "DECIMAL(10, 2)");
        CHECK_INT(s->n_constraints, 4);
        CHECK_STR(s->constraints[0].condition_text, "id > 0");
        CHECK_INT(s->constraints[0].action, WEIR_SQL_VIOLATION_DROP);
        CHECK_INT(s->constraints[1].action, WEIR_SQL_VIOLATION_FAIL);
        CHECK_INT(s->constraints[2].action, WEIR_SQL_VIOLATION_QUARANTINE);
        CHECK_INT(s->constraints[3].action, WEIR_SQL_VIOLATION_WARN);
        CHECK_STR(s->format, "parquet");
        CHECK_INT(s->n_partition_cols, 1);
        CHECK_INT(s->n_cluster_cols, 1);
        CHECK_STR(s->comment, "st");
        CHECK_INT(s->n_properties, 3);
        CHECK_STR(s->properties[1].key, "b.c");
        CHECK_STR(s->properties[1].value, "true");
        CHECK_STR(s->properties[2].value, "100");
        CHECK(s->query != NULL);
        CHECK(p.st[2].query == NULL);
        CHECK_INT(p.st[3].kind, WEIR_SQL_CREATE_MATERIALIZED_VIEW);
        CHECK_INT(p.st[4].kind, WEIR_SQL_CREATE_STREAMING_TABLE);
        CHECK_INT(p.st[5].kind, WEIR_SQL_CREATE_STREAMING_TABLE);
        CHECK_INT(p.st[6].n_constraints, 1);
        CHECK_INT(p.st[6].n_columns, 0);
    }
    done(&p);
}

/* CREATE FLOW ... OPTIONS (import_checkpoint '..'), before or after COMMENT. */
TEST(test_sql_ddl__flow_import_checkpoint)
{
    parsed p;
    parse(&p,
          "CREATE FLOW f COMMENT 'c' OPTIONS (import_checkpoint '/cp/a') AS "
          "INSERT INTO st BY NAME SELECT * FROM STREAM s;\n"
          "CREATE FLOW g OPTIONS (`IMPORT_CHECKPOINT` = 'b') COMMENT 'd' AS "
          "INSERT INTO st BY NAME SELECT * FROM STREAM s;\n");
    CHECK_INT(p.rc, 0);
    CHECK_INT(p.n, 2);
    if (p.n == 2) {
        CHECK_STR(p.st[0].comment, "c");
        CHECK_INT(p.st[0].n_options, 1);
        CHECK_STR(p.st[0].options[0].value, "/cp/a");
        CHECK_STR(p.st[1].comment, "d");
        CHECK_STR(p.st[1].options[0].value, "b");
    }
    done(&p);
}

TEST(test_sql_ddl__views_flows_sinks_set_use)
{
    parsed p;
    parse(&p,
          "CREATE VIEW v (a COMMENT 'x', b) COMMENT 'c' TBLPROPERTIES ('k'='v') AS SELECT 1, 2;\n"
          "CREATE OR REPLACE TEMPORARY VIEW tv AS SELECT 1;\n"
          "CREATE TEMPORARY LIVE VIEW tlv AS SELECT 1;\n"
          "CREATE LIVE VIEW lv AS SELECT 1;\n"
          "CREATE FLOW f COMMENT 'flow' AS INSERT INTO st BY NAME SELECT * FROM STREAM s;\n"
          "CREATE FLOW f2 AS INSERT INTO ONCE LIVE.st BY NAME SELECT 1;\n"
          "CREATE FLOW f3 AS INSERT INTO st BY NAME ONCE SELECT 1;\n"
          "CREATE SINK k USING kafka OPTIONS (topic 'x', `kafka.bootstrap.servers` = 'h:1');\n"
          "SET spark.sql.shuffle.partitions = 10 ;\n"
          "SET `a.b` = some value here;\n"
          "USE CATALOG c;\n"
          "SET CATALOG c2;\n"
          "USE SCHEMA d;\n"
          "USE c.d;\n"
          "USE DATABASE x;\n");
    CHECK_INT(p.rc, 0);
    CHECK_INT(p.n, 15);
    if (p.n == 15) {
        CHECK_INT(p.st[0].kind, WEIR_SQL_CREATE_VIEW);
        CHECK_INT(p.st[0].n_columns, 2);
        CHECK_STR(p.st[0].comment, "c");
        CHECK_INT(p.st[1].kind, WEIR_SQL_CREATE_TEMPORARY_VIEW);
        CHECK_INT(p.st[2].kind, WEIR_SQL_CREATE_TEMPORARY_VIEW);
        CHECK_INT(p.st[3].kind, WEIR_SQL_CREATE_TEMPORARY_VIEW);
        CHECK_INT(p.st[4].kind, WEIR_SQL_CREATE_FLOW);
        CHECK_STR(p.st[4].target.parts[0], "st");
        CHECK(!p.st[4].once);
        CHECK_STR(p.st[4].comment, "flow");
        CHECK(p.st[5].once);
        CHECK_INT(p.st[5].target.n, 1);
        CHECK(p.st[6].once);
        CHECK_INT(p.st[7].kind, WEIR_SQL_CREATE_SINK);
        CHECK_STR(p.st[7].format, "kafka");
        CHECK_INT(p.st[7].n_options, 2);
        CHECK_STR(p.st[7].options[1].key, "kafka.bootstrap.servers");
        CHECK_STR(p.st[7].options[1].value, "h:1");
        CHECK_INT(p.st[8].kind, WEIR_SQL_SET);
        CHECK_STR(p.st[8].set_key, "spark.sql.shuffle.partitions");
        CHECK_STR(p.st[8].set_value, "10");
        CHECK_STR(p.st[9].set_key, "a.b");
        CHECK_STR(p.st[9].set_value, "some value here");
        CHECK_INT(p.st[10].kind, WEIR_SQL_USE_CATALOG);
        CHECK_INT(p.st[11].kind, WEIR_SQL_USE_CATALOG);
        CHECK_STR(p.st[11].name.parts[0], "c2");
        CHECK_INT(p.st[12].kind, WEIR_SQL_USE_SCHEMA);
        CHECK_INT(p.st[13].name.n, 2);
        CHECK_INT(p.st[14].kind, WEIR_SQL_USE_SCHEMA);
    }
    done(&p);
}

/* Parse text (one bad statement) and check the single error. */
static void check_err(const char *file, int line, const char *text,
                      const char *cls, const char *needle, unsigned eline,
                      unsigned ecol)
{
    parsed p;
    parse(&p, text);
    if (p.rc != WEIR_ESQL || p.d.len != 1) {
        fprintf(stderr, "  %s:%d: rc %d, %zu errors for %s\n", file, line, p.rc,
                p.d.len, text);
        T_.failures++;
    } else {
        const weir_error *e = &p.d.items[0];
        if (strcmp(e->error_class, cls) != 0 || !strstr(e->message, needle) ||
            e->line != eline || e->column != ecol) {
            fprintf(stderr,
                    "  %s:%d: got [%s] %s at %u:%u, expected [%s] ~%s at %u:%u\n",
                    file, line, e->error_class, e->message, e->line, e->column,
                    cls, needle, eline, ecol);
            T_.failures++;
        }
    }
    done(&p);
}

#define ERR(text, cls, needle, l, c)                                          \
    check_err(__FILE__, __LINE__, text, cls, needle, l, c)

TEST(test_sql_ddl__errors)
{
    const char *NA = "_LEGACY_ERROR_TEMP_0035";
    const char *REG = "PIPELINE_SQL_GRAPH_ELEMENT_REGISTRATION_ERROR";
    ERR("CREATE MATERIALIZED VIEW mv LOCATION '/x' AS SELECT 1", NA,
        "Specifying location is not supported for CREATE MATERIALIZED VIEW", 1, 29);
    /* OPTIONS that parse, multipart flow and sink names and 4+ part names
     * are graph rules (test_graph.c); OPTIONS that do not parse stay here. */
    ERR("CREATE STREAMING TABLE st OPTIONS (a) AS SELECT 1", NA,
        "Options are not supported for CREATE STREAMING TABLE", 1, 27);
    ERR("CREATE MATERIALIZED VIEW mv CLUSTERED BY (a) INTO 4 BUCKETS AS SELECT 1",
        NA, "Bucketing is not supported", 1, 29);
    ERR("CREATE MATERIALIZED VIEW mv STORED AS parquet AS SELECT 1", NA,
        "STORED AS syntax is not supported", 1, 29);
    ERR("CREATE MATERIALIZED VIEW mv ROW FORMAT DELIMITED AS SELECT 1", NA,
        "Hive SerDe format options", 1, 29);
    ERR("CREATE MATERIALIZED VIEW mv (a INT CHECK (a > 0)) AS SELECT 1", NA,
        "column constraints", 1, 36);
    ERR("CREATE MATERIALIZED VIEW mv (a INT, PRIMARY KEY (a)) AS SELECT 1", NA,
        "column constraints", 1, 37);
    ERR("CREATE MATERIALIZED VIEW mv (a INT, CONSTRAINT c UNIQUE (a)) AS SELECT 1",
        NA, "column constraints", 1, 50);
    ERR("\n  CREATE TEMPORARY VIEW db.v AS SELECT 1", "INVALID_TEMP_OBJ_QUALIFIER",
        "db.v", 2, 25);
    ERR("CREATE FLOW f AS INSERT OVERWRITE t SELECT 1", REG,
        "INSERT OVERWRITE flows not supported.", 1, 18);
    ERR("CREATE FLOW f AS INSERT INTO t SELECT 1", REG,
        "Only INSERT INTO by name flows supported.", 1, 18);
    ERR("CREATE FLOW f AS INSERT INTO t (a) BY NAME SELECT 1", REG,
        "Column schema may not be specified", 1, 18);
    ERR("CREATE FLOW f AS INSERT INTO t PARTITION (a=1) BY NAME SELECT 1", REG,
        "Partition spec may not be specified", 1, 18);
    ERR("CREATE FLOW f AS SELECT 1", REG, "Unable flow type", 1, 18);
    ERR("CREATE FLOW f OPTIONS (path 'x') AS INSERT INTO t BY NAME SELECT 1", REG,
        "Unknown flow option 'path'", 1, 15);
    ERR("CREATE FLOW f OPTIONS (import_checkpoint '') AS INSERT INTO t BY NAME "
        "SELECT 1", REG, "needs the path of a Spark checkpoint folder", 1, 15);
    ERR("CREATE FLOW f OPTIONS (import_checkpoint 'x') AS INSERT INTO ONCE t BY "
        "NAME SELECT 1", REG, "A once flow cannot import a checkpoint", 1, 15);
    ERR("SELECT 1", REG, "Unsupported plan Project parsed from SQL query", 1, 1);
    ERR("CREATE TABLE t AS SELECT 1", REG, "CreateTableAsSelect", 1, 1);
    ERR("INSERT INTO t SELECT 1", REG, "InsertIntoStatement", 1, 1);
    /* Spark 4.1's own message (measured with spark-pipelines) */
    ERR("INSERT OVERWRITE DIRECTORY '/tmp/x' USING parquet SELECT 1", REG,
        "Unsupported plan InsertIntoDir parsed from SQL query", 1, 1);
    ERR("INSERT OVERWRITE LOCAL DIRECTORY '/tmp/x' USING csv SELECT 1", REG,
        "InsertIntoDir", 1, 1);
    ERR("DROP TABLE t", REG, "DropTable", 1, 1);
    ERR("CREATE MATERIALIZED VIEW mv AS SELEC 1", "PARSE_SYNTAX_ERROR",
        "Syntax error at or near 'SELEC'", 1, 32);
    ERR("CREATE MATERIALIZED VIEW mv AS SELECT (1", "PARSE_SYNTAX_ERROR",
        "end of input", 1, 41);
    ERR("CREATE MATERIALIZED VIEW mv", "PARSE_SYNTAX_ERROR", "end of input", 1, 28);
    ERR("SET", "", "without key-value pair", 1, 1);
    ERR("SET a.b", "", "without value", 1, 1);
    ERR("USE a.b.c", "", "Invalid schema identifier", 1, 5);
    ERR("CREATE MATERIALIZED VIEW m AS SELECT 'abc", "PARSE_SYNTAX_ERROR",
        "Syntax error", 1, 38);
    ERR("CREATE MATERIALIZED VIEW m AS SELECT 1 FROM STREAM (SELECT 1)",
        "PARSE_SYNTAX_ERROR", "SELECT", 1, 53);
}

TEST(test_sql_ddl__continues_after_errors)
{
    parsed p;
    parse(&p, "CREATE MATERIALIZED VIEW a AS SELECT 1;\n"
              "SELEC 2;\n"
              "CREATE MATERIALIZED VIEW b AS SELECT 3;\n"
              "DROP TABLE x;\n");
    CHECK_INT(p.rc, WEIR_ESQL);
    CHECK_INT(p.n, 2);
    CHECK_INT(p.d.len, 2);
    if (p.d.len == 2) {
        CHECK_INT(p.d.items[0].line, 2);
        CHECK_STR(p.d.items[0].path, "p.sql");
        CHECK_STR(p.d.items[0].line_text, "SELEC 2;");
        CHECK_INT(p.d.items[1].line, 4);
    }
    done(&p);
}

/* ------------------------------------------------------------------------
 * Reads and shape
 * ------------------------------------------------------------------------ */

static weir_sql_query *pq(weir_arena *a, weir_sql_source *s, const char *text)
{
    *s = src_of(text);
    weir_sql_query *q = NULL;
    weir_error err;
    if (weir__sql_parse_query(&q, a, s, 0, s->len, &err) != 0) {
        fprintf(stderr, "  parse failed: %s (%s)\n", err.message, text);
        return NULL;
    }
    return q;
}

static void reads_str(weir_buf *b, const weir_sql_reads *r)
{
    for (size_t i = 0; i < r->n_refs; i++) {
        if (i)
            weir__buf_putc(b, ',');
        for (size_t k = 0; k < r->refs[i].name.n; k++)
            weir__buf_printf(b, "%s%s", k ? "." : "", r->refs[i].name.parts[k]);
        if (r->refs[i].streaming)
            weir__buf_puts(b, "(s)");
    }
    for (size_t i = 0; i < r->n_tvfs; i++)
        weir__buf_printf(b, ";%s%s", r->tvfs[i].name,
                         r->tvfs[i].streaming ? "(s)" : "");
}

static void check_reads(const char *file, int line, const char *text,
                        const char *want)
{
    weir_arena a = WEIR_ARENA_INIT;
    weir_sql_source s;
    weir_sql_query *q = pq(&a, &s, text);
    weir_buf b = WEIR_BUF_INIT;
    weir_sql_reads r;
    if (!q || weir__sql_query_reads(&r, &a, q, NULL) != 0) {
        T_.failures++;
    } else {
        reads_str(&b, &r);
        if (strcmp(weir__buf_cstr(&b), want) != 0) {
            fprintf(stderr, "  %s:%d: reads \"%s\", expected \"%s\"\n", file, line,
                    weir__buf_cstr(&b), want);
            T_.failures++;
        }
    }
    weir__buf_free(&b);
    weir__arena_free(&a);
}

#define READS(text, want) check_reads(__FILE__, __LINE__, text, want)

TEST(test_sql_reads__scoping)
{
    READS("SELECT * FROM a JOIN b ON a.x = b.x", "a,b");
    READS("SELECT * FROM cat.db.t, db.u", "cat.db.t,db.u");
    READS("SELECT * FROM LIVE.bronze", "bronze");
    READS("SELECT * FROM STREAM t", "t(s)");
    READS("SELECT * FROM STREAM(db.t) WATERMARK ts DELAY OF INTERVAL 10 SECONDS w",
          "db.t(s)");
    READS("SELECT * FROM STREAM LIVE.src AS s JOIN dim d ON s.k = d.k",
          "src(s),dim");
    READS("WITH c AS (SELECT * FROM a) SELECT * FROM c", "a");
    READS("WITH c AS (SELECT * FROM a), d AS (SELECT * FROM c) SELECT * FROM d, c",
          "a");
    READS("WITH c AS (WITH b AS (SELECT * FROM a) SELECT * FROM b) SELECT * FROM c, b",
          "a,b");
    READS("WITH a AS (SELECT * FROM a) SELECT * FROM a", "a");
    READS("WITH RECURSIVE r AS (SELECT 1 UNION ALL SELECT * FROM r) SELECT * FROM r",
          "");
    READS("SELECT (SELECT max(x) FROM m), * FROM t WHERE x IN (SELECT y FROM u) "
          "AND EXISTS (SELECT 1 FROM v)",
          "t,m,u,v");
    READS("SELECT * FROM (SELECT * FROM inner_t) sub", "inner_t");
    READS("SELECT * FROM range(5)", ";range");
    READS("SELECT * FROM STREAM read_files('/p', format => 'json')", ";read_files(s)");
    READS("SELECT * FROM STREAM(cloud_files('/p', 'csv'))", ";cloud_files(s)");
    READS("SELECT a FROM t UNION SELECT b FROM u", "t,u");
    READS("SELECT * FROM t LATERAL VIEW explode(arr) x AS y", "t");
    READS("SELECT * FROM parquet.`/tmp/dir`", "parquet./tmp/dir");
}

TEST(test_sql_reads__tvf_args)
{
    weir_arena a = WEIR_ARENA_INIT;
    weir_sql_source s;
    weir_sql_query *q = pq(&a, &s,
                           "SELECT * FROM cloud_files('/in', 'csv', map('header', "
                           "'true', 'cloudFiles.inferColumnTypes', 'false')) x, "
                           "read_files(path => '/p', format => 'json', n => 3, b => "
                           "true, z => NULL, e => 1 + 2)");
    weir_sql_reads r;
    CHECK(q != NULL);
    if (q && weir__sql_query_reads(&r, &a, q, NULL) == 0 && r.n_tvfs == 2) {
        const weir_sql_tvf *c = &r.tvfs[0];
        CHECK_STR(c->name, "cloud_files");
        CHECK_INT(c->n_args, 3);
        CHECK_INT(c->args[2].kind, WEIR_SQL_ARG_MAP);
        CHECK_INT(c->args[2].n_items, 4);
        CHECK_STR(c->args[2].items[3].text, "false");
        CHECK_STR(weir__sql_read_files_path(c), "/in");
        const weir_sql_tvf *f = &r.tvfs[1];
        CHECK_STR(f->args[0].name, "path");
        CHECK_STR(weir__sql_read_files_path(f), "/p");
        CHECK_INT(f->args[2].kind, WEIR_SQL_ARG_NUMBER);
        CHECK_INT(f->args[3].kind, WEIR_SQL_ARG_BOOL);
        CHECK_INT(f->args[4].kind, WEIR_SQL_ARG_NULL);
        CHECK_INT(f->args[5].kind, WEIR_SQL_ARG_OTHER);
        CHECK_STR(f->args[5].text, "1 + 2");
    } else {
        T_.failures++;
    }
    weir__arena_free(&a);
}

/* The first unaliased expression column (a persisted view refuses it). */
static void check_unaliased(const char *file, int line, const char *text,
                            const char *want, unsigned col)
{
    weir_arena a = WEIR_ARENA_INIT;
    weir_sql_source s;
    weir_sql_query *q = pq(&a, &s, text);
    weir_buf name = WEIR_BUF_INIT;
    weir_sql_pos pos = { 0, 0, 0 };
    bool got = q && weir__sql_query_unaliased(q, &name, &pos);
    if (got != (want != NULL) ||
        (want && (strcmp(weir__buf_cstr(&name), want) || pos.column != col))) {
        fprintf(stderr, "%s:%d: %s: got %s at %u, want %s at %u\n", file,
                line, text, got ? weir__buf_cstr(&name) : "(none)",
                pos.column, want ? want : "(none)", col);
        T_.failures++;
    }
    weir__buf_free(&name);
    weir__arena_free(&a);
}
#define UNALIASED(text, want, col)                                            \
    check_unaliased(__FILE__, __LINE__, text, want, col)

TEST(test_sql_reads__unaliased_columns)
{
    UNALIASED("SELECT a, t.b, * FROM t", NULL, 0);
    UNALIASED("SELECT a + 1 AS b, explode(xs) FROM t", NULL, 0);
    UNALIASED("SELECT a, a + 1, count(*) FROM t", "(a + 1)", 11);
    UNALIASED("SELECT upper(name) FROM t", "upper(name)", 8);
    /* A set operation is named by its first branch. */
    UNALIASED("SELECT a FROM t UNION ALL SELECT a + 1 FROM u", NULL, 0);
    UNALIASED("SELECT 1 UNION ALL SELECT a AS x FROM u", "1", 8);
    UNALIASED("VALUES (1, 2)", NULL, 0);
}

/* The placeholder of an aggregation's rows, as "ROWS". */
static const weir_sql_query *rows_node;
static int rows_query(void *payload, const weir_sql_query *q, weir_buf *out,
                      weir_error *err)
{
    (void)payload;
    (void)err;
    if (q != rows_node)
        return WEIR_ENOTFOUND;
    weir__buf_puts(out, "SELECT * FROM ROWS");
    return 0;
}

/* The streaming operators of a query, one "KIND what @col[ wm]" each,
 * joined by " | ". */
static void ops_str(weir_buf *b, const char *text, bool python)
{
    static const char *const kinds[] = { "", "AGG", "DEDUP", "JOIN", "LIMIT",
                                         "EXCEPT", "WINFN", "UNSUPPORTED" };
    weir_arena a = WEIR_ARENA_INIT;
    weir_sql_source s = src_of(text);
    if (python) {
        s.at_path = "flows.py";
        s.at_line = 3;
    }
    weir_sql_query *q = NULL;
    weir_error err;
    if (weir__sql_parse_query(&q, &a, &s, 0, s.len, &err) != 0)
        fprintf(stderr, "  parse failed: %s (%s)\n", err.message, text);
    weir_sql_sop *ops = NULL;
    size_t n = 0;
    weir__buf_clear(b);
    if (!q || weir__sql_stream_ops(&ops, &n, &a, q, NULL)) {
        weir__buf_puts(b, "(failed)");
        n = 0;
    }
    for (size_t i = 0; i < n; i++) {
        weir__buf_printf(b, "%s%s %s @%u%s", i ? " | " : "", kinds[ops[i].kind],
                         ops[i].kind == WEIR_SQL_SOP_UNSUPPORTED ? "-" : ops[i].what,
                         ops[i].pos.column, ops[i].watermarked ? " wm" : "");
        const weir_sql_state_plan *p = ops[i].plan;
        if (!p)
            continue;
        weir__buf_puts(b, " [keys");
        for (size_t k = 0; k < p->n_keys; k++)
            weir__buf_printf(b, " %s", p->keys[k]);
        weir__buf_printf(b, "; event time %s; input ", p->event_time ? p->event_time : "-");
        if (p->input && weir__sql_translate_query(b, p->input, NULL, &err))
            weir__buf_puts(b, "(failed)");
        for (int k = 0; p->kind == WEIR_SQL_SOP_JOIN && k < 2; k++) {
            const struct weir_sql_join_side *sd = &p->side[k];
            weir__buf_printf(b, "%s%s: time %s, evict %s", k ? "; " : "join ",
                             sd->alias, sd->event_time ? sd->event_time : "-",
                             sd->can_evict ? "W" : "never");
            for (size_t e = 0; sd->can_evict && e < sd->n_evict; e++) {
                weir__buf_printf(b, " %c ", sd->evict[e].minus ? '-' : '+');
                if (weir__sql_translate_expr(b, sd->evict[e].interval, NULL, &err))
                    weir__buf_puts(b, "(failed)");
            }
        }
        for (size_t k = 0; k < p->n_wms; k++) {
            weir__buf_printf(b, "; watermark %s: ", p->wms[k].column);
            if (weir__sql_translate_query(b, p->wms[k].max, NULL, &err))
                weir__buf_puts(b, "(failed)");
        }
        if (p->kind == WEIR_SQL_SOP_AGGREGATE) {
            weir_sql_resolver r = { .query = rows_query };
            rows_node = p->rows;
            weir__buf_puts(b, "; closes ");
            if (weir__sql_translate_query(b, p->closes, &r, &err))
                weir__buf_puts(b, "(failed)");
            weir__buf_puts(b, "; emit ");
            if (weir__sql_translate_query(b, p->emit, &r, &err))
                weir__buf_puts(b, "(failed)");
        }
        weir__buf_putc(b, ']');
    }
    weir__arena_free(&a);
}

#define OPS(text, want)                                                        \
    do {                                                                       \
        ops_str(&b, text, false);                                              \
        CHECK_STR(weir__buf_cstr(&b), want);                                   \
    } while (0)
/* The same, for text generated from a Python DataFrame. */
#define OPS_PY(text, want)                                                     \
    do {                                                                       \
        ops_str(&b, text, true);                                               \
        CHECK_STR(weir__buf_cstr(&b), want);                                   \
    } while (0)

TEST(test_sql_stream_ops)
{
    weir_buf b = WEIR_BUF_INIT;
    /* Batch queries have none. */
    OPS("SELECT k, count(*) FROM t GROUP BY k", "");
    OPS("SELECT * FROM a JOIN b ON a.k = b.k ORDER BY 1 LIMIT 3", "");
    /* Stateless streaming queries have none. */
    OPS("SELECT upper(k) FROM STREAM t WHERE k IN (SELECT 1)", "");
    OPS("SELECT * FROM STREAM(a) JOIN b ON a.k = b.k", "");
    OPS("SELECT * FROM STREAM(a) LEFT JOIN b ON a.k = b.k", "");
    OPS("SELECT * FROM STREAM a UNION ALL SELECT * FROM STREAM b", "");
    /* Aggregations, with and without an event-time key. */
    OPS("SELECT k, count(*) FROM STREAM t GROUP BY k", "AGG GROUP BY @1");
    OPS("SELECT DISTINCT k FROM STREAM t", "AGG SELECT DISTINCT @1");
    OPS("SELECT count(*) FROM STREAM t", "AGG an aggregate function @8");
    /* By a time window: the rows close at the window's end. */
    ops_str(&b, "SELECT window(ts, '1 minute') AS w, count(*) FROM STREAM t "
                "WATERMARK ts DELAY OF INTERVAL 1 MINUTE GROUP BY w", false);
    CHECK(strncmp(weir__buf_cstr(&b),
                  "AGG GROUP BY @1 wm [keys; event time -; input SELECT * FROM "
                  "\"t\" AS \"t\"; watermark ts: SELECT max(\"ts\") AS \"m\" "
                  "FROM \"t\" AS \"t\"; closes SELECT *, (struct_pack(",
                  130) == 0);
    CHECK(strstr(weir__buf_cstr(&b), "))).\"end\" AS \"__weir_end\" FROM "
                                     "(SELECT * FROM ROWS) AS \"t\" WHERE "
                                     "(\"ts\") IS NOT NULL; emit SELECT struct_pack("));
    CHECK(strstr(weir__buf_cstr(&b), "FROM (SELECT * FROM ROWS) AS \"t\" WHERE "
                                     "(\"ts\") IS NOT NULL GROUP BY \"w\"]"));
    /* A watermark on a column that is not a key: no event-time key. */
    OPS("SELECT k, count(*) FROM STREAM t WATERMARK ts DELAY OF INTERVAL 1 "
        "MINUTE GROUP BY k",
        "AGG GROUP BY @1");
    /* By the event time itself, renamed in a subquery. */
    OPS("SELECT e, count(*) FROM (SELECT ts AS e FROM STREAM t WATERMARK ts "
        "DELAY OF INTERVAL 1 MINUTE) GROUP BY 1",
        "AGG GROUP BY @1 wm [keys; event time -; input SELECT * FROM (SELEC"
        "T \"ts\" AS \"e\" FROM \"t\" AS \"t\"); watermark ts: SELECT max(\""
        "ts\") AS \"m\" FROM \"t\" AS \"t\"; closes SELECT *, \"e\" AS \"__"
        "weir_end\" FROM (SELECT * FROM ROWS) AS \"__weir_rows\"; emit SELE"
        "CT \"e\", count(*) AS \"count(1)\", \"e\" AS \"__weir_end\" FROM (SE"
        "LECT * FROM ROWS) AS \"__weir_rows\" GROUP BY 1]");
    /* A sliding window: a row is kept until its last window ends (that
     * of the slide holding it, plus the duration). */
    ops_str(&b, "SELECT window(ts, '2 minutes', '1 minute') AS w, count(*) FROM "
                "STREAM t WATERMARK ts DELAY OF INTERVAL 1 MINUTE GROUP BY w",
            false);
    CHECK(strstr(weir__buf_cstr(&b), "))).\"start\" + CAST('2 minutes' AS "
                                     "INTERVAL)) AS \"__weir_end\" FROM") != NULL);
    CHECK(strstr(weir__buf_cstr(&b), "; emit SELECT \"__weir_sw\".\"__weir_w"
                                     "indow\" AS \"w\", count(*)") != NULL);
    CHECK(strstr(weir__buf_cstr(&b), ", LATERAL (SELECT unnest(") != NULL);
    /* A join below: not planned. */
    OPS("SELECT window(t.ts, '1 minute') AS w, count(*) FROM STREAM t "
        "WATERMARK ts DELAY OF INTERVAL 1 MINUTE JOIN d ON t.k = d.k GROUP BY w",
        "AGG GROUP BY @1 wm");
    OPS("WITH s AS (SELECT * FROM STREAM t WATERMARK ts DELAY OF INTERVAL 1 "
        "SECOND) SELECT DISTINCT * FROM s",
        "AGG SELECT DISTINCT @76 wm");
    OPS("SELECT k, count(DISTINCT v) FROM STREAM t GROUP BY k", "UNSUPPORTED - @11");
    OPS("SELECT k, count(*) FROM STREAM t GROUP BY ROLLUP(k)", "UNSUPPORTED - @1");
    OPS("SELECT * FROM STREAM a UNION SELECT * FROM STREAM b", "AGG UNION (DISTINCT) @1");
    /* Deduplication as the Connect translator writes it; in a SQL file,
     * the window function Spark refuses. */
    OPS_PY("SELECT * FROM (SELECT * FROM STREAM t) AS _p1 QUALIFY row_number() "
           "OVER (PARTITION BY `id` ORDER BY `id`) = 1",
           "DEDUP dropDuplicates(id) @1 [keys id; event time -; input SELECT * "
           "FROM (SELECT * FROM \"t\" AS \"t\") AS \"_p1\"]");
    OPS_PY("SELECT * FROM (SELECT * FROM STREAM t) WATERMARK ts DELAY OF "
           "INTERVAL '1 minute' AS _p1 QUALIFY row_number() OVER (PARTITION "
           "BY `id`, ts ORDER BY `id`, ts) = 1",
           "DEDUP dropDuplicates(id, ts) @1 wm [keys id ts; event time ts; input "
           "SELECT * FROM (SELECT * FROM \"t\" AS \"t\") AS \"_p1\"; watermark "
           "ts: SELECT max(\"ts\") AS \"m\" FROM (SELECT * FROM \"t\" AS \"t\") "
           "AS \"_p1\"]");
    OPS("SELECT * FROM (SELECT * FROM STREAM t) AS _p1 QUALIFY row_number() "
        "OVER (PARTITION BY `id` ORDER BY `id`) = 1",
        "WINFN row_number() @55");
    /* Joins of two streams. */
    OPS("SELECT * FROM STREAM(a) JOIN STREAM(b) ON a.k = b.k",
        "JOIN INNER JOIN @25 [keys; event time -; input join a: time -, evict "
        "never; b: time -, evict never]");
    OPS("SELECT * FROM STREAM a, STREAM b",
        "JOIN join (a comma in FROM) @23 [keys; event time -; input join a: "
        "time -, evict never; b: time -, evict never]");
    /* ... USING columns too; a full outer one without watermarks is
     * Spark's refusal. */
    OPS("SELECT * FROM STREAM a FULL JOIN STREAM b USING (k)", "UNSUPPORTED - @24");
    /* Spark refuses a semi join whose left rows would stay forever. */
    OPS("SELECT * FROM (SELECT * FROM STREAM a) x LEFT SEMI JOIN STREAM b ON x.k = b.k",
        "UNSUPPORTED - @42");
    OPS("WITH s AS (SELECT * FROM STREAM b) SELECT * FROM STREAM a JOIN s USING (k)",
        "JOIN INNER JOIN @59 [keys; event time -; input join a: time -, evict "
        "never; s: time -, evict never]");
    /* Joins of two streams weir keeps state for: what each side's rows
     * wait for (the range condition's bounds). */
    ops_str(&b, "SELECT i.id, c.cid FROM STREAM(imp) WATERMARK its DELAY OF "
                "INTERVAL 10 MINUTES AS i LEFT JOIN STREAM(clk) WATERMARK cts "
                "DELAY OF INTERVAL 10 MINUTES AS c ON c.id = i.id AND c.cts >= "
                "i.its AND c.cts <= i.its + INTERVAL 15 MINUTES", false);
    CHECK(strstr(weir__buf_cstr(&b), "join i: time its, evict W - INTERVAL '15' "
                                     "MINUTE; c: time cts, evict W; watermark") != NULL);
    ops_str(&b, "SELECT * FROM STREAM(a) AS a JOIN STREAM(b) AS b ON a.k = b.k",
            false);
    CHECK(strstr(weir__buf_cstr(&b), "join a: time -, evict never; b: time -, "
                                     "evict never") != NULL);
    ops_str(&b, "SELECT * FROM STREAM(a) WATERMARK t DELAY OF INTERVAL 1 "
                "MINUTE AS a JOIN STREAM(b) WATERMARK t DELAY OF INTERVAL 1 "
                "MINUTE AS b ON a.t BETWEEN b.t - INTERVAL 5 MINUTES AND b.t",
            false);
    CHECK(strstr(weir__buf_cstr(&b), "join a: time t, evict W - INTERVAL '5' "
                                     "MINUTE; b: time t, evict W; watermark") != NULL);
    /* An outer join whose rows would never leave the state: Spark's error. */
    OPS("SELECT * FROM STREAM(a) AS a LEFT JOIN STREAM(b) AS b ON a.k = b.k",
        "UNSUPPORTED - @30");
    /* What Spark refuses on streams. */
    OPS("SELECT * FROM STREAM a LEFT ANTI JOIN STREAM b USING (k)", "UNSUPPORTED - @24");
    OPS("SELECT * FROM a LEFT JOIN STREAM b USING (k)", "UNSUPPORTED - @17");
    OPS("SELECT * FROM STREAM a RIGHT JOIN b USING (k)", "UNSUPPORTED - @24");
    OPS("SELECT * FROM STREAM a FULL JOIN b USING (k)", "UNSUPPORTED - @24");
    OPS("SELECT * FROM STREAM a ORDER BY k", "UNSUPPORTED - @33");
    /* LIMIT keeps the count of rows written (Spark in append mode). */
    OPS("SELECT * FROM STREAM a LIMIT 3",
        "LIMIT LIMIT @24 [keys; event time -; input SELECT * FROM \"a\" AS \"a\"]");
    OPS("SELECT * FROM STREAM a LIMIT 3 OFFSET 1", "UNSUPPORTED - @39 | LIMIT LIMIT @24");
    OPS("SELECT k, row_number() OVER (ORDER BY k) AS rn FROM STREAM t",
        "WINFN row_number() (as column `rn`) @11");
    OPS("SELECT * FROM STREAM a INTERSECT SELECT * FROM STREAM b", "UNSUPPORTED - @1");
    OPS("SELECT * FROM a EXCEPT SELECT * FROM STREAM b", "UNSUPPORTED - @1");
    OPS("SELECT * FROM STREAM a EXCEPT SELECT * FROM b", "EXCEPT EXCEPT @1");
    OPS("SELECT * FROM STREAM a UNION ALL SELECT * FROM b", "UNSUPPORTED - @1");
    OPS("SELECT monotonically_increasing_id() AS id FROM STREAM a", "UNSUPPORTED - @8");
    weir__buf_free(&b);
}

TEST(test_sql_reads__text)
{
    weir_arena a = WEIR_ARENA_INIT;
    weir_sql_source s;
    weir_sql_query *q;
    q = pq(&a, &s, "  WITH x AS (SELECT 1) SELECT * FROM x  ");
    size_t len;
    const char *txt = weir__sql_query_text(q, &len);
    CHECK_INT(len, 36);
    CHECK(strncmp(txt, "WITH", 4) == 0);
    CHECK(weir__sql_query_source(q) == &s);

    weir_sql_expr *e;
    s = src_of("x > 0 AND t.y IS NOT NULL AND transform(arr, v -> v + z) IS NOT NULL");
    CHECK_INT(weir__sql_parse_expr(&e, &a, &s, 0, s.len, NULL), 0);
    const char **cols;
    size_t n;
    CHECK_INT(weir__sql_expr_columns(&cols, &n, &a, e), 0);
    CHECK_INT(n, 4);
    if (n == 4) {
        CHECK_STR(cols[0], "x");
        CHECK_STR(cols[1], "y");
        CHECK_STR(cols[2], "arr");
        CHECK_STR(cols[3], "z");
    }
    CHECK(!weir__sql_expr_has_subquery(e));
    s = src_of("x IN (SELECT 1)");
    CHECK_INT(weir__sql_parse_expr(&e, &a, &s, 0, s.len, NULL), 0);
    CHECK(weir__sql_expr_has_subquery(e));
    weir_buf b = WEIR_BUF_INIT;
    s = src_of("x <=> 1 AND name RLIKE '^a'");
    CHECK_INT(weir__sql_parse_expr(&e, &a, &s, 0, s.len, NULL), 0);
    CHECK_INT(weir__sql_translate_expr(&b, e, NULL, NULL), 0);
    CHECK_STR(weir__buf_cstr(&b),
              "((\"x\" IS NOT DISTINCT FROM 1) AND regexp_matches(\"name\", '^a'))");
    weir__buf_free(&b);
    weir__arena_free(&a);
}

/* ------------------------------------------------------------------------
 * Lexer edge cases (through the expression parser)
 * ------------------------------------------------------------------------ */

static void check_expr(const char *file, int line, const char *text,
                       const char *want)
{
    weir_arena a = WEIR_ARENA_INIT;
    weir_sql_source s = src_of(text);
    weir_sql_expr *e;
    weir_error err;
    weir_buf b = WEIR_BUF_INIT;
    memset(&err, 0, sizeof(err));
    int rc = weir__sql_parse_expr(&e, &a, &s, 0, s.len, &err);
    if (!rc)
        rc = weir__sql_translate_expr(&b, e, NULL, &err);
    const char *got = rc ? err.message : weir__buf_cstr(&b);
    if (strcmp(got, want) != 0) {
        fprintf(stderr, "  %s:%d: \"%s\" -> \"%s\", expected \"%s\"\n", file, line,
                text, got, want);
        T_.failures++;
    }
    weir__buf_free(&b);
    weir__arena_free(&a);
}

#define EXPR(text, want) check_expr(__FILE__, __LINE__, text, want)

TEST(test_sql_lex__edge_cases)
{
    EXPR("`a``b`", "\"a`b\"");
    EXPR("'a\\nb'", "'a\nb'");
    EXPR("'it''s' \"x\" 'y'", "'it''sxy'");
    EXPR("'\\u0041\\t'", "'A\t'");
    EXPR("R'\\n'", "'\\n'");
    EXPR("'50\\%'", "'50\\%'");
    EXPR("1 /* c /* nested */ */ + -- x\n 2", "(1 + 2)");
    EXPR("1L + 2S + 3Y", "((CAST(1 AS BIGINT) + CAST(2 AS SMALLINT)) + CAST(3 AS TINYINT))");
    EXPR("1e3 + .5 + 2.5BD", "((CAST(1e3 AS DOUBLE) + CAST('.5' AS DECIMAL(1,1))) + "
                             "CAST('2.5' AS DECIMAL(2,1)))");
    EXPR("X'0aFF'", "from_hex('0aFF')");
    EXPR("a::int", "CAST(weir_trunc_for_int(\"a\") AS INTEGER)");
    EXPR("a == b", "(\"a\" = \"b\")");
    EXPR("a != b", "(\"a\" <> \"b\")");
    EXPR("NOT a AND b OR c", "(((NOT \"a\") AND \"b\") OR \"c\")");
    EXPR("!a", "(NOT \"a\")");
    EXPR("a | b & c", "(\"a\" | (\"b\" & \"c\"))");
    EXPR("1abc", "\"1abc\"");
    EXPR("`select`.`from`", "\"select\".\"from\"");
    EXPR("f(", "Syntax error at or near end of input");
    EXPR("'abc", "Syntax error at or near '''");
    EXPR("a $ b", "Syntax error at or near '$'");
    EXPR("CAST(a AS ARRAY<MAP<STRING, STRUCT<x: INT, `y z`: DECIMAL(5,2)>>>)",
         "CAST(\"a\" AS MAP(VARCHAR, STRUCT(\"x\" INTEGER, \"y z\" DECIMAL(5,2)))[])");
}

TEST(test_sql_lex__deep_nesting)
{
    weir_arena a = WEIR_ARENA_INIT;
    char buf[4200];
    size_t n = 0;
    for (int i = 0; i < 2000; i++)
        buf[n++] = '(';
    buf[n++] = '1';
    for (int i = 0; i < 2000; i++)
        buf[n++] = ')';
    buf[n] = '\0';
    weir_sql_source s = src_of(buf);
    weir_sql_expr *e;
    weir_error err;
    CHECK_INT(weir__sql_parse_expr(&e, &a, &s, 0, s.len, &err), WEIR_ESQL);
    CHECK_CONTAINS(err.message, "nested too deeply");
    weir__arena_free(&a);
}

/* A keyword whose form fails to parse is read as a column name (SELECT
 * case FROM t); each token's form is tried once, so nested failing forms
 * stay linear instead of doubling the work at each level (2^200 here). */
TEST(test_sql_parse__keyword_retries_linear)
{
    static const char *const PATTERNS[] = { "CASE WHEN 1 THEN ",
                                            "CASE WHEN x = CASE ",
                                            "CASE WHEN 1 THEN 2 ELSE CASE " };
    for (size_t k = 0; k < sizeof(PATTERNS) / sizeof(PATTERNS[0]); k++) {
        weir_arena a = WEIR_ARENA_INIT;
        weir_buf b = WEIR_BUF_INIT;
        weir__buf_puts(&b, "SELECT ");
        for (int i = 0; i < 200; i++)
            weir__buf_puts(&b, PATTERNS[k]);
        weir__buf_puts(&b, "x");
        weir_sql_source s = src_of(weir__buf_cstr(&b));
        weir_sql_query *q;
        weir_error err;
        CHECK_INT(weir__sql_parse_query(&q, &a, &s, 0, s.len, &err), WEIR_ESQL);
        CHECK_STR(err.error_class, "PARSE_SYNTAX_ERROR");
        weir__buf_free(&b);
        weir__arena_free(&a);
    }
}

/* ------------------------------------------------------------------------
 * Types
 * ------------------------------------------------------------------------ */

static void check_type(const char *file, int line, const char *text,
                       const char *duck, const char *spark)
{
    weir_arena a = WEIR_ARENA_INIT;
    weir_sql_type *t;
    weir_error err;
    weir_buf b1 = WEIR_BUF_INIT, b2 = WEIR_BUF_INIT;
    if (weir__sql_parse_type(&t, &a, text, &err) != 0) {
        fprintf(stderr, "  %s:%d: %s: %s\n", file, line, text, err.message);
        T_.failures++;
    } else {
        weir__sql_type_to_duckdb(&b1, t);
        weir__sql_type_to_spark(&b2, t);
        if (strcmp(weir__buf_cstr(&b1), duck) || strcmp(weir__buf_cstr(&b2), spark)) {
            fprintf(stderr, "  %s:%d: %s -> %s / %s\n", file, line, text,
                    weir__buf_cstr(&b1), weir__buf_cstr(&b2));
            T_.failures++;
        }
    }
    weir__buf_free(&b1);
    weir__buf_free(&b2);
    weir__arena_free(&a);
}

static void check_d2s(const char *file, int line, const char *duck,
                      const char *spark)
{
    weir_buf b = WEIR_BUF_INIT;
    weir__sql_duckdb_type_to_spark(&b, duck);
    if (strcmp(weir__buf_cstr(&b), spark) != 0) {
        fprintf(stderr, "  %s:%d: %s -> %s, expected %s\n", file, line, duck,
                weir__buf_cstr(&b), spark);
        T_.failures++;
    }
    weir__buf_free(&b);
}

#define TYPE(t, d, s) check_type(__FILE__, __LINE__, t, d, s)
#define D2S(d, s) check_d2s(__FILE__, __LINE__, d, s)

TEST(test_sql_types__spark_and_duckdb)
{
    TYPE("STRING", "VARCHAR", "string");
    TYPE("varchar(10)", "VARCHAR", "string");
    TYPE("LONG", "BIGINT", "bigint");
    TYPE("int", "INTEGER", "int");
    TYPE("SHORT", "SMALLINT", "smallint");
    TYPE("BYTE", "TINYINT", "tinyint");
    TYPE("REAL", "FLOAT", "float");
    TYPE("DOUBLE", "DOUBLE", "double");
    TYPE("DECIMAL", "DECIMAL(10,0)", "decimal(10,0)");
    TYPE("NUMERIC(12, 3)", "DECIMAL(12,3)", "decimal(12,3)");
    TYPE("TIMESTAMP_NTZ", "TIMESTAMP", "timestamp_ntz");
    TYPE("TIMESTAMP_LTZ", "TIMESTAMP", "timestamp");
    TYPE("BINARY", "BLOB", "binary");
    TYPE("VOID", "\"NULL\"", "void");
    TYPE("INTERVAL DAY TO SECOND", "INTERVAL", "interval");
    TYPE("ARRAY<ARRAY<INT>>", "INTEGER[][]", "array<array<int>>");
    TYPE("MAP<STRING, BIGINT>", "MAP(VARCHAR, BIGINT)", "map<string,bigint>");
    TYPE("STRUCT<a: INT, b STRING NOT NULL COMMENT 'x'>",
         "STRUCT(\"a\" INTEGER, \"b\" VARCHAR)", "struct<a:int,b:string>");
    D2S("BIGINT", "bigint");
    D2S("INTEGER", "int");
    D2S("VARCHAR", "string");
    D2S("TIMESTAMP WITH TIME ZONE", "timestamp");
    D2S("DECIMAL(10,2)", "decimal(10,2)");
    D2S("HUGEINT", "decimal(38,0)");
    D2S("UINTEGER", "bigint");
    D2S("VARCHAR[]", "array<string>");
    D2S("INTEGER[][]", "array<array<int>>");
    D2S("STRUCT(a INTEGER, \"b c\" VARCHAR[])", "struct<a:int,`b c`:array<string>>");
    D2S("MAP(VARCHAR, STRUCT(x DOUBLE))", "map<string,struct<x:double>>");
    D2S("\"NULL\"", "void");
    D2S("UUID", "string");
    D2S("BLOB", "binary");
    D2S("INTERVAL", "interval");
    D2S("GEOMETRY", "geometry");
}

/* ------------------------------------------------------------------------
 * weir query statements and read_files
 * ------------------------------------------------------------------------ */

static void check_stmt(const char *file, int line, const char *text,
                       const char *want)
{
    weir_arena a = WEIR_ARENA_INIT;
    weir_sql_source s = src_of(text);
    weir_buf b = WEIR_BUF_INIT;
    weir_error err;
    memset(&err, 0, sizeof(err));
    int rc = weir__sql_translate_statement(&b, &a, &s, 0, s.len, NULL, &err);
    const char *got = rc ? err.message : weir__buf_cstr(&b);
    if (strcmp(got, want) != 0) {
        fprintf(stderr, "  %s:%d: \"%s\"\n    -> \"%s\"\n    expected \"%s\"\n",
                file, line, text, got, want);
        T_.failures++;
    }
    weir__buf_free(&b);
    weir__arena_free(&a);
}

#define STMT(text, want) check_stmt(__FILE__, __LINE__, text, want)

TEST(test_sql_stmt__weir_query)
{
    STMT("SELECT 1", "SELECT 1 AS \"1\"");
    STMT("CREATE TABLE IF NOT EXISTS db.t (a INT NOT NULL, b STRING COMMENT 'x') "
         "USING delta PARTITIONED BY (a)",
         "CREATE TABLE IF NOT EXISTS \"db\".\"t\" (\"a\" INTEGER NOT NULL, \"b\" VARCHAR)");
    STMT("CREATE OR REPLACE TABLE t AS SELECT 1 AS x",
         "CREATE OR REPLACE TABLE \"t\" AS SELECT 1 AS \"x\"");
    STMT("CREATE VIEW v AS SELECT * FROM t", "CREATE VIEW \"v\" AS SELECT * FROM \"t\" AS \"t\"");
    STMT("INSERT INTO TABLE t (a) VALUES (1), (2)",
         "INSERT INTO \"t\" (\"a\") SELECT * FROM (VALUES (1), (2)) AS \"__values\"(\"col1\")");
    STMT("INSERT OVERWRITE t SELECT 1",
         "CREATE OR REPLACE TEMPORARY TABLE temp.main.\"__weir_overwrite\" AS "
         "SELECT 1 AS \"1\"; DELETE FROM \"t\"; INSERT INTO \"t\" SELECT * FROM "
         "temp.main.\"__weir_overwrite\"; DROP TABLE temp.main.\"__weir_overwrite\"");
    STMT("INSERT OVERWRITE TABLE t (a) BY NAME SELECT 1 AS a",
         "CREATE OR REPLACE TEMPORARY TABLE temp.main.\"__weir_overwrite\" AS "
         "SELECT 1 AS \"a\"; DELETE FROM \"t\"; INSERT INTO \"t\" (\"a\") BY NAME "
         "SELECT * FROM temp.main.\"__weir_overwrite\"; DROP TABLE "
         "temp.main.\"__weir_overwrite\"");
    STMT("ATTACH 'x.duckdb' AS x",
         "ATTACH is not allowed in weir query: weir query runs Spark SQL on the "
         "pipeline's catalogs, one atomic statement at a time, and this statement "
         "would reach past them (database files, extensions, engine settings, "
         "files, transactions). Use a stock DuckDB shell on a copy of the storage "
         "(duckdb -init <storage>/open.sql) instead");
    STMT("INSERT INTO t BY NAME SELECT 1 AS a",
         "INSERT INTO \"t\" BY NAME SELECT 1 AS \"a\"");
    STMT("DELETE FROM t WHERE a = 1", "DELETE FROM \"t\" WHERE (\"a\" = 1)");
    STMT("UPDATE t SET a = a + 1, b = 'x' WHERE a > 0",
         "UPDATE \"t\" SET \"a\" = (\"a\" + CAST(1 AS INTEGER)), \"b\" = 'x' WHERE (\"a\" > 0)");
    STMT("TRUNCATE TABLE t", "DELETE FROM \"t\"");
    STMT("DROP TABLE IF EXISTS t", "DROP TABLE IF EXISTS \"t\"");
    STMT("DROP VIEW v", "DROP VIEW \"v\"");
    STMT("CREATE DATABASE IF NOT EXISTS d", "CREATE SCHEMA IF NOT EXISTS \"d\"");
    STMT("DROP SCHEMA d CASCADE", "DROP SCHEMA \"d\" CASCADE");
    STMT("ALTER TABLE t ADD COLUMNS (x INT, y STRING)",
         "ALTER TABLE \"t\" ADD COLUMN \"x\" INTEGER; ALTER TABLE \"t\" ADD COLUMN \"y\" VARCHAR");
    STMT("USE db", "USE \"db\"");
    STMT("SET a.b = 1", "SELECT 'a.b' AS \"key\", '1' AS \"value\"");
    STMT("MERGE INTO t USING s ON t.a = s.a WHEN MATCHED THEN DELETE",
         "MERGE INTO is not supported by weir query");
    STMT("GRANT SELECT ON t TO u", "This statement is not supported by weir query");
}

static void check_rf(const char *file, int line, const char *text,
                     const char *const *files, size_t n, const char *want)
{
    weir_arena a = WEIR_ARENA_INIT;
    weir_sql_source s = src_of(text);
    weir_sql_query *q = NULL;
    weir_sql_reads r;
    weir_buf b = WEIR_BUF_INIT;
    weir_error err;
    memset(&err, 0, sizeof(err));
    int rc = weir__sql_parse_query(&q, &a, &s, 0, s.len, &err);
    if (!rc)
        rc = weir__sql_query_reads(&r, &a, q, &err);
    if (!rc && r.n_tvfs != 1)
        rc = -1;
    if (!rc)
        rc = weir__sql_render_read_files(&b, &r.tvfs[0], files, n, "/base", &err);
    const char *got = rc ? err.message : weir__buf_cstr(&b);
    if (strcmp(got, want) != 0) {
        fprintf(stderr, "  %s:%d: %s\n    -> %s\n    expected %s\n", file, line, text,
                got, want);
        T_.failures++;
    }
    weir__buf_free(&b);
    weir__arena_free(&a);
}

#define RF(text, want) check_rf(__FILE__, __LINE__, text, NULL, 0, want)

TEST(test_sql_read_files__render)
{
    RF("SELECT * FROM read_files('in/*.json')",
       "read_json('/base/in/*.json', format = 'newline_delimited', union_by_name = true)");
    RF("SELECT * FROM read_files('/d/x.csv', header => true, sep => ';')",
       "(SELECT COLUMNS(c -> NOT regexp_full_match(c, 'column[0-9]+')) FROM "
       "read_csv('/d/x.csv', union_by_name = true, header = true, delim = ';', "
       "null_padding = true))");
    RF("SELECT * FROM read_files('/d/x.csv')",
       "(SELECT COLUMNS('^column(\\d+)$') AS '_c\\1' FROM read_csv('/d/x.csv', "
       "union_by_name = true, header = false))");
    RF("SELECT * FROM read_files('/d/', format => 'parquet', recursiveFileLookup => true)",
       "read_parquet('/d/**/[!._]*', union_by_name = true)");
    RF("SELECT * FROM read_files('/d/', format => 'json', pathGlobFilter => '*.jsonl', "
       "multiLine => true, schema => 'a INT, b STRING')",
       "read_json('/d/[!._]*.jsonl', format = 'auto', union_by_name = true, columns = "
       "{'a': 'INTEGER', 'b': 'VARCHAR'})");
    RF("SELECT * FROM cloud_files('/d/', 'csv', map('header', 'true', "
       "'cloudFiles.inferColumnTypes', 'false', 'cloudFiles.schemaLocation', '/s'))",
       "(SELECT COLUMNS(c -> NOT regexp_full_match(c, 'column[0-9]+')) FROM "
       "read_csv('/d/[!._]*', union_by_name = true, header = true, all_varchar = true, "
       "null_padding = true))");
    RF("SELECT * FROM read_files('/d/a.txt')",
       "(SELECT unnest(regexp_split_to_array(regexp_replace(content, '\\r?\\n$', ''), "
       "'\\r?\\n')) AS \"value\" FROM read_text('/d/a.txt') WHERE content <> '')");
    RF("SELECT * FROM read_files('/d/', format => 'json', bogus => 1)",
       "Option 'bogus' of read_files() is not supported");
    RF("SELECT * FROM read_files('/d/')",
       "read_files(): cannot infer the file format of '/d/'; pass format => 'json' | "
       "'csv' | 'parquet' | 'text'");
    const char *files[] = { "/x/1.json", "rel/2.json" };
    check_rf(__FILE__, __LINE__, "SELECT * FROM read_files('/x/', format => 'json')",
             files, 2,
             "read_json(['/x/1.json', '/base/rel/2.json'], format = "
             "'newline_delimited', union_by_name = true)");
}

/* A resolver that maps every table to a subquery and names TVFs. */
static int rel_cb(void *payload, const weir_sql_relref *ref, weir_buf *out,
                  weir_error *err)
{
    (void)err;
    int *calls = payload;
    (*calls)++;
    weir__buf_printf(out, "(SELECT '%s%s' AS src)", ref->name.parts[ref->name.n - 1],
                     ref->streaming ? ":stream" : "");
    return 0;
}

static int tvf_cb(void *payload, const weir_sql_tvf *call, weir_buf *out,
                  weir_error *err)
{
    (void)payload;
    if (strcmp(call->name, "read_files") == 0)
        return weir__sql_render_read_files(out, call, NULL, 0, "/in", err);
    return WEIR_ENOTFOUND;
}

TEST(test_sql_translate__resolver)
{
    weir_arena a = WEIR_ARENA_INIT;
    weir_sql_source s;
    weir_sql_query *q = pq(&a, &s,
                           "SELECT x.src, y.src FROM STREAM cat.db.x JOIN y ON true "
                           "CROSS JOIN range(2) r, read_files('f.json') j");
    int calls = 0;
    weir_sql_resolver res = { .relation = rel_cb, .tvf = tvf_cb, .payload = &calls };
    weir_buf b = WEIR_BUF_INIT;
    weir_error err;
    CHECK_INT(weir__sql_translate_query(&b, q, &res, &err), 0);
    CHECK_INT(calls, 2);
    CHECK_STR(weir__buf_cstr(&b),
              "SELECT \"x\".\"src\" AS \"src\", \"y\".\"src\" AS \"src\" FROM "
              "(SELECT 'x:stream' AS src) AS \"x\" JOIN (SELECT 'y' AS src) AS \"y\" "
              "ON true CROSS JOIN (SELECT \"range\" AS \"id\" FROM range(CAST(2 AS "
              "BIGINT))) AS \"r\", read_json('/in/f.json', format = "
              "'newline_delimited', union_by_name = true) AS \"j\"");
    weir__buf_free(&b);
    weir__arena_free(&a);
}

/* A table function whose relation carries a hidden column (a file
 * source's _metadata): `*` and `alias.*` over it leave it out, a star
 * over other relations or an outer SELECT does not name it. */
static int hidden_tvf(void *payload, const weir_sql_tvf *call, weir_buf *out,
                      weir_error *err)
{
    (void)payload;
    (void)err;
    if (strcmp(call->name, "read_files") != 0)
        return WEIR_ENOTFOUND;
    weir__buf_puts(out, "(SELECT 1 AS a, {'f': 'x'} AS _metadata)");
    return 0;
}

static const char *hidden_col(void *payload, const weir_sql_tvf *call)
{
    (void)payload;
    return strcmp(call->name, "read_files") == 0 ? "_metadata" : NULL;
}

TEST(test_sql_translate__hidden_columns)
{
    static const char *const cases[][2] = {
        { "SELECT *, _metadata.f FROM read_files('a')",
          "SELECT * EXCLUDE (\"_metadata\"), \"_metadata\".\"f\" AS \"f\" FROM "
          "(SELECT 1 AS a, {'f': 'x'} AS _metadata) AS \"read_files\"" },
        { "SELECT j.*, y.*, * EXCEPT (a) FROM read_files('a') j, y",
          "SELECT \"j\".* EXCLUDE (\"_metadata\"), \"y\".*, * EXCLUDE (\"a\", "
          "\"_metadata\") FROM "
          "(SELECT 1 AS a, {'f': 'x'} AS _metadata) AS \"j\", \"y\" AS \"y\"" },
        { "SELECT * FROM (SELECT * FROM read_files('a')) s",
          "SELECT * FROM (SELECT * EXCLUDE (\"_metadata\") FROM (SELECT 1 AS a, "
          "{'f': 'x'} AS _metadata) AS \"read_files\") AS \"s\"" },
        { "SELECT j.*, d.x FROM read_files('a') j JOIN (SELECT * FROM y) d ON true "
          "WHERE EXISTS (SELECT * FROM z)",
          "SELECT \"j\".* EXCLUDE (\"_metadata\"), \"d\".\"x\" AS \"x\" FROM "
          "(SELECT 1 AS a, {'f': 'x'} AS _metadata) AS \"j\" JOIN (SELECT * FROM "
          "\"y\" AS \"y\") AS \"d\" ON true WHERE (EXISTS (SELECT * FROM \"z\" AS \"z\"))" },
        { "SELECT * EXCEPT (_metadata) FROM read_files('a') j, read_files('b') k",
          "SELECT * EXCLUDE (\"_metadata\") FROM (SELECT 1 AS a, {'f': 'x'} AS "
          "_metadata) AS \"j\", (SELECT 1 AS a, {'f': 'x'} AS _metadata) AS \"k\"" },
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        weir_arena a = WEIR_ARENA_INIT;
        weir_sql_source s;
        weir_sql_query *q = pq(&a, &s, cases[i][0]);
        weir_sql_resolver res = { .tvf = hidden_tvf, .tvf_hidden = hidden_col };
        weir_buf b = WEIR_BUF_INIT;
        weir_error err;
        CHECK_INT(weir__sql_translate_query(&b, q, &res, &err), 0);
        CHECK_STR(weir__buf_cstr(&b), cases[i][1]);
        weir__buf_free(&b);
        weir__arena_free(&a);
    }
}

/* AUTO CDC: the three spellings, every clause, in any order after KEYS. */
/* A table name on its own, as the API and the Connect front end take one:
 * what FROM would read, and nothing else. */
TEST(test_sql_parse__table_name)
{
    weir_arena a = WEIR_ARENA_INIT;
    weir_sql_name n;
    weir_error err;
    weir_sql_source s = src_of("cat.`my db`.events");
    CHECK_INT(weir__sql_parse_table_name(&n, &a, &s, &err), 0);
    CHECK_INT(n.n, 3);
    if (n.n == 3) {
        CHECK_STR(n.parts[0], "cat");
        CHECK_STR(n.parts[1], "my db");
        CHECK_STR(n.parts[2], "events");
    }
    s = src_of("LIVE.t");
    CHECK_INT(weir__sql_parse_table_name(&n, &a, &s, &err), 0);
    CHECK(n.n == 1 && n.live && strcmp(n.parts[0], "t") == 0);
    s = src_of("range");
    CHECK_INT(weir__sql_parse_table_name(&n, &a, &s, &err), 0);
    CHECK_INT(n.n, 1);
    s = src_of("a.b.c.d");
    CHECK_INT(weir__sql_parse_table_name(&n, &a, &s, &err), WEIR_ESQL);
    CHECK_STR(err.error_class, "REQUIRES_SINGLE_PART_NAMESPACE");
    const char *bad[] = { "t WHERE x", "t(1)", "a.", ".a", "", "t; u" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        s = src_of(bad[i]);
        CHECK_INT(weir__sql_parse_table_name(&n, &a, &s, &err), WEIR_ESQL);
    }
    weir__arena_free(&a);
}

TEST(test_sql_ddl__auto_cdc)
{
    parsed p;
    parse(&p,
          "CREATE FLOW f COMMENT 'c' AS AUTO CDC INTO LIVE.t\n"
          "FROM STREAM(src) KEYS (id, `b`) IGNORE NULL UPDATES\n"
          "APPLY AS DELETE WHEN op = 'D' APPLY AS TRUNCATE WHEN op = 'T'\n"
          "SEQUENCE BY ts COLUMNS * EXCEPT (op, x.y) STORED AS SCD TYPE 2\n"
          "TRACK HISTORY ON * EXCEPT (name);\n"
          "CREATE OR REFRESH STREAMING TABLE s COMMENT 'st' FLOW AUTO CDC FROM "
          "STREAM src KEYS (id) SEQUENCE BY struct(a, b) COLUMNS (id, v);\n"
          "APPLY CHANGES INTO LIVE.u FROM STREAM(LIVE.src) KEYS (k) SEQUENCE BY "
          "s COLUMNS *;\n"
          "CREATE FLOW g AS AUTO CDC INTO t FROM src KEYS () TRACK HISTORY ON a, b;\n");
    CHECK_INT(p.rc, 0);
    CHECK_INT(p.n, 4);
    if (p.n == 4) {
        const weir_sql_stmt *s = &p.st[0];
        const weir_sql_cdc *c = s->cdc;
        CHECK_INT(s->kind, WEIR_SQL_CREATE_FLOW);
        CHECK_STR(s->target.parts[0], "t");
        CHECK(c != NULL);
        CHECK(s->query != NULL);
        if (c) {
            CHECK_INT(c->n_keys, 2);
            CHECK_STR(c->keys[1].parts[0], "b");
            CHECK(c->ignore_null_updates);
            CHECK(c->delete_when && c->truncate_when && c->sequence_by);
            CHECK(c->columns.set && c->columns.except);
            CHECK_INT(c->columns.n, 2);
            CHECK_INT(c->columns.cols[1].n, 2);
            CHECK_INT(c->scd_type, 2);
            CHECK(c->track_history.set && c->track_history.except);
            CHECK_INT(c->pos.line, 1);
            CHECK_INT(c->pos.column, 30);
        }
        size_t len = 0;
        const char *q = weir__sql_query_text(s->query, &len);
        CHECK_INT(strncmp(q, "STREAM(src)", len), 0);
        s = &p.st[1];
        CHECK_INT(s->kind, WEIR_SQL_CREATE_STREAMING_TABLE);
        CHECK_STR(s->comment, "st");
        CHECK(s->cdc && s->cdc->scd_type == 1 && !s->cdc->scd_set);
        CHECK(s->cdc && s->cdc->columns.n == 2 && !s->cdc->columns.except);
        s = &p.st[2];
        CHECK_INT(s->kind, WEIR_SQL_CREATE_FLOW);
        CHECK_STR(s->name.parts[0], "u");
        CHECK_STR(s->target.parts[0], "u");
        CHECK(s->cdc && s->cdc->columns.set && s->cdc->columns.n == 0);
        s = &p.st[3];
        CHECK(s->cdc && s->cdc->n_keys == 0 && !s->cdc->sequence_by);
        CHECK(s->cdc && s->cdc->track_history.n == 2);
    }
    done(&p);
    const char *REG = "PIPELINE_SQL_GRAPH_ELEMENT_REGISTRATION_ERROR";
    ERR("CREATE STREAMING TABLE s (a INT) FLOW AUTO CDC FROM STREAM x KEYS (a) "
        "SEQUENCE BY a", REG, "Explicit column lists are not supported for AUTO CDC",
        1, 39);
    ERR("CREATE FLOW f AS AUTO CDC INTO t FROM STREAM x KEYS (a) STORED AS SCD "
        "TYPE 3", "PARSE_SYNTAX_ERROR", "STORED AS SCD TYPE takes 1 or 2", 1, 76);
    ERR("CREATE FLOW f AS AUTO CDC INTO t FROM STREAM x KEYS (a) SEQUENCE BY a "
        "SEQUENCE BY b", "PARSE_SYNTAX_ERROR", "Syntax error", 1, 83);
    ERR("CREATE FLOW f AS AUTO CDC INTO t FROM STREAM x KEYS (a) WHERE a > 1",
        "PARSE_SYNTAX_ERROR", "Syntax error", 1, 57);
}

TEST_MAIN(RUN(test_sql_split__basics); RUN(test_sql_translate__resolver); RUN(test_sql_translate__hidden_columns); RUN(test_sql_split__errors);
          RUN(test_sql_ddl__materialized_view_and_table);
          RUN(test_sql_ddl__flow_import_checkpoint);
          RUN(test_sql_ddl__auto_cdc); RUN(test_sql_parse__table_name);
          RUN(test_sql_ddl__views_flows_sinks_set_use);
          RUN(test_sql_ddl__errors); RUN(test_sql_ddl__continues_after_errors);
          RUN(test_sql_reads__scoping); RUN(test_sql_reads__tvf_args);
          RUN(test_sql_reads__text); RUN(test_sql_stream_ops);
          RUN(test_sql_reads__unaliased_columns); RUN(test_sql_lex__edge_cases);
          RUN(test_sql_lex__deep_nesting);
    RUN(test_sql_parse__keyword_retries_linear); RUN(test_sql_types__spark_and_duckdb);
          RUN(test_sql_stmt__weir_query); RUN(test_sql_read_files__render))
