#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# Summarise the RoCEv2 traffic of a pcap (the segment capture of
# selftests/vm2.sh); python3 stdlib only, as the host has no tshark.
#
#   roce_pcap.py A.pcap [--peer-pcap B.pcap] [--ip IP --peer-ip IP]
#                [--context N] [--max-naks N] [--dump]
#
# A.pcap is the capture on the NIC of --ip (default 192.0.2.1), B.pcap on
# that of --peer-ip (192.0.2.2). With both, each sender's packets are
# counted as sent in its own capture and as received in the other's: lost on
# the segment, and arrived more than once (retransmissions that were not
# needed: the first copy had arrived).
#
# The capture is split into sections at the marker datagrams the two-host
# tests send (UDP to port 9, "SROCE-MARK TEST STEP start|done ..."). Per
# section and sender: RC request packets, and those whose (dst IP, dst QPN,
# PSN) was already sent in the section (retransmissions); NAKs and RNR NAKs,
# each with the packets around it. --dump lists every RoCE packet.
# The last block starts with a line "summary".

import argparse
import struct
import sys
from collections import Counter, defaultdict

OPS = {
    0x00: "SEND_FIRST", 0x01: "SEND_MIDDLE", 0x02: "SEND_LAST",
    0x03: "SEND_LAST_IMM", 0x04: "SEND_ONLY", 0x05: "SEND_ONLY_IMM",
    0x06: "WRITE_FIRST", 0x07: "WRITE_MIDDLE", 0x08: "WRITE_LAST",
    0x09: "WRITE_LAST_IMM", 0x0a: "WRITE_ONLY", 0x0b: "WRITE_ONLY_IMM",
    0x0c: "READ_REQUEST", 0x0d: "READ_RESP_FIRST", 0x0e: "READ_RESP_MIDDLE",
    0x0f: "READ_RESP_LAST", 0x10: "READ_RESP_ONLY", 0x11: "ACK",
    0x12: "ATOMIC_ACK", 0x13: "CMP_SWAP", 0x14: "FETCH_ADD",
    0x16: "SEND_LAST_INV", 0x17: "SEND_ONLY_INV",
}
RETH = {0x06, 0x0a, 0x0b, 0x0c}
IMM = {0x03, 0x05, 0x09, 0x0b}
AETH = {0x0d, 0x0f, 0x10, 0x11, 0x12}
IETH = {0x16, 0x17}
ATOMIC = {0x13, 0x14}
RESPONSES = {0x0d, 0x0e, 0x0f, 0x10, 0x11, 0x12}
NAK_CODES = {0: "PSN seq err", 1: "invalid request", 2: "remote access err",
             3: "remote op err", 4: "invalid RD req"}


def packets(path):
    """(time, frame bytes) of each record"""
    with open(path, "rb") as f:
        hdr = f.read(24)
        if len(hdr) < 24:
            return
        magic = struct.unpack("<I", hdr[:4])[0]
        if magic in (0xa1b2c3d4, 0xa1b23c4d):
            e = "<"
        else:
            e = ">"
            magic = struct.unpack(">I", hdr[:4])[0]
        div = 1e9 if magic == 0xa1b23c4d else 1e6
        linktype = struct.unpack(e + "I", hdr[20:24])[0]
        if linktype != 1:
            sys.exit("roce_pcap: link type %d, not Ethernet" % linktype)
        while True:
            rh = f.read(16)
            if len(rh) < 16:
                return
            sec, frac, incl, _ = struct.unpack(e + "IIII", rh)
            data = f.read(incl)
            if len(data) < incl:
                return
            yield sec + frac / div, data


def ip_udp(frame):
    """(src, dst, sport, dport, udp payload) or None"""
    et = struct.unpack(">H", frame[12:14])[0]
    off = 14
    if et == 0x8100:
        et = struct.unpack(">H", frame[16:18])[0]
        off = 18
    if et == 0x0800:
        ihl = (frame[off] & 0xf) * 4
        if frame[off + 9] != 17:
            return None
        src = ".".join(str(b) for b in frame[off + 12:off + 16])
        dst = ".".join(str(b) for b in frame[off + 16:off + 20])
        u = off + ihl
    elif et == 0x86dd:
        if frame[off + 6] != 17:
            return None
        src = frame[off + 8:off + 24].hex()
        dst = frame[off + 24:off + 40].hex()
        u = off + 40
    else:
        return None
    sport, dport, ulen = struct.unpack(">HHH", frame[u:u + 6])
    # the capture may hold only the headers (vm2.sh's maxlen): the UDP
    # length, not the bytes captured, gives the payload's
    return src, dst, sport, dport, ulen - 8, frame[u + 8:u + ulen]


