/*
 * smmulab: what produced a result
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef SMMULAB_PROVENANCE_H
#define SMMULAB_PROVENANCE_H

#include <glib.h>
#include <json-glib/json-glib.h>

/*
 * {"smmulab": git describe of the source tree, "runner_version",
 * "runner_cmdline", "qemu": its --version line, "qemu_patches_sha256",
 * "linux_patches_sha256", "kernel_image_sha256", "kernel_config_sha256"
 * (the kit's kernel only), "host_cpu", "host_cores"}; a field that cannot
 * be found is null.
 */
JsonNode *smmulab_provenance(const char *qemu, const char *kernel,
                             const char *build, int argc, char **argv);

/*
 * Record the SHA-256 of @variant's own kernel= image in @prov's
 * "variant_kernels_sha256" object (null if it cannot be read)
 */
void smmulab_provenance_add_kernel(JsonNode *prov, const char *variant,
                                   const char *kernel);

#endif
