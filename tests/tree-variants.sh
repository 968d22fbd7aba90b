#!/bin/bash
# The guest-variants checks (tests/guest-variants.sh) on a kernel built by
# scripts/build-kernel.sh --tree with the kit's series, e.g. Linux 7.3 with
# patches/linux-7.3/: every driver variant selectable and taking its path.
# make check-tree-variants TREE=DIR runs it after the build.  TAP output.
#
#   tests/tree-variants.sh BUILDDIR TREEBUILD
set -uo pipefail
B=$(cd "${1:?usage: tree-variants.sh BUILDDIR TREEBUILD}" && pwd)
T=$(cd "${2:?usage: tree-variants.sh BUILDDIR TREEBUILD}" && pwd)
ROOT=$(cd "$(dirname "$0")/.." && pwd)

series=$(cat "$T/guest/series" 2>/dev/null)
case $series in
applied*) ;;
*)
    echo "not ok 1 - $T: the kit's series is not in this kernel ($series): no variants to check"
    echo "1..1"
    exit 1
    ;;
esac
# The tree's build holds its kernel, module and initramfs; the QEMU and
# the host tools are the kit's
ln -sfn "$B/qemu-system-aarch64" "$T/qemu-system-aarch64"
ln -sfn "$B/runner" "$T/runner"
echo "# $T: series $series"
exec "$ROOT/tests/guest-variants.sh" "$T"
