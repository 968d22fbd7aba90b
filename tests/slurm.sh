#!/bin/bash
# Scale out on a real engine: a one-node Slurm cluster (Debian's slurmctld,
# slurmd and munge) started here, the scenario submitted as a job array of
# shards with scripts/slurm-shards.sbatch (the docs' example), the shards
# merged, and the merged report compared with the one a single process
# writes (icount: the same, line for line but for the command line in its
# provenance).  The daemons are stopped however the test ends.  TAP output.
#
#   tests/slurm.sh BUILDDIR
set -uo pipefail
B=${1:?usage: slurm.sh BUILDDIR}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
B=$(cd "$B" && pwd)
RUN=$B/runner/smmulab-run
SC=tests/scenarios/shards.ini
cd "$ROOT"
n=0
fails=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
notok() { n=$((n + 1)); fails=$((fails + 1)); echo "not ok $n - $*"; }

for t in slurmctld slurmd munged sbatch squeue scontrol; do
    if ! command -v "$t" >/dev/null; then
        echo "1..0 # SKIP $t not installed (scripts/deps.sh installs slurmctld, slurmd, slurm-client and munge)"
        exit 0
    fi
done

T=$(mktemp -d /tmp/smmulab-slurm.XXXXXX)
export SLURM_CONF=$T/slurm.conf
cleanup() {
    scontrol shutdown >/dev/null 2>&1
    sleep 1
    for p in "$T"/*.pid; do
        [ -s "$p" ] && kill "$(cat "$p")" 2>/dev/null
    done
    sleep 1
    rm -rf "$T"
}
trap cleanup EXIT

# munge: its own key and socket, no system state touched
mkdir -p "$T/munge" "$T/state" "$T/spool" "$T/out"
chmod 700 "$T/munge"
dd if=/dev/urandom of="$T/munge/munge.key" bs=1024 count=1 status=none
chmod 400 "$T/munge/munge.key"
munged --force --key-file="$T/munge/munge.key" --socket="$T/munge/munge.sock" \
    --pid-file="$T/munged.pid" --log-file="$T/munged.log" \
    --seed-file="$T/munge/munge.seed"

host=$(hostname -s)
port=$((20000 + $$ % 20000))
cat >"$SLURM_CONF" <<CONF
ClusterName=smmulab
SlurmctldHost=$host
SlurmUser=$(id -un)
SlurmdUser=$(id -un)
AuthType=auth/munge
AuthInfo=socket=$T/munge/munge.sock
CredType=cred/munge
SlurmctldPort=$port
SlurmdPort=$((port + 1))
StateSaveLocation=$T/state
SlurmdSpoolDir=$T/spool
SlurmctldPidFile=$T/slurmctld.pid
SlurmdPidFile=$T/slurmd.pid
SlurmctldLogFile=$T/slurmctld.log
SlurmdLogFile=$T/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
MpiDefault=none
NodeName=$host CPUs=$(nproc) State=UNKNOWN
PartitionName=smmulab Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
slurmctld
slurmd
for _ in $(seq 60); do
    sinfo -h -o %T 2>/dev/null | grep -q idle && break
    sleep 1
done
if sinfo -h -o %T 2>/dev/null | grep -q idle; then
    ok "slurm: one-node cluster up ($(sinfo -h -o '%N %c CPUs %T'))"
else
    notok "slurm: the node did not come up: $(tail -n 3 "$T/slurmctld.log" "$T/slurmd.log" 2>/dev/null | tr '\n' ' ')"
    echo "1..$n"
    exit 1
fi

# The plan in one process, then as an array of 3 shards (one boot each)
"$RUN" --build "$B" --out "$T/one" "$SC" >"$T/one.out" 2>&1
boots=$("$RUN" --build "$B" --list "$SC" | wc -l)
sbatch --wait --array=1-"$boots" --chdir="$ROOT" --output="$T/out/%A_%a.out" \
    scripts/slurm-shards.sbatch "$SC" "$T/shards" --build "$B" >"$T/sbatch.out" 2>&1
rc=$?
job=$(sed -n 's/^Submitted batch job //p' "$T/sbatch.out")
if [ $rc = 0 ] && [ -n "$job" ] && [ "$(ls -d "$T"/shards/shard* 2>/dev/null | wc -l)" = "$boots" ]; then
    ok "slurm: job $job, an array of $boots shards, ran to the end"
else
    notok "slurm: sbatch --wait exit $rc: $(cat "$T/sbatch.out" "$T"/out/*.out 2>/dev/null | tail -n 5 | tr '\n' ' ')"
fi
"$RUN" --merge --out "$T/merged" "$T"/shards/shard* >"$T/merge.out" 2>&1
if [ -s "$T/one/report.txt" ] && [ -s "$T/merged/report.txt" ] && \
   diff <(grep -v '^  host: ' "$T/one/report.txt") \
        <(grep -v '^  host: ' "$T/merged/report.txt") >"$T/diff"; then
    ok "slurm: the merged report equals the one-process report ($(wc -l <"$T/merged/report.txt") lines, host line aside)"
else
    notok "slurm: merged report differs: $(head -n 8 "$T/diff" | tr '\n' ' ')"
fi

scontrol shutdown >/dev/null 2>&1
for _ in $(seq 60); do
    pgrep -x slurmctld >/dev/null || pgrep -x slurmd >/dev/null || break
    sleep 0.5
done
if ! pgrep -x slurmctld >/dev/null && ! pgrep -x slurmd >/dev/null; then
    ok "slurm: daemons stopped"
else
    notok "slurm: daemons still running after scontrol shutdown"
fi
echo "1..$n"
[ $fails = 0 ]
