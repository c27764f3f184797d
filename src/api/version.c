/*
 * The public API's static strings: versions, error-code descriptions,
 * dataset kind names.
 */
#include "weir.h"

#include <duckdb.h>

#include "graph/graph.h"

const char *weir_version(void)
{
    return WEIR_VERSION;
}

const char *weir_duckdb_version(void)
{
    return duckdb_library_version();
}

const char *weir_strerror(int code)
{
    switch (code) {
    case WEIR_OK: return "success";
    case WEIR_ENOMEM: return "out of memory";
    case WEIR_EINVAL: return "invalid argument";
    case WEIR_ESPEC: return "invalid pipeline spec";
    case WEIR_ESQL: return "invalid SQL";
    case WEIR_EGRAPH: return "invalid dataflow graph";
    case WEIR_ENOTFOUND: return "not found";
    case WEIR_EEXISTS: return "already exists";
    case WEIR_EIO: return "I/O error";
    case WEIR_EBUSY: return "storage in use by another update";
    case WEIR_ECORRUPT: return "stored state is damaged";
    case WEIR_EENGINE: return "SQL engine error";
    case WEIR_ECANCELED: return "cancelled";
    default: return "error";
    }
}

const char *weir_dataset_kind_name(weir_dataset_kind kind)
{
    return weir__kind_name(kind);
}
