/*
 * The operations of ExecutePlan kept for the client's reattachment: each
 * operation's responses, in order and within a byte budget, until the
 * client releases them (ReleaseExecute) or a newer operation needs the
 * room; ReattachExecute sends them again. Also whom an operation belongs
 * to (session, tags), so that Interrupt can mark the running ones it names
 * (their query or run then stops: server_exec.c). All under the server's
 * `state` lock (server_internal.h).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "connect/server_internal.h"

#define MAX_OPS 64
#define MAX_OP_BYTES (16u << 20) /* responses kept per operation */

typedef struct stored_response {
    char id[40];
    uint8_t *data;
    size_t len;
} stored_response;

#define MAX_OP_TAGS 16

typedef struct csrv_operation {
    char id[64];
    char session[64];
    char *tags[MAX_OP_TAGS]; /* the request's first tags (malloc'd) */
    WEIR_VEC(stored_response) responses;
    size_t bytes;
    bool done, failed, overflow;
    bool query;       /* runs a query (only those can be interrupted) */
    bool interrupted; /* by Interrupt, while it ran */
} operation;

/* ------------------------------------------------------------------------
 * Operations (responses kept for ReattachExecute)
 * ------------------------------------------------------------------------ */

static void op_free(operation *op)
{
    if (!op)
        return;
    for (size_t i = 0; i < op->responses.len; i++)
        free(op->responses.items[i].data);
    WEIR_VEC_FREE(&op->responses);
    for (size_t i = 0; i < MAX_OP_TAGS; i++)
        free(op->tags[i]);
    free(op);
}

/* Caller holds `state`. */
static operation *op_find(weir_connect_server *srv, const char *id, size_t *at)
{
    for (size_t i = 0; i < srv->ops.len; i++)
        if (strcmp(srv->ops.items[i]->id, id) == 0) {
            if (at)
                *at = i;
            return srv->ops.items[i];
        }
    return NULL;
}

static void op_remove(weir_connect_server *srv, const char *id)
{
    size_t at;
    operation *op = op_find(srv, id, &at);
    if (!op)
        return;
    memmove(&srv->ops.items[at], &srv->ops.items[at + 1],
            (srv->ops.len - at - 1) * sizeof *srv->ops.items);
    srv->ops.len--;
    op_free(op);
}

int weir__csrv_op_begin(weir_connect_server *srv, const char *id,
                        const char *session, char *const *tags, size_t n_tags,
                        weir__cstatus *st)
{
    pthread_mutex_lock(&srv->state);
    int rc = 0;
    if (op_find(srv, id, NULL)) {
        rc = weir__cstatus_set(st, WEIR_GRPC_INTERNAL,
                               "INVALID_HANDLE.OPERATION_ALREADY_EXISTS", "HY000",
                               "The handle %s is invalid. Operation already exists.",
                               id);
    } else {
        /* Forget the oldest finished operation when full. */
        for (size_t i = 0; srv->ops.len >= MAX_OPS && i < srv->ops.len; i++)
            if (srv->ops.items[i]->done) {
                op_remove(srv, srv->ops.items[i]->id);
                break;
            }
        operation *op = calloc(1, sizeof *op);
        if (srv->ops.len >= MAX_OPS || !op || WEIR_VEC_PUSH(&srv->ops, op)) {
            free(op);
            rc = weir__cstatus_set(st, WEIR_GRPC_RESOURCE_EXHAUSTED, "", "",
                                   "too many operations in progress");
        } else {
            snprintf(op->id, sizeof op->id, "%s", id);
            snprintf(op->session, sizeof op->session, "%s",
                     session ? session : "");
            for (size_t i = 0; i < n_tags && i < MAX_OP_TAGS; i++)
                op->tags[i] = tags[i] ? strdup(tags[i]) : NULL;
        }
    }
    pthread_mutex_unlock(&srv->state);
    return rc;
}

