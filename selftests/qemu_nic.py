#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""What QEMU's emulated NIC holds, read through a VM's monitor socket.

Usage: qemu_nic.py MONITOR_SOCKET [DEVICE]

For the segment NIC (DEVICE, the QOM path of its virtio backend; default
the second virtio-net-pci device, the harnesses' segment), prints per
queue (0 receive, 1 transmit) QEMU's own indices (last_avail_idx: the
next buffer it takes; used_idx: the next it returns; inuse: taken, not
returned) next to what the guest wrote in guest memory (the avail ring's
index: buffers offered; its flags and used_event) and what QEMU wrote
there for the guest (the used ring's index, flags and avail_event). A
transmit queue that stopped moving tells where it stopped:
- avail idx ahead of last_avail_idx, avail_event equal to last_avail_idx,
  inuse 0: QEMU asked to be kicked at the next buffer, the guest offered
  buffers past it and no kick arrived: a lost kick. The event index is a
  store/load handshake (each side publishes its own index, fences, then
  reads the other's); it loses only if a fence is missing on one side;
- the same, unchanged 5 s later, with avail_event behind last_avail_idx:
  QEMU stopped taking buffers without asking for a kick (QEMU);
- inuse non-zero: QEMU holds a packet its network backend did not take;
- used idx ahead of what the guest reclaimed, with interrupts asked for:
  the guest missed an interrupt.
Exit 0, or 1 if the monitor could not be read.
"""
import re
import socket
import sys

PROMPT = b"(qemu) "
DEFAULT_DEV = "/machine/peripheral-anon/device[1]/virtio-backend"


def hmp(sock, cmd):
    """One HMP command's output, the echo and prompt taken off."""
    sock.sendall(cmd.encode() + b"\n")
    buf = b""
    while not buf.endswith(PROMPT):
        data = sock.recv(65536)
        if not data:
            break
        buf += data
    text = re.sub(r"\x1b\[[0-9;]*[A-Za-z]", "", buf.decode(errors="replace"))
    text = text.replace("\r", "")
    lines = text.split("\n")[1:]  # the echoed command
    return "\n".join(line for line in lines if not line.startswith("(qemu)"))


def field(text, name):
    m = re.search(r"^\s*%s:\s*(\S+)" % re.escape(name), text, re.M)
    return m.group(1) if m else None


def halfwords(sock, addr, count):
    """COUNT 16-bit words of guest memory at ADDR."""
    out = hmp(sock, "xp /%dhx 0x%x" % (count, addr))
    return [int(w, 16) for w in re.findall(r"0x([0-9a-f]{4})\b", out.split(":", 1)[-1])]


def queue(sock, dev, index):
    st = hmp(sock, "info virtio-queue-status %s %d" % (dev, index))
    num = int(field(st, "num") or 0)
    avail = int(field(st, "avail") or "0", 16)
    used = int(field(st, "used") or "0", 16)
    name = "rx" if index == 0 else "tx"
    print("%s: last_avail_idx %s shadow_avail_idx %s used_idx %s inuse %s"
          " signalled_used %s" % (name, field(st, "last_avail_idx"),
                                  field(st, "shadow_avail_idx"),
                                  field(st, "used_idx"), field(st, "inuse"),
                                  field(st, "signalled_used")))
    if not num or not avail or not used:
        print("%s: no ring (%s)" % (name, st.strip()[:200]))
        return
    a = halfwords(sock, avail, 2)
    ue = halfwords(sock, avail + 4 + 2 * num, 1)
    u = halfwords(sock, used, 2)
    ae = halfwords(sock, used + 4 + 8 * num, 1)
    if len(a) == 2 and len(u) == 2 and ue and ae:
        print("%s: guest avail flags 0x%x idx %d used_event %d;"
              " QEMU used flags 0x%x idx %d avail_event %d"
              % (name, a[0], a[1], ue[0], u[0], u[1], ae[0]))


def main():
    if len(sys.argv) < 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    dev = sys.argv[2] if len(sys.argv) > 2 else DEFAULT_DEV
    try:
        sock = socket.socket(socket.AF_UNIX)
        sock.settimeout(5)
        sock.connect(sys.argv[1])
        hmp(sock, "")  # the banner, up to the first prompt
        for index in (0, 1):
            queue(sock, dev, index)
    except OSError as e:
        print("qemu_nic.py: %s: %s" % (sys.argv[1], e))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
