#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# Check and summarise the RoCEv2 traffic of a pcap (the segment capture of
# selftests/vm2.sh); python3 stdlib only, as the host has no tshark.
#
#   roce_pcap.py A.pcap [--peer-pcap B.pcap] [--ip IP,... --peer-ip IP,...]
#                [--mtu BYTES|auto] [--no-fail] [--max-report N]
#                [--context N] [--max-naks N] [--dump]
#
# A.pcap is the capture on the NIC of --ip (default 192.0.2.1,2001:db8::1),
# B.pcap on that of --peer-ip (192.0.2.2,2001:db8::2). A sender is a host,
# named by its first address, whatever family it sends from. With both
# captures, each sender's packets are
# counted as sent in its own capture and as received in the other's: lost on
# the segment, and arrived more than once (retransmissions that were not
# needed: the first copy had arrived).
#
# The capture is split into sections at the marker datagrams the two-host
# tests send (UDP to port 9, "SROCE-MARK TEST STEP start|done ..."). Per
# section and sender: RC request packets, and those whose (dst IP, dst QPN,
# PSN) was already sent in the section, or that ask again from a PSN behind
# the highest one sent to that QP (a READ resent from a gap in its
# responses): retransmissions; NAKs and RNR NAKs,
# each with the packets around it. --dump lists every RoCE packet.
# The last block starts with a line "summary"; in it, per sender, "sender
# IP: N request packets, M sent more than once" (RC requests as sent, from
# its own capture if both are given; M: retransmissions as above).
#
# The checker. Every frame to UDP port 4791 (IPv4 or IPv6, maybe VLAN
# tagged) of either capture is checked; each problem prints one line
#   MALFORMED|VIOLATION <pcap> frame <no> t <s>: <what>: ip=<hex> udp=<hex>
#   bth=<hex> ext=<hex>
# (frame numbers count from 1, as Wireshark's; t from the capture's first
# frame). MALFORMED is a frame wrong on its own, VIOLATION one wrong in the
# sequence of its flow. The exit status is 1 if there was any (0 with
# --no-fail), and the summary ends with "malformed: K", K problems in all.
#  - lengths: IPv4 without options or fragments, a right header checksum;
#    IP total (IPv6 payload) length, UDP length and the frame's original
#    length agree, but for Ethernet padding up to 60 bytes (64 with a VLAN
#    tag); room for BTH, the opcode's extension headers, pad and ICRC. On a
#    frame cut by the snaplen, the lengths are checked against the original
#    length, and nothing that needs the bytes cut off.
#  - ICRC, on frames captured whole (vm2.sh captures 192 bytes, so ACKs and
#    small packets; --pcap-full all): CRC-32 (zlib's) over 8 bytes of 0xff,
#    the IP header with TOS/traffic class, flow label, TTL/hop limit and
#    header checksum set to ones, the UDP header with its checksum 0xffff,
#    the BTH with its reserved byte before the DestQP 0xff, and the rest up
#    to the ICRC; stored little-endian (rdma_rxe's rxe_icrc.c, sroce's
#    parse.c: ~crc32_le(0xdebb20e3, ...) is zlib.crc32 of the 0xff bytes
#    and the rest).
#  - BTH: opcode known and allowed on its transport (RC; UC sends and
#    writes; UD SEND_ONLY[_IMM]; CNP 0x81), TVer 0, P_Key 0xffff, the
#    reserved bits after AckReq 0; pad count such that payload + pad is a
#    multiple of 4; no payload on READ requests, ACKs and atomics; FIRST and
#    MIDDLE packets carry an IB MTU (256..4096, at most --mtu) of payload,
#    the same on every FIRST/MIDDLE of a flow; ONLY/LAST at most that (or
#    --mtu before the flow's first FIRST/MIDDLE).
#  - AETH syndrome: ACK 0x00-0x1f, RNR NAK 0x20-0x3f, NAK 0x60-0x64; read
#    responses and atomic ACKs only ACK.
#  - CNP (IBA A17.9.2): BECN set, no AckReq; one the capturing host sent
#    (--ip for A.pcap, --peer-ip for B.pcap) must follow a CE-marked packet
#    from the host it goes to (a VIOLATION if not), unless --ce-unseen says
#    that the marks are made after the capture point. The summary says, per
#    capture, "ecn NAME: M CE-marked packets, N CNPs".
#  - sequence, per flow (src IP, dst IP, UDP source port, dst QPN), flows
#    forgotten at each marker (a test step's QPs end with it):
#    requests: a packet at the flow's highest PSN + 1 (new, in order) must
#    continue the packet at the highest PSN: after a FIRST/MIDDLE of SEND
#    (WRITE) only a SEND (WRITE) MIDDLE/LAST, after anything else no
#    MIDDLE/LAST. A packet at or up to 2^23 before the highest PSN is a
#    resend (go-back-N may restart anywhere, even mid-message) and must
#    carry the opcode its PSN had first. A jump ahead by more than one is
#    not checked: a READ request takes a PSN per response packet, and the
#    receiver's capture misses what the segment lost (vm2.sh --link dgram);
#    so a sender that skips PSNs inside a message goes unnoticed.
#    READ responses: a FIRST or ONLY at PSN q answers a READ request at q
#    seen before (from the response's destination to its source, any QP,
#    in any section: the requester's capture has what it sent, the
#    responder's what it answered). That is all for FIRST/ONLY: a
#    responder may drop a response in progress to answer a re-sent READ
#    (rdma_rxe does), even at the next PSN. A MIDDLE/LAST at the previous
#    response's PSN + 1 must follow a FIRST/MIDDLE (one elsewhere follows
#    a loss in the receiver's capture, not checked).

