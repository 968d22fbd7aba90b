/*
 * smmulab: a minimal QMP client (GLib, GIO, json-glib)
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <gio/gio.h>
#include <gio/gunixsocketaddress.h>
#include <string.h>

#include "qmp.h"

struct SmmulabQmp {
    GSocketConnection *conn;
    GDataInputStream *in;
    GOutputStream *out;
    GPtrArray *events;          /* names of events seen */
};

static JsonNode *read_message(SmmulabQmp *q, GError **err)
{
    for (;;) {
        gsize len;
        g_autofree char *line = g_data_input_stream_read_line(q->in, &len,
                                                              NULL, err);
        JsonNode *node;

        if (!line) {
            if (err && !*err) {
                g_set_error(err, G_IO_ERROR, G_IO_ERROR_CLOSED,
                            "QMP connection closed by QEMU");
            }
            return NULL;
        }
        g_strstrip(line);
        if (!*line) {
            continue;
        }
        node = json_from_string(line, err);
        if (!node) {
            return NULL;
        }
        if (!JSON_NODE_HOLDS_OBJECT(node)) {
            json_node_unref(node);
            g_set_error(err, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                        "QMP sent a non-object: %s", line);
            return NULL;
        }
        return node;
    }
}

/* Remember an event's name; is @obj an event? */
static gboolean note_event(SmmulabQmp *q, JsonObject *obj)
{
    if (!json_object_has_member(obj, "event")) {
        return FALSE;
    }
    g_ptr_array_add(q->events,
                    g_strdup(json_object_get_string_member(obj, "event")));
    return TRUE;
}

static gboolean send_line(SmmulabQmp *q, const char *text, GError **err)
{
    g_autofree char *line = g_strconcat(text, "\n", NULL);

    return g_output_stream_write_all(q->out, line, strlen(line), NULL, NULL,
                                     err);
}

JsonNode *smmulab_qmp_execute(SmmulabQmp *q, const char *command,
                              const char *args_json, GError **err)
{
    g_autofree char *req = NULL;

    if (args_json) {
        req = g_strdup_printf("{\"execute\": \"%s\", \"arguments\": %s}",
                              command, args_json);
    } else {
        req = g_strdup_printf("{\"execute\": \"%s\"}", command);
    }
    if (!send_line(q, req, err)) {
        return NULL;
    }
    for (;;) {
        g_autoptr(JsonNode) msg = read_message(q, err);
        JsonObject *obj;

        if (!msg) {
            return NULL;
        }
        obj = json_node_get_object(msg);
        if (note_event(q, obj)) {
            continue;
        }
        if (json_object_has_member(obj, "error")) {
            JsonObject *e = json_object_get_object_member(obj, "error");

            g_set_error(err, G_IO_ERROR, G_IO_ERROR_FAILED, "QMP %s: %s",
                        command, json_object_get_string_member_with_default(
                            e, "desc", "unknown error"));
            return NULL;
        }
        if (json_object_has_member(obj, "return")) {
            return json_node_ref(json_object_get_member(obj, "return"));
        }
    }
}

SmmulabQmp *smmulab_qmp_connect(const char *path, guint timeout_ms,
                                GError **err)
{
    g_autoptr(GSocketClient) client = g_socket_client_new();
    /* "@NAME": Linux's abstract namespace, no file to leave behind */
    g_autoptr(GSocketAddress) addr = path[0] == '@' ?
        g_unix_socket_address_new_with_type(path + 1, -1,
                                            G_UNIX_SOCKET_ADDRESS_ABSTRACT) :
        g_unix_socket_address_new(path);
    gint64 deadline = g_get_monotonic_time() + (gint64)timeout_ms * 1000;
    GSocketConnection *conn = NULL;
    SmmulabQmp *q;
    JsonNode *greeting, *ret;

    for (;;) {
        g_autoptr(GError) local = NULL;

        conn = g_socket_client_connect(client, G_SOCKET_CONNECTABLE(addr),
                                       NULL, &local);
        if (conn) {
            break;
        }
        if (g_get_monotonic_time() > deadline) {
            g_set_error(err, G_IO_ERROR, G_IO_ERROR_TIMED_OUT,
                        "cannot connect to QMP socket %s: %s", path,
                        local->message);
            return NULL;
        }
        g_usleep(20000);
    }
    /*
     * Every read and write gives up after SMMULAB_QMP_TIMEOUT_S: a QEMU
     * whose monitor stops answering (stopped, wedged) must not hang us.
     */
    g_socket_set_timeout(g_socket_connection_get_socket(conn),
                         SMMULAB_QMP_TIMEOUT_S);
    q = g_new0(SmmulabQmp, 1);
    q->conn = conn;
    q->in = g_data_input_stream_new(
        g_io_stream_get_input_stream(G_IO_STREAM(conn)));
    g_data_input_stream_set_newline_type(q->in,
                                         G_DATA_STREAM_NEWLINE_TYPE_ANY);
    q->out = g_io_stream_get_output_stream(G_IO_STREAM(conn));
    q->events = g_ptr_array_new_with_free_func(g_free);

    greeting = read_message(q, err);
    if (!greeting) {
        smmulab_qmp_close(q);
        return NULL;
    }
    json_node_unref(greeting);
    ret = smmulab_qmp_execute(q, "qmp_capabilities", NULL, err);
    if (!ret) {
        smmulab_qmp_close(q);
        return NULL;
    }
    json_node_unref(ret);
    return q;
}

