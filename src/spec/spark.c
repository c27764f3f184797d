/*
 * What open-source Apache Spark 4.1 refuses in a spec weir accepts (part of
 * weir_pipeline_check_spark; docs/spark.md): a storage that is not an
 * absolute URI with a scheme, and weir's `expectations` field.
 */
#include "spec/spec_internal.h"

#include <stdio.h>

/* An absolute URI with a scheme, as Spark's PIPELINE_STORAGE_ROOT_INVALID
 * check wants: scheme ":" then a "/" (file:///p, file:/p, s3a://b/p). */
static bool absolute_uri(const char *s)
{
    size_t i = 0;
    if (!s || !((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z')))
        return false;
    while (s[i] && s[i] != ':' && s[i] != '/')
        i++;
    return i > 1 && s[i] == ':' && s[i + 1] == '/';
}

/* Files are named like the definition files: relative to the spec's
 * folder (both the spec and the environments file are in it). */
static const char *base_name(const char *path)
{
    const char *slash = path ? strrchr(path, '/') : NULL;
    return slash ? slash + 1 : path;
}

/* "storage: file://<path>", the path percent-encoded where a URI needs it
 * (Spark parses the storage as a java.net.URI; weir decodes %XX). */
static const char *file_uri(weir_arena *arena, const char *path)
{
    static const char ok[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                             "0123456789-._~/!$&'()*+,;=:@";
    size_t n = strlen(path);
    char *out = weir__arena_alloc(arena, sizeof("storage: file://") + 3 * n);
    if (!out)
        return NULL;
    size_t o = (size_t)sprintf(out, "storage: file://");
    for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
        if (strchr(ok, *p))
            out[o++] = (char)*p;
        else
            o += (size_t)sprintf(out + o, "%%%02X", *p);
    }
    out[o] = '\0';
    return out;
}

/* Add the problem r just reported (the last diagnostic) as a finding. */
static int add(weir__findings *out, weir__diags *d, const char *construct,
               const char *portable)
{
    if (!d->len)
        return d->oom ? WEIR_ENOMEM : 0;
    weir_spark_finding f;
    memset(&f, 0, sizeof(f));
    f.construct = construct;
    f.rejected = true;
    f.portable = portable;
    f.at = d->items[d->len - 1];
    f.at.code = 0;
    return weir__findings_add(out, &f);
}

int weir__spec_spark_findings(weir__findings *out, weir_arena *arena,
                              const weir_spec *spec)
{
    weir__diags d = { 0 };
    weir_spec_report r = { base_name(spec->path), spec->text, spec->text_len,
                           &d, NULL, 0 };
    int rc = 0;
    if (spec->storage_uri && !absolute_uri(spec->storage_uri)) {
        weir_spec_report er = { base_name(spec->storage_file),
                                spec->storage_file_text,
                                spec->storage_file_len, &d, NULL, 0 };
        weir_spec_report *sr = spec->storage_file ? &er : &r;
        SPEC_REPORT(sr, "PIPELINE_STORAGE_ROOT_INVALID", spec->storage_pos,
                    "Spark wants the storage root as an absolute path with a "
                    "URI scheme (weir resolves `%.*s` against the spec's "
                    "folder)",
                    weir__spec_clip(spec->storage_uri), spec->storage_uri);
        const char *uri = file_uri(arena, spec->storage);
        rc = uri ? add(out, &d, "relative storage", uri) : WEIR_ENOMEM;
    }
    if (!rc && spec->n_expectations) {
        SPEC_REPORT(&r, "PIPELINE_SPEC_UNEXPECTED_FIELD",
                    spec->expectations[0].pos,
                    "Spark's spec has no `expectations` field (it refuses "
                    "the spec)");
        rc = add(out, &d, "spec expectations",
                 "remove the field; Spark has no expectations: filter "
                 "with WHERE (condition) where a row should be dropped");
    }
    weir__diags_free(&d);
    return rc;
}