def bth(p, plen):
    """the BTH and extension headers of UDP payload p (plen bytes long, maybe
    fewer captured), as a dict"""
    if len(p) < 16:
        return None
    op, flags = p[0], p[1]
    d = {"op": op, "dqpn": int.from_bytes(p[5:8], "big"),
         "ackreq": p[8] >> 7, "psn": int.from_bytes(p[9:12], "big"),
         "pad": (flags >> 4) & 3, "se": flags >> 7}
    o = 12
    low = op & 0x1f
    if op >= 0x60 and op < 0x80:      # UD: DETH
        o += 8
    if op < 0x20 or (0x20 <= op < 0x40 and low <= 0x0b):
        if low in RETH:
            d["va"], d["rkey"], d["dmalen"] = struct.unpack(">QII", p[o:o + 16])
            o += 16
        if op < 0x20 and low in AETH:
            d["syn"] = p[o]
            d["msn"] = int.from_bytes(p[o + 1:o + 4], "big")
            o += 4
            if low == 0x12:
                o += 8
        if op < 0x20 and low in ATOMIC:
            o += 28
        if low in IMM:
            o += 4
        if op < 0x20 and low in IETH:
            o += 4
    d["len"] = plen - o - d["pad"] - 4
    return d


def opname(op):
    cls = {0x00: "RC", 0x20: "UC", 0x60: "UD"}.get(op & 0xe0, "%02x" % (op & 0xe0))
    return cls + "_" + OPS.get(op & 0x1f, "op%02x" % (op & 0x1f))


def syn_str(s):
    t = s >> 5
    if t == 0:
        return "ACK"
    if t == 1:
        return "RNR-NAK(timer %d)" % (s & 0x1f)
    if t == 3:
        return "NAK(%s)" % NAK_CODES.get(s & 0x1f, "code %d" % (s & 0x1f))
    return "syn 0x%02x" % s


def line(t0, r):
    t, src, dst, b = r
    s = "%10.6f %s > %s %-22s qpn 0x%06x psn %8d (0x%06x) len %5d%s" % (
        t - t0, src, dst, opname(b["op"]), b["dqpn"], b["psn"], b["psn"],
        b["len"], " A" if b["ackreq"] else "")
    if "dmalen" in b:
        s += " va 0x%x dmalen %d" % (b["va"], b["dmalen"])
    if "syn" in b:
        s += " aeth 0x%02x %s msn %d" % (b["syn"], syn_str(b["syn"]), b["msn"])
    return s


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("pcap")
    ap.add_argument("--context", type=int, default=40)
    ap.add_argument("--max-naks", type=int, default=4)
    ap.add_argument("--dump", action="store_true")
    ap.add_argument("--peer-pcap")
    ap.add_argument("--ack-timeout-ms", type=int, default=67,
                    help="the requester's local ACK timeout (perftest's, 14: 67 ms)")
    ap.add_argument("--ip", default="192.0.2.1")
    ap.add_argument("--peer-ip", default="192.0.2.2")
    a = ap.parse_args()

    t0, sections = read_sections(a.pcap)
    peer = {}
    if a.peer_pcap:
        _, ps = read_sections(a.peer_pcap)
        peer = {n: pk for n, pk in ps}
    analyse(a, t0, sections, peer)


def read_sections(path):
    """(time of the first frame, [[marker text, [(t, src, dst, bth)...]]...])"""
    sections = [["(before the first marker)", []]]
    t0 = None
    for t, fr in packets(path):
        if t0 is None:
            t0 = t
        x = ip_udp(fr)
        if not x:
            continue
        src, dst, sport, dport, plen, pl = x
        if dport == 9 and pl.startswith(b"SROCE-MARK"):
            sections.append([pl.decode(errors="replace").strip()[11:], []])
            continue
        if dport != 4791:
            continue
        b = bth(pl, plen)
        if b:
            sections[-1][1].append((t, src, dst, b))
    return t0 or 0, sections


def requests(pk, src):
    """Counter of (dst, qpn, psn) of the RC requests sent by src"""
    c = Counter()
    for t, s, d, b in pk:
        if s == src and b["op"] < 0x20 and (b["op"] & 0x1f) not in RESPONSES:
            c[(d, b["dqpn"], b["psn"])] += 1
    return c