void weir__csrv_op_keep(weir_connect_server *srv, const char *id,
                    const char *response_id, const uint8_t *data, size_t len)
{
    pthread_mutex_lock(&srv->state);
    operation *op = op_find(srv, id, NULL);
    if (op && !op->overflow) {
        stored_response r;
        snprintf(r.id, sizeof r.id, "%s", response_id);
        r.len = len;
        r.data = op->bytes + len <= MAX_OP_BYTES ? malloc(len ? len : 1) : NULL;
        if (r.data && !WEIR_VEC_PUSH(&op->responses, r)) {
            memcpy(r.data, data, len);
            op->bytes += len;
        } else {
            free(r.data);
            op->overflow = true; /* cannot be reattached any more */
        }
    }
    pthread_mutex_unlock(&srv->state);
}

void weir__csrv_op_end(weir_connect_server *srv, const char *id, bool failed)
{
    pthread_mutex_lock(&srv->state);
    operation *op = op_find(srv, id, NULL);
    if (op) {
        op->done = true;
        op->failed = failed;
    }
    pthread_mutex_unlock(&srv->state);
}

void weir__csrv_op_is_query(weir_connect_server *srv, const char *id)
{
    pthread_mutex_lock(&srv->state);
    operation *op = op_find(srv, id, NULL);
    if (op)
        op->query = true;
    pthread_mutex_unlock(&srv->state);
}

bool weir__csrv_op_interrupted(weir_connect_server *srv, const char *id)
{
    pthread_mutex_lock(&srv->state);
    operation *op = op_find(srv, id, NULL);
    bool interrupted = op && op->interrupted;
    pthread_mutex_unlock(&srv->state);
    return interrupted;
}

/* Does the Interrupt request req name op (of its session)? */
static bool op_named(const operation *op,
                     const Spark__Connect__InterruptRequest *req)
{
    if (op->done || strcmp(op->session, req->session_id ? req->session_id : "") != 0)
        return false;
    switch (req->interrupt_type) {
    case SPARK__CONNECT__INTERRUPT_REQUEST__INTERRUPT_TYPE__INTERRUPT_TYPE_ALL:
        return true;
    case SPARK__CONNECT__INTERRUPT_REQUEST__INTERRUPT_TYPE__INTERRUPT_TYPE_TAG:
        for (size_t i = 0; req->interrupt_case ==
                               SPARK__CONNECT__INTERRUPT_REQUEST__INTERRUPT_OPERATION_TAG &&
                           i < MAX_OP_TAGS;
             i++)
            if (op->tags[i] && strcmp(op->tags[i], req->operation_tag) == 0)
                return true;
        return false;
    case SPARK__CONNECT__INTERRUPT_REQUEST__INTERRUPT_TYPE__INTERRUPT_TYPE_OPERATION_ID:
        return req->interrupt_case ==
                   SPARK__CONNECT__INTERRUPT_REQUEST__INTERRUPT_OPERATION_ID &&
               strcmp(op->id, req->operation_id) == 0;
    default:
        return false;
    }
}

size_t weir__csrv_op_interrupt(weir_connect_server *srv,
                               const Spark__Connect__InterruptRequest *req,
                               char **ids, size_t max_ids)
{
    size_t n = 0;
    pthread_mutex_lock(&srv->state);
    for (size_t i = 0; i < srv->ops.len; i++) {
        operation *op = srv->ops.items[i];
        if (!op->query || !op_named(op, req))
            continue;
        op->interrupted = true;
        if (n < max_ids && (ids[n] = strdup(op->id)))
            n++;
    }
    pthread_mutex_unlock(&srv->state);
    return n;
}

void weir__csrv_ops_free(weir_connect_server *srv)
{
    for (size_t i = 0; i < srv->ops.len; i++)
        op_free(srv->ops.items[i]);
    WEIR_VEC_FREE(&srv->ops);
}

/* ------------------------------------------------------------------------
 * ReattachExecute, ReleaseExecute
 * ------------------------------------------------------------------------ */