import argparse
import bisect
import re
import mmap
import os
import socket
import struct
import sys
import zlib
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
    0x1c: "FLUSH", 0x1d: "ATOMIC_WRITE",
}
RESPONSES = {0x0d, 0x0e, 0x0f, 0x10, 0x11, 0x12}
NAK_CODES = {0: "PSN seq err", 1: "invalid request", 2: "remote access err",
             3: "remote op err", 4: "invalid RD req"}

# Payload rules: NONE, FULL (FIRST/MIDDLE: exactly the path MTU), UPTO
# (ONLY/LAST: at most the path MTU), or an exact count.
NONE, FULL, UPTO = -1, -2, -3
# Sequence positions (requests and READ responses); None: not sequenced.
F, M, L, O = "FIRST", "MIDDLE", "LAST", "ONLY"  # noqa: E741 (O as in ONLY, beside F, M, L)
# low 5 bits of an RC opcode: (extension header bytes after the BTH,
# payload rule, position, message kind)
RC = {
    0x00: (0, FULL, F, "SEND"), 0x01: (0, FULL, M, "SEND"),
    0x02: (0, UPTO, L, "SEND"), 0x03: (4, UPTO, L, "SEND"),
    0x04: (0, UPTO, O, "SEND"), 0x05: (4, UPTO, O, "SEND"),
    0x06: (16, FULL, F, "WRITE"), 0x07: (0, FULL, M, "WRITE"),
    0x08: (0, UPTO, L, "WRITE"), 0x09: (4, UPTO, L, "WRITE"),
    0x0a: (16, UPTO, O, "WRITE"), 0x0b: (20, UPTO, O, "WRITE"),
    0x0c: (16, NONE, O, "READ"),
    0x0d: (4, FULL, F, "RESP"), 0x0e: (0, FULL, M, "RESP"),
    0x0f: (4, UPTO, L, "RESP"), 0x10: (4, UPTO, O, "RESP"),
    0x11: (4, NONE, None, "ACK"), 0x12: (12, NONE, None, "ACK"),
    0x13: (28, NONE, O, "ATOMIC"), 0x14: (28, NONE, O, "ATOMIC"),
    0x16: (4, UPTO, L, "SEND"), 0x17: (4, UPTO, O, "SEND"),
    0x1c: (20, NONE, O, "FLUSH"),           # FETH + RETH
    0x1d: (16, 8, O, "ATOMIC_WRITE"),       # RETH, 8 bytes of payload
}
AETH_OPS = {0x0d, 0x0f, 0x10, 0x11, 0x12}
RETH_OPS = {0x06, 0x0a, 0x0b, 0x0c}


def _opinfo():
    """full opcode -> (ext bytes, payload rule, position, kind, AETH?,
    request?) for every opcode legal on the wire"""
    t = {}
    for low, (ext, pay, pos, kind) in RC.items():
        t[low] = (ext, pay, pos, kind, low in AETH_OPS, kind not in ("RESP", "ACK"))
        if low <= 0x0b:         # UC: sends and RDMA writes
            t[0x20 | low] = (ext, pay, pos, kind, False, True)
    for low in (0x04, 0x05):    # UD: DETH first
        ext, pay, pos, kind = RC[low]
        t[0x60 | low] = (ext + 8, pay, None, kind, False, False)
    t[0x81] = (16, NONE, None, "CNP", False, False)     # 16 reserved bytes
    return t


OPINFO = _opinfo()
IB_MTUS = (256, 512, 1024, 2048, 4096)
HALF = 0x800000                 # half the PSN space: before/after


