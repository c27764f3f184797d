/*
 * The UI server's bound on connections without the token (gate.c), for
 * server.c only: pass ui_gate_notify with the gate as
 * MHD_OPTION_NOTIFY_CONNECTION, call ui_gate_admit when a request shows
 * the token, free the gate after stopping the daemon.
 */
#ifndef WEIR_UI_GATE_H
#define WEIR_UI_GATE_H

#include <microhttpd.h>

typedef struct ui_gate ui_gate;

/* A connection that shows no token within auth_ms is ended. NULL when out
 * of memory or threads. */
ui_gate *ui_gate_new(unsigned auth_ms);
void ui_gate_free(ui_gate *g);
void ui_gate_notify(void *cls, struct MHD_Connection *connection,
                    void **socket_context,
                    enum MHD_ConnectionNotificationCode toe);
/* The connection's request carried the token: no longer bounded. */
void ui_gate_admit(ui_gate *g, struct MHD_Connection *connection);

#endif
