#!/bin/bash
# Cost of lock-step quanta (-icount quantum=, patches/qemu/0014-0020): host time
# per virtual second and per operation, stock icount against two quanta,
# side by side, and quantum-yield=continue against forfeit, at 1 and 8
# vCPUs.
#
# Each point boots the guest once under icount (shift 4, sleep=off) and runs
# a workload for SECONDS of virtual time, one thread per vCPU:
#  - map-unmap (4 KiB) on a fast SMMU (every cost 0), at 1 and 8 vCPUs,
#    stock, quantum=10000 and 1000, each with quantum-yield=continue (the
#    default) and forfeit;
#  - spinning: asid-flush (a TLBI and a CMD_SYNC per flush) on an SMMU that
#    takes 20 us per command, 8 vCPUs, stock and quantum=10000 with both
#    yield settings: the CPUs mostly poll the queue (YIELD, WFE).
# The host time is QEMU's CPU time (user + sys, all its threads, from
# /proc) between the console lines that open and close the workload, so the
# boot is left out; the wall time of the same stretch is printed beside it.
# The guest's own figure is its operations per CPU per virtual second.
#
#   scripts/bench-quantum.sh [BUILDDIR] [SECONDS]
#   scripts/bench-quantum.sh --lines [BUILDDIR] [SECONDS]
#
# --lines: the line-transfer model's cost (patch 0021, make bench-lines):
# map-unmap on a fast SMMU at 8 and 16 vCPUs, quantum=10000 without the
# model and with line-ns=1600 and 4800, side by side; the host time per
# operation against the mode without it.
#
# Defaults: build, 1 s.  Deterministic: a rerun gives the same guest
# figures; the host figures vary with the host's load.
set -euo pipefail
SMMULAB_TAG=smmulab-bench-quantum
. "$(dirname "$0")/common.sh"

lines=0
if [ "${1:-}" = --lines ]; then
    lines=1
    shift
fi
B=${1:-$SMMULAB_ROOT/build}
secs=${2:-1}
qemu=$B/qemu-system-aarch64
topo=$B/runner/smmulab-topology
for f in "$qemu" "$topo" "$B/guest/Image" "$B/guest/initramfs.cpio"; do
    [ -e "$f" ] || die "$f missing: build first (make build)"
done
case $secs in ''|*[!0-9]*) die "SECONDS must be a whole number" ;; esac
logd=$B/logs/bench-quantum
mkdir -p "$logd"
log "QEMU $qemu; $(nproc) host CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"

python3 - "$qemu" "$topo" "$SMMULAB_ROOT/configs/topologies.ini" "$B/guest" \
    "$logd" "$secs" "$lines" <<'PY'
import os, subprocess, sys, time

qemu, topo, topofile, guest, logd, secs, lines = sys.argv[1:8]
modes = [("stock icount", None),
         ("Q=10us", "quantum=10000"),
         ("Q=1us", "quantum=1000"),
         ("Q=10us forfeit", "quantum=10000,quantum-yield=forfeit"),
         ("Q=1us forfeit", "quantum=1000,quantum-yield=forfeit")]
# (workload, SMMU properties, vCPUs, modes)
points = [("map-unmap", [], n, modes) for n in (1, 8)]
points.append(("asid-flush", ["cmdq-cmd-ns=20000"], 8,
               [modes[0], modes[1], modes[3]]))
if lines == "1":
    modes = [("Q=10us", "quantum=10000"),
             ("Q=10us T=1600", "quantum=10000,line-ns=1600"),
             ("Q=10us T=4800", "quantum=10000,line-ns=4800")]
    points = [("map-unmap", [], n, modes) for n in (8, 16)]

def cpu_seconds(pid):
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

