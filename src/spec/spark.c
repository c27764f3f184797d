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
    /* Named like the definition files: relative to the spec's folder. */
    const char *name = strrchr(spec->path, '/');
    weir_spec_report r = { name ? name + 1 : spec->path, spec->text,
                           spec->text_len, &d, NULL, 0 };
    int rc = 0;
    if (spec->storage_uri && !absolute_uri(spec->storage_uri)) {
        SPEC_REPORT(&r, "PIPELINE_STORAGE_ROOT_INVALID", spec->storage_pos,
                    "Spark wants the storage root as an absolute path with a "
                    "URI scheme (weir resolves `%.*s` against the spec's "
                    "folder)",
                    weir__spec_clip(spec->storage_uri), spec->storage_uri);
        const char *uri = weir__arena_printf(arena, "storage: file://%s",
                                             spec->storage);
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
