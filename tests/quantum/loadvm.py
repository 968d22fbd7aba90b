#!/usr/bin/env python3
"""loadvm into lock-step quanta, inside rounds, of a state whose vCPUs are
all idle.

    loadvm.py QEMU IDLE BUSY DIR [LOADS]

IDLE is tests/tcg's quantum-idle built with TICKS=0 and PERIOD_US=5000000:
4 vCPUs waiting in WFI for timers 5 to 20 s ahead, vCPU 0 printing
"tick N" on semihosting; BUSY the same with BUSY=1 (the last vCPU spins,
so that a round is always in progress).  A stock icount QEMU (-icount
shift=4,sleep=off, -rtc clock=vm) runs each and takes snapshots on a
qcow2 disk written here (no qemu-img needed): 3 of BUSY at random
moments, and 5 of IDLE at moments when every vCPU waits and no timer is
due: stopped at random, the guest's "waiting" flags and due times read
with xp and the virtual clock from the PL031 (seconds; under sleep=off
the clock stands either just past a tick or at the next timer, 5 s
apart), let go again when not.  The same QEMU in the mode
(quantum=10000, where savevm is refused) then loads them LOADS times
(default 20): a BUSY snapshot, run for a random 0.02-0.3 s, then an
IDLE one, which lands inside a round and needs the warp to go on: the
guest must print a new tick within 10 s.  Prints one line a load and a
summary; exit status 1 if the guest stopped after any IDLE load.
"""
import json
import os
import random
import socket
import struct
import subprocess
import sys
import time


def qcow2(path, size=64 << 20):
    """An empty qcow2 (version 2, 64 KiB clusters): header, refcount
    table, refcount block, L1 table."""
    c = 1 << 16
    hdr = struct.pack(">4sIQIIQIIQQIIQ", b"QFI\xfb", 2, 0, 0, 16, size, 0,
                      1, 3 * c, c, 1, 0, 0)
    with open(path, "wb") as f:
        f.write(hdr.ljust(c, b"\0"))
        f.write(struct.pack(">Q", 2 * c).ljust(c, b"\0"))
        f.write(struct.pack(">4H", 1, 1, 1, 1).ljust(c, b"\0"))
        f.write(b"\0" * c)


class QMP:
    def __init__(self, path):
        for _ in range(300):
            try:
                self.s = socket.socket(socket.AF_UNIX)
                self.s.connect(path)
                break
            except OSError:
                time.sleep(0.05)
        else:
            sys.exit("loadvm.py: no QMP socket at " + path)
        self.f = self.s.makefile("rw")
        json.loads(self.f.readline())
        self.cmd("qmp_capabilities")

    def cmd(self, name, **args):
        self.f.write(json.dumps({"execute": name, "arguments": args}) + "\n")
        self.f.flush()
        while True:
            r = json.loads(self.f.readline())
            if "error" in r:
                raise RuntimeError("%s: %s" % (name, r["error"]["desc"]))
            if "return" in r:
                return r["return"]

    def hmp(self, line, output=False):
        out = self.cmd("human-monitor-command", **{"command-line": line})
        if output:
            return out
        if out.strip():
            raise RuntimeError("%s: %s" % (line, out.strip()))


def qemu(binary, guest, d, name, icount, extra=()):
    """QEMU running GUEST, its QMP and its console's path"""
    sock = os.path.join(d, name + ".qmp")
    out = os.path.join(d, name + ".console")
    p = subprocess.Popen(
        [binary, "-M", "virt", "-cpu", "cortex-a57", "-smp", "4",
         "-display", "none", "-monitor", "none", "-serial", "none",
         "-net", "none", "-semihosting-config",
         "enable=on,target=native,chardev=output",
         "-chardev", "file,path=%s,id=output" % out,
         "-drive", "if=none,id=disk,format=qcow2,file=%s" %
         os.path.join(d, "disk.qcow2"),
         "-icount", icount, "-rtc", "clock=vm", "-qmp", "unix:%s,server=on,wait=off" % sock,
         "-kernel", guest] + list(extra),
        stdout=subprocess.DEVNULL, stderr=open(out + ".err", "w"))
    return p, QMP(sock), out


PL031 = 0x09010000          # the virt board's RTC: RTCDR, seconds


def xp64(q, addr, n):
    """n 64-bit words of guest memory at addr"""
    out = q.hmp("xp /%dgx 0x%x" % (n, addr), True)
    return [int(w, 16) for line in out.splitlines()
            for w in line.split(":", 1)[1].split()]


def rtc(q):
    """the PL031's seconds"""
    return int(q.hmp("xp /1wx 0x%x" % PL031, True).split(":", 1)[1], 16)


def ticks(console):
    with open(console, "rb") as f:
        return f.read().count(b"tick ")


def main():
    binary, idle, busy, d = sys.argv[1:5]
    loads = int(sys.argv[5]) if len(sys.argv) > 5 else 20
    rng = random.Random()
    qcow2(os.path.join(d, "disk.qcow2"))

    nm = subprocess.run(["aarch64-linux-gnu-nm", idle], capture_output=True,
                        text=True, check=True).stdout.split("\n")
    sym = {line.split()[2]: int(line.split()[0], 16) for line in nm
           if len(line.split()) == 3}
    for guest, name, n in (idle, "idle", 5), (busy, "busy", 3):
        p, q, out = qemu(binary, guest, d, "stock-" + name,
                         "shift=4,sleep=off")
        rtc0 = rtc(q)
        at = []
        tries = 0
        while len(at) < n:
            time.sleep(rng.uniform(0.001, 0.05 if name == "idle" else 0.3))
            if name == "idle":
                tries += 1
                if tries > 3000:
                    sys.exit("loadvm.py: no moment with every vCPU idle and "
                             "no timer due in 3000 tries")
                q.hmp("stop")
                waiting = xp64(q, sym["waiting"], 2)
                cvals = xp64(q, sym["cvals"], 4)
                now = rtc(q) - rtc0
                if waiting != [0x100000001, 0x100000001] or \
                        min(cvals) / 62.5e6 - now < 2:
                    q.hmp("cont")
                    continue
            q.hmp("savevm %s%d" % (name, len(at)))
            at.append(str(ticks(out)))
            if name == "idle":
                q.hmp("cont")
        q.cmd("quit")
        p.wait()
        print("stock icount, %s: %d snapshots, at ticks %s%s" %
              (name, n, " ".join(at),
               " (%d tries)" % tries if name == "idle" else ""), flush=True)

    p, q, out = qemu(binary, idle, d, "quantum",
                     "shift=4,sleep=off,quantum=10000", ["-S"])
    stuck = 0
    for n in range(loads):
        s = "busy%d" % rng.randrange(3) if n % 2 == 0 else \
            "idle%d" % rng.randrange(5)
        q.hmp("loadvm " + s)
        before = ticks(out)
        q.cmd("cont")
        if s.startswith("busy"):
            time.sleep(rng.uniform(0.02, 0.3))
            continue
        deadline = time.time() + 10
        while ticks(out) == before and time.time() < deadline:
            time.sleep(0.01)
        if ticks(out) == before:
            stuck += 1
            print("load %d of %s: no tick in 10 s (stopped)" % (n + 1, s),
                  flush=True)
        else:
            print("load %d of %s: ran on" % (n + 1, s), flush=True)
    q.cmd("quit")
    p.wait()
    print("%d loads (%d of an idle state): %d stopped" %
          (loads, loads // 2, stuck))
    sys.exit(1 if stuck else 0)


if __name__ == "__main__":
    main()