def run(workload, props, n, opt, logf):
    machine = subprocess.run([topo, "--file", topofile, "--machine",
                              "--icount", "4", workload, "cpus=%d" % n],
                             check=True, capture_output=True,
                             text=True).stdout.split("\n")[:-1]
    append = subprocess.run([topo, "--file", topofile, "--append",
                             workload, "cpus=%d" % n], check=True,
                            capture_output=True, text=True).stdout.strip()
    cmd = [qemu] + machine + [
        "-kernel", guest + "/Image", "-initrd", guest + "/initramfs.cpio",
        "-append", append + " smmulab.seconds=%s smmulab.threads=%d"
        % (secs, n)]
    for p in props:
        cmd += ["-global", "arm-smmuv3." + p]
    if opt:
        cmd += ["-icount", opt]
    p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL,
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    start = end = None
    summary = {}
    with open(logf, "wb") as out:
        for raw in p.stdout:
            out.write(raw)
            line = raw.decode(errors="replace").strip()
            if line.startswith("RESULT kernel-counters-start"):
                start = (cpu_seconds(p.pid), time.monotonic())
            elif line.startswith("RESULT workload=%s thread=" % workload) \
                    and end is None:
                end = (cpu_seconds(p.pid), time.monotonic())
            elif line.startswith("RESULT workload=%s threads=" % workload):
                summary = dict(f.split("=", 1) for f in line.split()[1:]
                               if "=" in f)
    _, status, usage = os.wait4(p.pid, 0)
    if status or not (start and end and summary):
        sys.exit("run failed (status %d): %s" % (status, logf))
    vsec = int(summary["elapsed_ns"]) / 1e9
    ops = int(summary["ops"])
    host = end[0] - start[0]
    return {"rate": float(summary["ops_per_thread_per_sec"]),
            "host_per_vs": host / vsec, "wall_per_vs": (end[1] - start[1]) / vsec,
            "us_per_op": host / ops * 1e6,
            "total": usage.ru_utime + usage.ru_stime}

def lines_table(rows):
    print()
    print("shift 4, %s virtual s, a thread per vCPU; host = QEMU CPU time "
          "(user+sys) in the workload; map-unmap: 4 KiB, fast SMMU" % secs)
    print("| vCPUs | mode | ops per CPU per s | host s per virtual s | "
          "host us per op | host per op / without the model |")
    print("|---|---|---|---|---|---|")
    base = {n: r["us_per_op"] for w, n, name, r in rows if name == "Q=10us"}
    for w, n, name, r in rows:
        print("| %d | %s | %.1f | %.2f | %.1f | %.2f |"
              % (n, name, r["rate"], r["host_per_vs"], r["us_per_op"],
                 r["us_per_op"] / base[n]))

rows = []
for workload, props, n, ms in points:
    for name, opt in ms:
        tag = "%s-%s-%d" % (workload, name.replace(" ", "-").replace("=", ""),
                            n)
        r = run(workload, props, n, opt, os.path.join(logd, tag + ".log"))
        rows.append((workload, n, name, r))
        print("smmulab-bench-quantum: %s, %d vCPU(s), %-15s %8.1f ops/CPU/s, "
              "%.2f host s per virtual s" % (workload, n, name, r["rate"],
                                              r["host_per_vs"]), flush=True)

if lines == "1":
    lines_table(rows)
    sys.exit(0)
print()
print("shift 4, %s virtual s, a thread per vCPU; host = QEMU CPU time "
      "(user+sys) in the workload; map-unmap: 4 KiB, fast SMMU; asid-flush: "
      "20 us per command" % secs)
print("| workload | vCPUs | mode | ops per CPU per s | 8 vCPUs / 1 | "
      "host s per virtual s | wall s per virtual s | host us per op | "
      "QEMU CPU s, whole run |")
print("|---|---|---|---|---|---|---|---|---|")
one = {(w, name): r["rate"] for w, n, name, r in rows if n == 1}
for w, n, name, r in rows:
    ratio = ("%.3f" % (r["rate"] / one[(w, name)])
             if n > 1 and (w, name) in one else "")
    print("| %s | %d | %s | %.1f | %s | %.2f | %.2f | %.1f | %.1f |"
          % (w, n, name, r["rate"], ratio, r["host_per_vs"],
             r["wall_per_vs"], r["us_per_op"], r["total"]))
PY