def frames(path):
    """(frame number from 1, time, captured bytes, original length) of each
    record; a record cut short (capture still being written) ends it"""
    with open(path, "rb") as f:
        if os.fstat(f.fileno()).st_size < 24:
            return
        # mapped, not read: a capture of whole frames can be GBs
        buf = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    magic = struct.unpack_from("<I", buf)[0]
    e = "<" if magic in (0xa1b2c3d4, 0xa1b23c4d) else ">"
    magic = struct.unpack_from(e + "I", buf)[0]
    if magic not in (0xa1b2c3d4, 0xa1b23c4d):
        sys.exit("roce_pcap: %s: not a pcap file" % path)
    div = 1e9 if magic == 0xa1b23c4d else 1e6
    linktype = struct.unpack_from(e + "I", buf, 20)[0]
    if linktype != 1:
        sys.exit("roce_pcap: link type %d, not Ethernet" % linktype)
    rec = struct.Struct(e + "IIII").unpack_from
    off, n, no = 24, len(buf), 0
    while off + 16 <= n:
        sec, frac, incl, orig = rec(buf, off)
        off += 16
        if off + incl > n:
            return
        no += 1
        yield no, sec + frac / div, buf[off:off + incl], orig
        off += incl


def packets(path):
    """(time, frame bytes) of each record"""
    for _, t, data, _ in frames(path):
        yield t, data


def icrc(ip, iphlen, ib):
    """the ICRC of a RoCEv2 packet: IP header @ip (@iphlen bytes, 20 or 40)
    with the UDP header behind it, @ib the BTH up to, not including, the
    ICRC; as the 4 bytes on the wire"""
    h = bytearray(ip[:iphlen + 8])
    if ip[0] >> 4 == 4:
        h[1] = h[8] = 0xff                  # TOS, TTL
        h[10] = h[11] = 0xff                # header checksum
    else:
        h[0] |= 0x0f                        # traffic class, flow label
        h[1] = h[2] = h[3] = 0xff
        h[7] = 0xff                         # hop limit
    h[iphlen + 6] = h[iphlen + 7] = 0xff    # UDP checksum
    b = bytearray(ib[:12])
    b[4] = 0xff                             # BTH resv8a
    crc = zlib.crc32(b"\xff" * 8)           # the masked LRH
    crc = zlib.crc32(h, crc)
    crc = zlib.crc32(b, crc)
    crc = zlib.crc32(ib[12:], crc)
    return struct.pack("<I", crc)


