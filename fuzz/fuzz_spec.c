/*
 * Fuzz target for the pipeline spec reader: any bytes are parsed as a
 * spark-pipeline.yml held in memory (weir__spec_parse). It must never
 * crash, hang or leak, and a spec it accepts must be fully filled in.
 * Library globs are not expanded (that would walk the real file system).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "spec/spec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    weir__diags diags = { NULL, 0, 0, 0 };
    weir_error err;
    weir_spec *spec = NULL;
    int rc = weir__spec_parse(&spec, "/fuzz/spark-pipeline.yml",
                              (const char *)data, size, &diags, &err);
    if (rc == 0) {
        /* Touch every string so the sanitizers check them. */
        size_t n = strlen(spec->name) + strlen(spec->storage) +
                   strlen(spec->storage_uri);
        for (size_t i = 0; i < spec->n_conf; i++)
            n += strlen(spec->conf[i].key) + strlen(spec->conf[i].value);
        for (size_t i = 0; i < spec->n_libraries; i++)
            n += strlen(spec->libraries[i].include) +
                 strlen(spec->libraries[i].pattern);
        for (size_t i = 0; i < spec->n_expectations; i++)
            n += strlen(spec->expectations[i].dataset) +
                 strlen(spec->expectations[i].name) +
                 strlen(spec->expectations[i].condition) +
                 strlen(spec->expectations[i].action);
        if (diags.len != 0 || n == SIZE_MAX)
            abort();
    } else if (rc == WEIR_ESPEC) {
        if (diags.len == 0 || !diags.items[0].error_class[0])
            abort();
        for (size_t i = 0; i < diags.len; i++)
            if (strlen(diags.items[i].message) == 0)
                abort();
    } else if (rc != WEIR_ENOMEM) {
        abort();
    }
    weir__spec_free(spec);
    weir__diags_free(&diags);
    return 0;
}
