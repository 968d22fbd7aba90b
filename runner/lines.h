/*
 * The line-transfer model's counters (-icount ...,line-ns=T): QEMU's
 * x-query-icount-lines text as JSON, its addresses named from the
 * kernel's System.map.
 *
 * Copyright (c) 2026 smmulab contributors
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef SMMULAB_LINES_H
#define SMMULAB_LINES_H

#include <json-glib/json-glib.h>

/*
 * @text (x-query-icount-lines) as an object: line_ns, the vCPUs'
 * transfers, stall_insns and waits summed, stall_ns (the stall at
 * @insn_ns a instruction), and hottest: the lines with
 * the most stall (addr, pc, transfers, stall_insns, and function and data:
 * the kernel symbols of pc and addr, "sym+0xoff", from @system_map when it
 * can be read, "" where none holds them).  NULL if @text is not that text.
 */
JsonNode *smmulab_lines_parse(const char *text, const char *system_map,
                              guint64 insn_ns);

#endif