void smmulab_qmp_close(SmmulabQmp *q)
{
    if (!q) {
        return;
    }
    g_io_stream_close(G_IO_STREAM(q->conn), NULL, NULL);
    g_object_unref(q->in);
    g_object_unref(q->conn);
    g_ptr_array_unref(q->events);
    g_free(q);
}

gboolean smmulab_qmp_event_seen(SmmulabQmp *q, const char *name)
{
    guint i;

    for (i = 0; i < q->events->len; i++) {
        if (!strcmp(g_ptr_array_index(q->events, i), name)) {
            return TRUE;
        }
    }
    return FALSE;
}

gboolean smmulab_qmp_wait_event(SmmulabQmp *q, const char *name,
                                guint timeout_ms, GError **err)
{
    GSocket *sock = g_socket_connection_get_socket(q->conn);
    gint64 deadline = g_get_monotonic_time() + (gint64)timeout_ms * 1000;

    while (!smmulab_qmp_event_seen(q, name)) {
        gint64 left = deadline - g_get_monotonic_time();
        g_autoptr(JsonNode) msg = NULL;

        /* Only block in read when data is buffered or the socket is ready */
        if (g_buffered_input_stream_get_available(
                G_BUFFERED_INPUT_STREAM(q->in)) == 0) {
            if (left <= 0) {
                g_set_error(err, G_IO_ERROR, G_IO_ERROR_TIMED_OUT,
                            "no QMP %s event within %u ms", name, timeout_ms);
                return FALSE;
            }
            if (!g_socket_condition_timed_wait(sock, G_IO_IN, left, NULL,
                                               NULL)) {
                continue;
            }
        }
        msg = read_message(q, err);
        if (!msg) {
            return FALSE;
        }
        note_event(q, json_node_get_object(msg));
    }
    return TRUE;
}

/* Depth-first search of the QOM tree for a child<arm-smmuv3> */
static char *find_type(SmmulabQmp *q, const char *path, const char *type,
                       int depth, GError **err)
{
    g_autofree char *args = NULL;
    g_autoptr(JsonNode) ret = NULL;
    g_autofree char *want = g_strdup_printf("child<%s>", type);
    JsonArray *arr;
    guint i;

    if (depth > 4) {
        return NULL;
    }
    args = g_strdup_printf("{\"path\": \"%s\"}", path);
    ret = smmulab_qmp_execute(q, "qom-list", args, err);
    if (!ret) {
        return NULL;
    }
    arr = json_node_get_array(ret);
    for (i = 0; i < json_array_get_length(arr); i++) {
        JsonObject *p = json_array_get_object_element(arr, i);
        const char *t = json_object_get_string_member(p, "type");
        const char *n = json_object_get_string_member(p, "name");

        if (!strcmp(t, want)) {
            return g_strdup_printf("%s/%s", path, n);
        }
    }
    for (i = 0; i < json_array_get_length(arr); i++) {
        JsonObject *p = json_array_get_object_element(arr, i);
        const char *t = json_object_get_string_member(p, "type");
        const char *n = json_object_get_string_member(p, "name");
        g_autofree char *sub = NULL;
        char *found;

        if (!g_str_has_prefix(t, "child<") || !strcmp(n, "peripheral-anon") ||
            g_str_has_prefix(t, "child<qemu:memory-region")) {
            continue;
        }
        sub = g_strdup_printf("%s/%s", path, n);
        found = find_type(q, sub, type, depth + 1, err);
        if (found || (err && *err)) {
            return found;
        }
    }
    return NULL;
}

char *smmulab_qmp_find_smmu(SmmulabQmp *q, GError **err)
{
    char *path = find_type(q, "/machine/unattached", "arm-smmuv3", 0, err);

    if (!path && err && !*err) {
        path = find_type(q, "/machine", "arm-smmuv3", 0, err);
    }
    if (!path && err && !*err) {
        g_set_error(err, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                    "no arm-smmuv3 device in this machine (iommu=smmuv3?)");
    }
    return path;
}

JsonNode *smmulab_qmp_cmdq_stats(SmmulabQmp *q, const char *smmu_path,
                                 GError **err)
{
    g_autofree char *args = g_strdup_printf(
        "{\"path\": \"%s\", \"property\": \"x-cmdq-stats\"}", smmu_path);

    return smmulab_qmp_execute(q, "qom-get", args, err);
}