def ip4_csum_ok(h):
    s = sum(struct.unpack_from(">%dH" % (len(h) // 2), h))
    s = (s & 0xffff) + (s >> 16)
    s = (s & 0xffff) + (s >> 16)
    return s == 0xffff


def bth(p, plen, info=None):
    """the BTH and extension headers of UDP payload p (plen bytes long, maybe
    fewer captured), as a dict"""
    if len(p) < 12:
        return None
    op, flags = p[0], p[1]
    if info is None:
        info = OPINFO.get(op)
    d = {"op": op, "dqpn": int.from_bytes(p[5:8], "big"),
         "ackreq": p[8] >> 7, "psn": int.from_bytes(p[9:12], "big"),
         "pad": (flags >> 4) & 3, "se": flags >> 7}
    ext = info[0] if info else 0
    low = op & 0x1f
    if info and low in RETH_OPS and op < 0x40 and len(p) >= 28:
        d["va"], d["rkey"], d["dmalen"] = struct.unpack_from(">QII", p, 12)
    if info and info[4] and len(p) >= 16:
        d["syn"] = p[12]
        d["msn"] = int.from_bytes(p[13:16], "big")
    d["len"] = plen - 12 - ext - d["pad"] - 4
    return d


IP_STR = {}


def ip_str(b):
    s = IP_STR.get(b)
    if s is None:
        s = IP_STR[b] = socket.inet_ntop(
            socket.AF_INET if len(b) == 4 else socket.AF_INET6, b)
    return s


class Checker:
    """the checks of one capture (see the top of the file); .frame() for
    each frame in order, .mark() at each marker"""

    def __init__(self, name, mtu, max_report, out=sys.stdout, me=()):
        self.name = name
        self.me = set(me)               # the capturing host's addresses, if known
        self.ce = set()                 # (src, dst) a CE-marked packet went
        self.ce_marked = 0
        self.cnps = 0
        self.mtu = mtu                  # 0: any IB MTU
        self.max_report = max_report
        self.out = out
        self.problems = Counter()       # "MALFORMED"/"VIOLATION": count
        self.reported = 0
        self.whole = 0                  # RoCE frames captured whole
        self.icrc_ok = 0
        self.t0 = None
        self.reads = set()              # (src IP + dst IP, PSN) of READs, ATOMIC WRITEs...
        self.mark()

    def mark(self):
        """a test step starts or ends: forget the flows"""
        self.req = {}       # flow: [highest PSN, kind open after it, {psn: op}]
        self.resp = {}      # flow: [previous READ response PSN, kind open]
        self.fmtu = {}      # flow: FIRST/MIDDLE payload

    def report(self, what, why, no, t, ip, iphlen, ext):
        self.problems[what] += 1
        if self.reported >= self.max_report:
            return
        self.reported += 1
        u = iphlen + 8
        print("%s %s frame %d t %.6f: %s: ip=%s udp=%s bth=%s ext=%s" % (
            what, self.name, no, t - self.t0, why, ip[:iphlen].hex(),
            ip[iphlen:u].hex(), ip[u:u + 12].hex(), ip[u + 12:u + 12 + ext].hex()),
            file=self.out)

    def frame(self, no, t, fr, orig):
        """check one frame; -> ("mark", text), ("roce", src, dst, bth dict)
        or None"""
        if self.t0 is None:
            self.t0 = t
        l2 = 14
        et = fr[12] << 8 | fr[13] if len(fr) >= 14 else 0
        if et == 0x8100 and len(fr) >= 18:
            et = fr[16] << 8 | fr[17]
            l2 = 18
        if et == 0x0800:
            if len(fr) < l2 + 28 or fr[l2 + 9] != 17 or fr[l2] >> 4 != 4:
                return None
            iphlen = (fr[l2] & 0xf) * 4
            if iphlen < 20 or len(fr) < l2 + iphlen + 8:
                return None
            iplen = fr[l2 + 2] << 8 | fr[l2 + 3]
        elif et == 0x86dd:
            if len(fr) < l2 + 48 or fr[l2 + 6] != 17:
                return None
            iphlen = 40
            iplen = 40 + (fr[l2 + 4] << 8 | fr[l2 + 5])
        else:
            return None
        u = l2 + iphlen
        dport = fr[u + 2] << 8 | fr[u + 3]
        if dport == 9 and fr[u + 8:u + 18] == b"SROCE-MARK":
            self.mark()
            return "mark", fr[u + 8:l2 + iplen].decode(errors="replace").strip()[11:]
        if dport != 4791:
            return None
        return self.roce(no, t, fr, orig, l2, iphlen, iplen)

    def roce(self, no, t, fr, orig, l2, iphlen, iplen):
        ip = fr[l2:]
        bad = []
        ulen = ip[iphlen + 4] << 8 | ip[iphlen + 5]
        whole = len(fr) == orig
        if len(fr) > orig:
            bad.append("captured %d bytes of a %d-byte frame" % (len(fr), orig))
        if ip[0] >> 4 == 4:
            if ip[6] & 0x3f or ip[7]:
                bad.append("IPv4 fragment")
            if not ip4_csum_ok(ip[:iphlen]):
                bad.append("IPv4 header checksum")
            if iphlen != 20:
                # and its ICRC is not checked: what would it cover?
                bad.append("IPv4 options (header %d bytes)" % iphlen)
        # the frame: exactly the IP datagram, or padded to 60 bytes (64
        # with a VLAN tag)
        if l2 + iplen > orig or (l2 + iplen < orig and orig > 46 + l2):
            bad.append("IP length %d in a %d-byte frame" % (iplen, orig))
        if ulen != iplen - iphlen:
            bad.append("UDP length %d, IP length %d" % (ulen, iplen))
        op = ip[iphlen + 8] if len(ip) > iphlen + 8 else None
        info = OPINFO.get(op)
        ext = info[0] if info else 0
        if ulen < 8 + 12 + ext + 4:
            bad.append("UDP length %d: no room for BTH%s and ICRC" %
                       (ulen, "+%d" % ext if ext else ""))
            return self.done(bad, no, t, ip, iphlen, ext, None)
        if len(ip) < iphlen + 8 + 12 + ext:
            if whole:
                bad.append("frame too short for its headers")
            # else: headers beyond the capture, nothing more to check
            return self.done(bad, no, t, ip, iphlen, ext, None)
        ib = ip[iphlen + 8:]
        b = bth(ib, ulen - 8, info)
        if info is None:
            bad.append("opcode 0x%02x unknown or not allowed on its transport" % op)
        if ib[1] & 0x0f:
            bad.append("TVer %d" % (ib[1] & 0x0f))
        if ib[2] != 0xff or ib[3] != 0xff:
            bad.append("P_Key 0x%02x%02x" % (ib[2], ib[3]))
        if ib[8] & 0x7f:
            bad.append("reserved bits after AckReq 0x%02x" % (ib[8] & 0x7f))
        if info:
            self.lengths(bad, b, info, ip, iphlen, ulen)
        if whole and l2 + iplen <= len(fr) and ulen == iplen - iphlen and ulen >= 24 \
                and iphlen in (20, 40):
            self.whole += 1
            end = iphlen + ulen
            if icrc(ip, iphlen, ip[iphlen + 8:end - 4]) == ip[end - 4:end]:
                self.icrc_ok += 1
            else:
                bad.append("ICRC %s, computed %s" % (
                    ip[end - 4:end].hex(), icrc(ip, iphlen, ip[iphlen + 8:end - 4]).hex()))
        unasked = self.ecn(bad, ip, ib, op)
        r = self.done(bad, no, t, ip, iphlen, ext, b)
        if unasked:
            self.report("VIOLATION", "CNP to %s, which sent no CE-marked packet here before it"
                        % unasked, no, t, ip, iphlen, ext)
        if info and info[2]:
            self.sequence(no, t, ip, iphlen, ext, b, info)
        return r

    def ecn(self, bad, ip, ib, op):
        """CE marks seen, and CNPs (IBA A17.9.2): BECN set, no AckReq, and,
        from the capturing host, after a CE-marked packet from the host the
        CNP goes to; -> that host if a CNP came without one"""
        if ip[0] >> 4 == 4:
            ecn, src, dst = ip[1] & 3, ip_str(ip[12:16]), ip_str(ip[16:20])
        else:
            ecn, src, dst = (ip[1] >> 4) & 3, ip_str(ip[8:24]), ip_str(ip[24:40])
        if ecn == 3:
            self.ce_marked += 1
            self.ce.add((src, dst))
        if op != 0x81:
            return None
        self.cnps += 1
        if not ib[4] & 0x40:
            bad.append("CNP without BECN")
        if ib[8] & 0x80:
            bad.append("CNP with AckReq")
        if src in self.me and (dst, src) not in self.ce:
            return dst
        return None

    def done(self, bad, no, t, ip, iphlen, ext, b):
        for why in bad:
            self.report("MALFORMED", why, no, t, ip, iphlen, ext)
        if b is None:
            return None
        if ip[0] >> 4 == 4:
            return "roce", ip_str(ip[12:16]), ip_str(ip[16:20]), b
        return "roce", ip_str(ip[8:24]), ip_str(ip[24:40]), b

    def flow(self, ip, iphlen, b):
        if ip[0] >> 4 == 4:
            return ip[12:20], ip[iphlen:iphlen + 2], b["dqpn"]
        return ip[8:40], ip[40:42], b["dqpn"]

    def lengths(self, bad, b, info, ip, iphlen, ulen):
        """pad, payload length for the opcode, AETH syndrome"""
        n, pad, rule = b["len"], b["pad"], info[1]
        if n < 0:
            bad.append("UDP length %d, pad %d: payload length %d" % (ulen, pad, n))
            return
        if (n + pad) & 3:
            bad.append("payload %d + pad %d not a multiple of 4" % (n, pad))
        if rule == NONE and n:
            bad.append("%d bytes of payload on %s" % (n, opname(b["op"])))
        elif rule >= 0 and n != rule:
            bad.append("%d bytes of payload on %s, not %d" % (n, opname(b["op"]), rule))
        elif rule == FULL:
            if n not in IB_MTUS or (self.mtu and n > self.mtu):
                bad.append("%s with %d bytes of payload: not an IB MTU%s" % (
                    opname(b["op"]), n, " up to %d" % self.mtu if self.mtu else ""))
                return
            m = self.fmtu.setdefault(self.flow(ip, iphlen, b), n)
            if n != m:
                bad.append("%s with %d bytes of payload, %d on the flow's earlier "
                           "FIRST/MIDDLE" % (opname(b["op"]), n, m))
        elif rule == UPTO:
            m = self.fmtu.get(self.flow(ip, iphlen, b)) or self.mtu or 4096
            if b["op"] & 0xe0 == 0x60:
                m = self.mtu or 4096
            if n > m:
                bad.append("%s with %d bytes of payload, more than the MTU %d" %
                           (opname(b["op"]), n, m))
        if "syn" in b:
            s = b["syn"]
            if s >> 5 == 2 or s >= 0x80 or 0x65 <= s <= 0x7f:
                bad.append("AETH syndrome 0x%02x reserved" % s)
            elif s >= 0x20 and (b["op"] & 0x1f) != 0x11:
                bad.append("AETH syndrome 0x%02x (%s) on %s" % (s, syn_str(s), opname(b["op"])))

    def sequence(self, no, t, ip, iphlen, ext, b, info):
        """FIRST, MIDDLE..., LAST per flow (see the top of the file)"""
        _, _, pos, kind, _, req = info
        k = self.flow(ip, iphlen, b)
        p, op = b["psn"], b["op"]
        after = kind if pos in (F, M) else None
        # READ, and FLUSH and ATOMIC WRITE: answered by READ responses
        # (these two by one of no payload)
        if op in (0x0c, 0x1c, 0x1d):
            self.reads.add((k[0], p))
        if req:
            st = self.req.get(k)
            if st is None:
                self.req[k] = [p, after, {p: op}]
                return
            d = (p - st[0]) & 0xffffff
            if d == 0 or d >= HALF:
                first = st[2].get(p)
                if first is not None and first != op:
                    self.report("VIOLATION", "PSN %d resent as %s, first sent as %s" % (
                        p, opname(op), opname(first)), no, t, ip, iphlen, ext)
                return
            if d == 1:
                self.follows(st[1], pos, kind, op, p, no, t, ip, iphlen, ext)
            st[0], st[1] = p, after
            st[2][p] = op
            return
        st = self.resp.get(k)
        if pos in (F, O):
            n = len(k[0]) // 2
            if (k[0][n:] + k[0][:n], p) not in self.reads:
                self.report("VIOLATION", "%s at PSN %d answers no READ request" % (
                    opname(op), p), no, t, ip, iphlen, ext)
        elif st is not None and ((p - st[0]) & 0xffffff) == 1:
            self.follows(st[1], pos, kind, op, p, no, t, ip, iphlen, ext)
        self.resp[k] = [p, after]

    def follows(self, open_kind, pos, kind, op, p, no, t, ip, iphlen, ext):
        """the packet at PSN p right after one that left open_kind open"""
        if pos in (M, L) and open_kind != kind:
            why = "%s at PSN %d without a %s FIRST/MIDDLE before it" % (
                opname(op), p, kind)
            if open_kind:
                why += " (a %s message is open)" % open_kind
        elif pos in (F, O) and open_kind:
            why = "%s at PSN %d while a %s message is open" % (opname(op), p, open_kind)
        else:
            return
        self.report("VIOLATION", why, no, t, ip, iphlen, ext)


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
    ap.add_argument("--lossy-re", default=r"^2host/lossy ",
                    help="sections whose name matches: the segment drops frames on "
                    "purpose there (netem), so their resends are counted apart")
    ap.add_argument("--peer-pcap")
    ap.add_argument("--ack-timeout-ms", type=int, default=67,
                    help="the requester's local ACK timeout (perftest's, 14: 67 ms)")
    ap.add_argument("--ip", default="192.0.2.1,2001:db8::1",
                    help="the addresses of the host that took the capture")
    ap.add_argument("--peer-ip", default="192.0.2.2,2001:db8::2",
                    help="the addresses of the other host")
    ap.add_argument("--mtu", default="1024",
                    help="the largest path MTU (RoCE payload per packet), or auto:"
                    " any IB MTU, the same on all FIRST/MIDDLE packets of a flow")
    ap.add_argument("--ce-unseen", action="store_true",
                    help="marks are made after the capture point (a congestion point"
                    " inside the receiving host): CNPs are not matched to them")
    ap.add_argument("--no-fail", action="store_true",
                    help="exit 0 even when the checks find problems")
    ap.add_argument("--max-report", type=int, default=200,
                    help="MALFORMED/VIOLATION lines to print per capture (all count)")
    a = ap.parse_args()
    if a.mtu == "auto":
        a.mtu = "0"
    if not a.mtu.isdigit() or (int(a.mtu) and int(a.mtu) < 256):
        ap.error("--mtu: a number of bytes (at least 256), or auto")
    mtu = a.mtu = int(a.mtu)

    ck = Checker(a.pcap, mtu, a.max_report, me=() if a.ce_unseen else a.ip.split(","))
    t0, sections = read_sections(a.pcap, ck)
    checkers = [ck]
    peer = {}
    if a.peer_pcap:
        pc = Checker(a.peer_pcap, mtu, a.max_report,
                     me=() if a.ce_unseen else a.peer_ip.split(","))
        _, ps = read_sections(a.peer_pcap, pc)
        peer = {n: pk for n, pk in ps}
        checkers.append(pc)
    analyse(a, t0, sections, peer)
    for c in checkers:
        print("checked %s: %d MALFORMED, %d VIOLATION; ICRC right on %d of %d frames"
              " captured whole" % (c.name, c.problems["MALFORMED"],
                                   c.problems["VIOLATION"], c.icrc_ok, c.whole))
        print("ecn %s: %d CE-marked packets, %d CNPs" % (c.name, c.ce_marked, c.cnps))
    bad = sum(sum(c.problems.values()) for c in checkers)
    print("malformed: %d" % bad)
    return 1 if bad and not a.no_fail else 0


def read_sections(path, ck):
    """(time of the first frame, [[marker text, [(t, src, dst, bth)...]]...]);
    each frame through the Checker ck"""
    sections = [["(before the first marker)", []]]
    t0 = None
    for no, t, fr, orig in frames(path):
        if t0 is None:
            t0 = t
        x = ck.frame(no, t, fr, orig)
        if x is None:
            continue
        if x[0] == "mark":
            sections.append([x[1], []])
        else:
            sections[-1][1].append((t,) + x[1:])
    return t0 or 0, sections


def sent_requests(pk, src):
    """The RC requests (t, dst, bth) that the addresses in src sent"""
    for t, s, d, b in pk:
        if s in src and b["op"] < 0x20 and (b["op"] & 0x1f) not in RESPONSES:
            yield t, d, b


def requests(pk, src):
    """Counter of (dst, qpn, psn) of the RC requests sent by src"""
    return Counter((d, b["dqpn"], b["psn"]) for t, d, b in sent_requests(pk, src))


def rerequests(pk, src, mtu):
    """RC requests sent by src at a PSN not sent before but at or behind
    the last one used on that QP (a READ takes one PSN per response packet
    of @mtu bytes; mtu 0: one): a READ asked again from the gap in its
    responses (its RETH names the rest). Retransmissions that the
    (dst, qpn, psn) count cannot see."""
    top = {}
    seen = set()
    n = 0
    for t, d, b in sent_requests(pk, src):
        k, p = (d, b["dqpn"]), b["psn"]
        behind = k in top and ((top[k] - p) & 0xffffff) < 0x800000
        if behind and (k, p) not in seen:
            n += 1
        seen.add((k, p))
        if (b["op"] & 0x1f) == 0x0c and mtu and b.get("dmalen"):
            p = (p + (b["dmalen"] + mtu - 1) // mtu - 1) & 0xffffff
        if k not in top or 0 < ((p - top[k]) & 0xffffff) < 0x800000:
            top[k] = p
    return n


def peer_lost(pk, src):
    """Whether the other host showed, in this section, that something sent
    to or by src went missing: a NAK (PSN sequence error: it dropped a
    request) or a gap in its READ responses to src (it dropped one of
    those: rdma_rxe drops responses its qdisc cannot take). Either makes
    src's resends there recovery from a loss, not spurious."""
    prev = {}
    for t, s, d, b in pk:
        if s in src or d not in src or b["op"] >= 0x20:
            continue
        op = b["op"]
        if "syn" in b and (b["syn"] >> 5) == 3:
            return True
        if 0x0d <= op <= 0x10:
            p, q = b["psn"], b["dqpn"]
            if op in (0x0e, 0x0f) and q in prev and \
               0 < ((p - prev[q]) & 0xffffff) - 1 < 0x800000:
                return True
            prev[q] = p
    return False


def peer_acks(pk, src):
    """{(dst, dqpn) of src's requests: sorted [(t, psn)]}: the peer's
    responses (ACK, NAK, READ response, atomic ACK) to src. A response names
    src's QP, not the peer's, so it is paired with the requests by its PSN,
    which is always one of theirs (24 random bits: a match is not chance)."""
    psns = defaultdict(set)
    for t, d, b in sent_requests(pk, src):
        psns[(d, b["dqpn"])].add(b["psn"])
    pair = {}
    acks = defaultdict(list)
    for t, s, d, b in pk:
        if s in src or d not in src or b["op"] >= 0x20 or \
           (b["op"] & 0x1f) not in RESPONSES:
            continue
        q = (s, b["dqpn"])
        if q not in pair:
            k = [k for k, ps in psns.items() if k[0] == s and b["psn"] in ps]
            if len(k) != 1:
                continue
            pair[q] = k[0]
        p = b["psn"]
        if "syn" in b and (b["syn"] >> 5) in (1, 3):
            p = (p - 1) & 0xffffff      # RNR or NAK: acknowledges before it
        acks[pair[q]].append((t, p))
    return acks


def probes(pk, src):
    """The (t, dst, qpn, psn) of src's ACK probes: its newest request on a QP
    sent again, alone, asking for an ACK (AckReq) where the first copy did
    not. sroce sends one when packets that asked for no ACK end a stream
    (req.c, sroce_req_probe()); it is no retransmission."""
    top = {}
    asked = {}
    found = set()
    for t, d, b in sent_requests(pk, src):
        q, p = (d, b["dqpn"]), b["psn"]
        k = q + (p,)
        if k in asked:
            if b["ackreq"] and not asked[k] and top.get(q) == p:
                found.add((t,) + k)
            continue
        asked[k] = b["ackreq"]
        if q not in top or ((p - top[q]) & 0xffffff) < 0x800000:
            top[q] = p
    return found


# How much earlier than a whole ACK timeout after the first copy, in the
# capture's clock, a resend still counts as the timeout's. The guest arms
# its timer on its jiffies, which under TCG lag the host's clock (the tick
# comes late) by up to a few ms, and the first copy reaches the capture
# (the host's QEMU) a little after the guest sent it: a timeout resend of
# sroce measured 65.4 ms after its first copy with a 67.1 ms timeout.
TMO_SLACK = 0.004


def unanswered_resends(pk, src, tmo):
    """Request packets src sent again, less the go-back-N bursts that a
    local ACK timeout started: the burst's first packet went again a whole
    ACK timeout (tmo s, less TMO_SLACK) after its first copy, and no response of the peer
    acknowledging it had reached src. That timeout expired because the peer
    was slower than it (a stalled VM): a loss as far as src can tell. In
    such a burst a packet that the peer had acknowledged by then counts
    (src should have stopped there). A response counts only if it came
    tmo/4 before the resend: one that crossed it was not seen in time."""
    first = {}
    prev = {}
    n = 0
    acks = peer_acks(pk, src)
    probe = probes(pk, src)
    for t, d, b in sent_requests(pk, src):
        q, p = (d, b["dqpn"]), b["psn"]
        k = q + (p,)
        if (t,) + k in probe:
            continue
        if k not in first:
            first[k] = t
            prev[q] = None
            continue
        a = acks.get(q, [])
        i = bisect.bisect_left(a, (first[k], -1))
        j = bisect.bisect_left(a, (t - tmo / 4, -1))
        acked = any(((pa - p) & 0xffffff) < 0x800000 for ta, pa in a[i:j])
        head = prev.get(q)
        if head is None or head[0] != (p - 1) & 0xffffff:
            head = (p, t - first[k] >= tmo - TMO_SLACK)   # a new burst
        prev[q] = (p, head[1])
        if head[1] and not acked:
            continue
        n += 1
    return n


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
    probe = probes(pk, src)
    for t, d, b in sent_requests(pk, src):
        k = (d, b["dqpn"])
        p = b["psn"]
        if (t,) + k + (p,) in probe:
            continue
        if top is not None and k == top[0] and \
           (p == top[1] or ((p - top[1]) & 0xffffff) >= 0x800000):
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
    lossy = Counter()
    mine, theirs = a.ip.split(","), a.peer_ip.split(",")
    host = {x: h[0] for h in (mine, theirs) for x in h}
    for name, pk in sections:
        if not pk:
            continue
        if a.lossy_re and re.search(a.lossy_re, name):
            # resends are expected here: counted apart, kept out of the totals
            for h in (mine, theirs):
                for s_, n_ in requests(pk, h).items():
                    lossy[(h[0], "sent")] += n_
                    lossy[(h[0], "again")] += n_ - 1
                lossy[(h[0], "again")] += rerequests(pk, h, a.mtu)
            print("== %s: %d RoCE packets (lossy: not in the totals)" % (name, len(pk)))
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
            src = host.get(src, src)
            req[src] += 1
            k = (dst, b["dqpn"], b["psn"])
            if k in seen:
                dup[src] += 1
                dupop[(src, opname(b["op"]))] += 1
            seen.add(k)
        rereq = {h[0]: rerequests(pk, h, a.mtu) for h in (mine, theirs)}
        for s in rereq:
            dup[s] += rereq[s]
        print("== %s: %d RoCE packets" % (name, len(pk)))
        for s in sorted(req):
            print("   sender %s: %d RC requests, %d repeated (dst, qpn, psn) = %.2f%%" %
                  (s, req[s], dup[s], 100.0 * dup[s] / req[s]))
            tot_req[s] += req[s]
            tot_dup[s] += dup[s]
        # each sender as seen by the other side
        pp = peer.get(name)
        for h, me in ((mine, pk), (theirs, pp)):
            s = h[0]
            other = pp if me is pk else pk
            if me is None or other is None or not req[s]:
                continue
            sent = requests(me, h)
            got = requests(other, h)
            lost = sum(max(0, n - got[k]) for k, n in sent.items())
            twice = sum(n - 1 for n in got.values() if n > 1)
            rr = rereq[s] if me is pk else rerequests(me, h, a.mtu)
            extra = sum(n - 1 for n in sent.values() if n > 1) + rr
            print("   %s as sent: %d requests, %d repeated; lost on the segment %d;"
                  " arrived more than once %d" % (s, sum(sent.values()), extra, lost, twice))
            nb, early = bursts(me, h, a.ack_timeout_ms / 1000.0)
            print("   %s: %d retransmission bursts, %d starting less than %d ms after"
                  " their first PSN's first copy" % (s, nb, early, a.ack_timeout_ms))
            tot[s]["bursts"] += nb
            tot[s]["early"] += early
            tot[s]["probes"] += len(probes(me, h))
            tot[s]["sent"] += sum(sent.values())
            tot[s]["repeated"] += extra
            if extra and not peer_lost(me, h) and not (other and peer_lost(other, h)):
                tot[s]["unexplained"] += unanswered_resends(
                    me, h, a.ack_timeout_ms / 1000.0) + rr
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
    # each sender's RC requests as it sent them: from its own capture when
    # both are there, else from the one; "more than once": copies of a
    # (dst, QPN, PSN) already sent in the section
    for s in sorted(set(tot_req) | set(tot)):
        if s in tot:
            n, m = tot[s]["sent"], tot[s]["repeated"]
        else:
            n, m = tot_req[s], tot_dup[s]
        print("sender %s: %d request packets, %d sent more than once" % (s, n, m))
        if s in tot:
            print("sender %s: %d sent more than once with no loss shown before them" %
                  (s, tot[s]["unexplained"]))
            print("sender %s: %d ACK probes (the newest request again, asking;"
                  " not counted above)" % (s, tot[s]["probes"]))
    for s in sorted({k[0] for k in lossy}):
        print("sender %s: %d request packets in lossy sections, %d sent more than once" %
              (s, lossy[(s, "sent")], lossy[(s, "again")]))


if __name__ == "__main__":
    sys.exit(main())