def bursts(pk, src, tmo):
    """(retransmission bursts of src, those that start less than tmo s after
    the first copy of their first PSN): go-back-N from a PSN sent once
    already. With a retransmit timer restarted on each ACK that makes
    progress, a burst starts tmo after the packet's first copy at the
    earliest (as the sender's NIC sees it)."""
    first = {}
    top = None
    n = early = 0
    prev = None
    for t, s, d, b in pk:
        if s != src or b["op"] >= 0x20 or (b["op"] & 0x1f) in RESPONSES:
            continue
        k = (d, b["dqpn"])
        p = b["psn"]
        if top is not None and k == top[0] and ((p - top[1]) & 0xffffff) >= 0x800000:
            # p is at or before the highest PSN sent: a retransmission
            if prev is None or prev != (k, (p - 1) & 0xffffff):
                n += 1
                if t - first.get((k, p), t) < tmo:
                    early += 1
            prev = (k, p)
            continue
        prev = None
        top = (k, p)
        first[(k, p)] = t
    return n, early


def analyse(a, t0, sections, peer):
    tot = defaultdict(Counter)
    tot_req = Counter()
    tot_dup = Counter()
    tot_nak = Counter()
    for name, pk in sections:
        if not pk:
            continue
        seen = set()
        req = Counter()
        dup = Counter()
        dupop = Counter()
        naks = []
        for i, (t, src, dst, b) in enumerate(pk):
            low = b["op"] & 0x1f
            if b["op"] >= 0x20:
                continue
            if low in RESPONSES:
                if "syn" in b and (b["syn"] >> 5) in (1, 3):
                    naks.append(i)
                    tot_nak[(src, syn_str(b["syn"]))] += 1
                continue
            req[src] += 1
            k = (dst, b["dqpn"], b["psn"])
            if k in seen:
                dup[src] += 1
                dupop[(src, opname(b["op"]))] += 1
            seen.add(k)
        print("== %s: %d RoCE packets" % (name, len(pk)))
        for s in sorted(req):
            print("   sender %s: %d RC requests, %d repeated (dst, qpn, psn) = %.2f%%" %
                  (s, req[s], dup[s], 100.0 * dup[s] / req[s]))
            tot_req[s] += req[s]
            tot_dup[s] += dup[s]
        # each sender as seen by the other side
        pp = peer.get(name)
        for s, me in ((a.ip, pk), (a.peer_ip, pp)):
            other = pp if me is pk else pk
            if me is None or other is None or not req[s]:
                continue
            sent = requests(me, s)
            got = requests(other, s)
            lost = sum(max(0, n - got[k]) for k, n in sent.items())
            twice = sum(n - 1 for n in got.values() if n > 1)
            extra = sum(n - 1 for n in sent.values() if n > 1)
            print("   %s as sent: %d requests, %d repeated; lost on the segment %d;"
                  " arrived more than once %d" % (s, sum(sent.values()), extra, lost, twice))
            nb, early = bursts(me, s, a.ack_timeout_ms / 1000.0)
            print("   %s: %d retransmission bursts, %d starting less than %d ms after"
                  " their first PSN's first copy" % (s, nb, early, a.ack_timeout_ms))
            tot[s]["bursts"] += nb
            tot[s]["early"] += early
            tot[s]["sent"] += sum(sent.values())
            tot[s]["repeated"] += extra
            tot[s]["lost"] += lost
            tot[s]["twice"] += twice
        for (s, o), n in sorted(dupop.items()):
            print("     repeated %s from %s: %d" % (o, s, n))
        for j, i in enumerate(naks):
            if j >= a.max_naks:
                print("   ... %d more NAKs in this section" % (len(naks) - j))
                break
            print("   NAK #%d, %d packets before and 10 after (A = AckReq):" % (j + 1, a.context))
            for r in pk[max(0, i - a.context):i + 11]:
                print("   %s %s" % ("=>" if r is pk[i] else "  ", line(t0, r)))
        if a.dump:
            for r in pk:
                print("      " + line(t0, r))
    print("summary")
    for s in sorted(tot_req):
        print("sender %s: %d RC request packets, %d repeated (dst, qpn, psn): %.2f%%" %
              (s, tot_req[s], tot_dup[s], 100.0 * tot_dup[s] / max(1, tot_req[s])))
    for s, c in sorted(tot.items()):
        print("sender %s, both captures: %d sent, %d repeated (%.2f%%), %d lost on the"
              " segment, %d arrived more than once (%.2f%%)" %
              (s, c["sent"], c["repeated"], 100.0 * c["repeated"] / max(1, c["sent"]),
               c["lost"], c["twice"], 100.0 * c["twice"] / max(1, c["sent"])))
        if c["bursts"]:
            print("sender %s: %d retransmission bursts, %d starting less than %d ms after"
                  " their first PSN's first copy" % (s, c["bursts"], c["early"], a.ack_timeout_ms))
    for (s, k), n in sorted(tot_nak.items()):
        print("sender %s: %d x %s" % (s, n, k))


if __name__ == "__main__":
    main()
