#!/usr/bin/env python3
"""Drive QEMU's gdbstub over the GDB remote serial protocol, without gdb.

    gdb-rsp.py PORT ACTION...

Actions, in order:
    wait=SECONDS   continue the guest, and stop it (Ctrl-C) after SECONDS
    break=ADDR     continue until the guest reaches ADDR (a breakpoint)
    step=N         step the stopped vCPU N instructions, timers and
                   interrupts on (qqemu.sstep=1), printing the PC after each
    stepother=N    step another vCPU N instructions (vCont;s:ID, as gdb
                   does under scheduler-locking) while the one that
                   stopped stays stopped; fails after 30 s without a stop
    detach         detach: the guest runs on
Prints one line per stop: "stop <how> thread <id> pc 0x<pc>".
"""
import socket
import sys
import time


class RSP:
    def __init__(self, port):
        deadline = time.time() + 30
        while True:
            try:
                self.s = socket.create_connection(("127.0.0.1", port))
                break
            except OSError:
                if time.time() > deadline:
                    raise
                time.sleep(0.1)
        self.buf = b""
        self.thread = None

    def _byte(self):
        while not self.buf:
            data = self.s.recv(4096)
            if not data:
                raise EOFError("gdbstub closed the connection")
            self.buf += data
        b, self.buf = self.buf[:1], self.buf[1:]
        return b

    def send(self, payload):
        data = payload.encode()
        pkt = b"$" + data + b"#%02x" % (sum(data) % 256)
        self.s.sendall(pkt)
        while self._byte() != b"+":
            pass

    def recv(self):
        while self._byte() != b"$":
            pass
        data = b""
        while True:
            b = self._byte()
            if b == b"#":
                break
            data += b
        self._byte()
        self._byte()
        self.s.sendall(b"+")
        return data.decode()

    def cmd(self, payload):
        self.send(payload)
        return self.recv()

    def threads(self):
        ids = []
        reply = self.cmd("qfThreadInfo")
        while reply.startswith("m"):
            ids += reply[1:].split(",")
            reply = self.cmd("qsThreadInfo")
        return ids

    def pc(self):
        reply = self.cmd("p20")
        return int.from_bytes(bytes.fromhex(reply), "little")

    def report(self, how, reply):
        thread = "?"
        for field in reply[3:].split(";"):
            if field.startswith("thread:"):
                thread = field[7:]
        self.thread = thread
        print("stop %s thread %s pc 0x%x" % (how, thread, self.pc()),
              flush=True)


def main():
    port = int(sys.argv[1])
    g = RSP(port)
    g.cmd("?")
    for action in sys.argv[2:]:
        name, _, arg = action.partition("=")
        if name == "wait":
            g.send("c")
            time.sleep(float(arg))
            g.s.sendall(b"\x03")
            g.report("interrupt", g.recv())
        elif name == "break":
            addr = int(arg, 16)
            assert g.cmd("Z0,%x,4" % addr) == "OK"
            g.send("c")
            reply = g.recv()
            assert g.cmd("z0,%x,4" % addr) == "OK"
            g.report("break", reply)
        elif name == "step":
            assert g.cmd("Qqemu.sstep=1") == "OK"
            for _ in range(int(arg)):
                g.report("step", g.cmd("s"))
        elif name == "stepother":
            other = [t for t in g.threads() if t != g.thread][0]
            assert g.cmd("Hg" + other) == "OK"
            g.s.settimeout(30)
            for _ in range(int(arg)):
                try:
                    reply = g.cmd("vCont;s:" + other)
                except socket.timeout:
                    print("stop stepother thread %s: none in 30 s" % other,
                          flush=True)
                    sys.exit(1)
                g.report("stepother", reply)
            g.s.settimeout(None)
        elif name == "detach":
            g.cmd("D")
        else:
            sys.exit("unknown action " + action)


if __name__ == "__main__":
    main()