/* The responses after last_response_id (all without it), then the end. */
void weir__csrv_reattach(weir_connect_server *srv, weir__grpc_call *call)
{
    weir__cstatus st = { 0 };
    Spark__Connect__ReattachExecuteRequest *req =
        weir__ccall_decode(call, &spark__connect__reattach_execute_request__descriptor, &st);
    if (!req) {
        weir__ccall_fail(call, &st);
        return;
    }
    WEIR_VEC(stored_response) copy = WEIR_VEC_INIT;
    int rc = 0;
    pthread_mutex_lock(&srv->state);
    operation *op = op_find(srv, req->operation_id, NULL);
    if (!op)
        rc = weir__cstatus_set(&st, WEIR_GRPC_INTERNAL,
                               "INVALID_HANDLE.OPERATION_NOT_FOUND", "HY000",
                               "The handle %.64s is invalid. Operation not found.",
                               req->operation_id);
    else if (!op->done || op->overflow)
        rc = weir__cstatus_set(&st, WEIR_GRPC_INTERNAL,
                               "INVALID_CURSOR.NOT_REATTACHABLE", "HY109",
                               "The cursor is invalid. The operation %.64s "
                               "cannot be reattached while it runs.",
                               req->operation_id);
    else {
        size_t from = 0;
        if (req->_last_response_id_case && req->last_response_id) {
            from = op->responses.len; /* unknown id: nothing to resend */
            for (size_t i = 0; i < op->responses.len; i++)
                if (strcmp(op->responses.items[i].id, req->last_response_id) == 0)
                    from = i + 1;
        }
        for (size_t i = from; !rc && i < op->responses.len; i++) {
            stored_response r = op->responses.items[i];
            r.data = malloc(r.len ? r.len : 1);
            if (!r.data || WEIR_VEC_PUSH(&copy, r)) {
                free(r.data);
                rc = weir__cstatus_set(&st, WEIR_GRPC_RESOURCE_EXHAUSTED, "",
                                       "", "out of memory");
            } else
                memcpy(r.data, op->responses.items[i].data, r.len);
        }
    }
    pthread_mutex_unlock(&srv->state);
    for (size_t i = 0; !rc && i < copy.len; i++)
        if (weir__grpc_send(call, copy.items[i].data, copy.items[i].len))
            rc = weir__cstatus_set(&st, WEIR_GRPC_CANCELLED, "", "", "client gone");
    if (rc)
        weir__ccall_fail(call, &st);
    else
        weir__grpc_finish(call, WEIR_GRPC_OK, NULL, NULL, 0);
    for (size_t i = 0; i < copy.len; i++)
        free(copy.items[i].data);
    WEIR_VEC_FREE(&copy);
    spark__connect__reattach_execute_request__free_unpacked(req, NULL);
}

void weir__csrv_release_execute(weir_connect_server *srv,
                                   weir__grpc_call *call)
{
    weir__cstatus st = { 0 };
    Spark__Connect__ReleaseExecuteRequest *req =
        weir__ccall_decode(call, &spark__connect__release_execute_request__descriptor, &st);
    if (!req) {
        weir__ccall_fail(call, &st);
        return;
    }
    pthread_mutex_lock(&srv->state);
    operation *op = op_find(srv, req->operation_id, NULL);
    if (op && req->release_case ==
                  SPARK__CONNECT__RELEASE_EXECUTE_REQUEST__RELEASE_RELEASE_ALL) {
        op_remove(srv, req->operation_id);
    } else if (op && req->release_case ==
                         SPARK__CONNECT__RELEASE_EXECUTE_REQUEST__RELEASE_RELEASE_UNTIL) {
        const char *until = req->release_until->response_id;
        for (size_t i = 0; i < op->responses.len; i++)
            if (strcmp(op->responses.items[i].id, until) == 0) {
                for (size_t j = 0; j <= i; j++) {
                    op->bytes -= op->responses.items[j].len;
                    free(op->responses.items[j].data);
                }
                memmove(op->responses.items, op->responses.items + i + 1,
                        (op->responses.len - i - 1) * sizeof *op->responses.items);
                op->responses.len -= i + 1;
                break;
            }
    }
    pthread_mutex_unlock(&srv->state);
    Spark__Connect__ReleaseExecuteResponse resp =
        SPARK__CONNECT__RELEASE_EXECUTE_RESPONSE__INIT;
    resp.session_id = req->session_id;
    resp.server_side_session_id = srv->ssid;
    resp._operation_id_case =
        SPARK__CONNECT__RELEASE_EXECUTE_RESPONSE___OPERATION_ID_OPERATION_ID;
    resp.operation_id = req->operation_id;
    weir__ccall_reply(call, &resp.base);
    spark__connect__release_execute_request__free_unpacked(req, NULL);
}
