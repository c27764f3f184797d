/*
 * Object storage URLs (s3://, gs://, abfss://, https://, ...) as weir
 * takes them wherever it takes a path: which store a URL names, the one
 * spelling weir keeps of it (checkpoint keys, messages, what DuckDB is
 * given) and its parts. Pure text; reaching the store is src/store's
 * (objstore.h). See docs/object-storage.md.
 */
#ifndef WEIR_UTIL_URL_H
#define WEIR_UTIL_URL_H

#include <stdbool.h>
#include <stddef.h>

#include "buf.h"

typedef enum weir_url_kind {
    WEIR_URL_NONE = 0, /* a local path (or file: URI) */
    WEIR_URL_S3,       /* s3://, s3a://, s3n:// (Spark's spellings) */
    WEIR_URL_GCS,      /* gs://, gcs:// */
    WEIR_URL_AZURE,    /* abfss://, abfs://, az://, azure:// */
    WEIR_URL_HTTP      /* http://, https:// (read only) */
} weir_url_kind;

/* The store a path names by its scheme (case-insensitive), or
 * WEIR_URL_NONE. */
weir_url_kind weir__url_kind(const char *path);
static inline bool weir__url_is_remote(const char *path)
{
    return path && weir__url_kind(path) != WEIR_URL_NONE;
}
/* A short name of the kind for messages: "S3", "GCS", "Azure", "HTTP". */
const char *weir__url_kind_name(weir_url_kind k);
/* Whether weir can write objects there (not HTTP). */
bool weir__url_writable(weir_url_kind k);

/* The spelling weir keeps of a URL (malloc'd, NULL on OOM): the scheme in
 * lower case and one per store (s3a:// and s3n:// are s3://, gcs:// is
 * gs://; azure:// is az://), the rest as written but for a trailing '/'
 * (a prefix names the same objects with or without it). */
char *weir__url_normalize(const char *url);

/* The bucket (or container, or host for HTTP) of a URL, written into
 * out; false when the URL has none. */
bool weir__url_bucket(const char *url, char *out, size_t size);

/* Where the first object-store URL starts in text (a scheme this module
 * knows followed by "://", anywhere: in a string literal too), and its
 * kind; NULL when there is none. Statements are scanned with this before
 * DuckDB runs them (store/objstore.h). */
const char *weir__url_find(const char *text, weir_url_kind *kind);

#endif
