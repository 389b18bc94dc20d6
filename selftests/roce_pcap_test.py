#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# Tests of the capture checker in roce_pcap.py (python3 stdlib unittest):
# pcaps built here of good RoCEv2 frames, which must pass, and of frames
# each broken one way, which must be caught, with the frame number. If a C
# compiler is there, the checker's ICRC is also compared with the driver's
# own (drivers/sroce/parse.c, built as the fuzzer builds it).
#
#   python3 selftests/roce_pcap_test.py [-v]

import io
import os
import random
import shutil
import struct
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import roce_pcap as rp  # noqa: E402

SRC4, DST4 = bytes([192, 0, 2, 1]), bytes([192, 0, 2, 2])
SRC6 = bytes.fromhex("20010db8000000000000000000000001")
DST6 = bytes.fromhex("20010db8000000000000000000000002")


def ip4_csum(h):
    s = sum(struct.unpack(">10H", h))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff


def roce(op, psn=1, dqpn=0x11, payload=b"", ext=None, v6=False, pad=None,
         syn=0, tver=0, pkey=0xffff, ackreq=0, sport=0xc001, tos=0x02, ttl=64,
         flow=0x12345, src=None, dst=None, ip_len=0, udp_len=0, bad_icrc=False,
         eth_pad=True, pad_bytes=None):
    """an Ethernet frame with a RoCEv2 packet; ext defaults to zeros of the
    opcode's length (AETH syndrome @syn); ip_len/udp_len are added to the
    right lengths after the ICRC is computed (so only the length is wrong)"""
    if ext is None:
        ext = bytearray(rp.OPINFO.get(op, (0,))[0])
        if rp.OPINFO.get(op, (0, 0, 0, 0, False))[4]:
            ext[0] = syn
        ext = bytes(ext)
    if pad is None:
        pad = -len(payload) & 3
    if pad_bytes is None:
        pad_bytes = pad
    ib = struct.pack(">BBHI I", op, pad << 4 | tver, pkey, dqpn,
                     ackreq << 31 | psn) + ext + payload + bytes(pad_bytes)
    ulen = 8 + len(ib) + 4
    if v6:
        hdr = struct.pack(">IHBB", 6 << 28 | tos << 20 | flow, ulen, 17, ttl)
        hdr += (src or SRC6) + (dst or DST6)
    else:
        h = bytearray(struct.pack(">BBHHHBBH", 0x45, tos, 20 + ulen, 0x1234,
                                  0x4000, ttl, 17, 0) + (src or SRC4) + (dst or DST4))
        h[10:12] = struct.pack(">H", ip4_csum(h))
        hdr = bytes(h)
    ip = hdr + struct.pack(">HHHH", sport, 4791, ulen, 0)
    crc = rp.icrc(ip, len(hdr), ib)
    if bad_icrc:
        crc = bytes([crc[0] ^ 1]) + crc[1:]
    ip = bytearray(ip + ib + crc)
    if ip_len:
        o = 4 if v6 else 2
        ip[o:o + 2] = struct.pack(">H", struct.unpack(">H", ip[o:o + 2])[0] + ip_len)
        if not v6:
            ip[10:12] = b"\0\0"
            ip[10:12] = struct.pack(">H", ip4_csum(bytes(ip[:20])))
    if udp_len:
        o = len(hdr) + 4
        ip[o:o + 2] = struct.pack(">H", ulen + udp_len)
    eth = b"\x52\x54\x00\x00\x02\x0b\x52\x54\x00\x00\x02\x0a"
    eth += b"\x86\xdd" if v6 else b"\x08\x00"
    fr = eth + bytes(ip)
    if eth_pad and len(fr) < 60:
        fr += bytes(60 - len(fr))
    return fr


def resp(op, psn, **kw):
    """a response of good_frames()' responder (IPv4)"""
    return roce(op, psn, dqpn=0x22, src=DST4, dst=SRC4, **kw)


def marker(text):
    """the UDP datagram to port 9 the two-host tests send between steps"""
    pl = b"SROCE-MARK " + text.encode()
    h = bytearray(struct.pack(">BBHHHBBH", 0x45, 0, 28 + len(pl), 1, 0x4000, 64, 17, 0)
                  + SRC4 + DST4)
    h[10:12] = struct.pack(">H", ip4_csum(h))
    return (b"\x52\x54\x00\x00\x02\x0b\x52\x54\x00\x00\x02\x0a\x08\x00" + bytes(h) +
            struct.pack(">HHHH", 40000, 9, 8 + len(pl), 0) + pl)


def write_pcap(path, frames, snaplen=65536, ms=None):
    """frames: Ethernet frames, written as captured with @snaplen, frame i
    at 1000 s + @ms[i] milliseconds (default: i)"""
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, snaplen, 1))
        for i, fr in enumerate(frames):
            cap = fr[:snaplen]
            m = ms[i] if ms else i
            f.write(struct.pack("<IIII", 1000 + m // 1000, (m % 1000) * 1000,
                                len(cap), len(fr)))
            f.write(cap)


def good_frames(v6=False):
    """a bit of everything that is right, at MTU 1024: requests from SRC to
    QP 0x11, responses back to QP 0x22"""
    mtu = bytes(range(256)) * 4

    def back(op, psn, **kw):
        s, d = (SRC6, DST6) if v6 else (SRC4, DST4)
        return roce(op, psn, dqpn=0x22, src=d, dst=s, v6=v6, **kw)

    fs = [
        roce(0x04, 1, payload=b"x", v6=v6),                        # SEND_ONLY 1 B
        back(0x11, 1, syn=0x1f),                                   # its ACK
        roce(0x00, 2, payload=mtu, v6=v6),                         # SEND_FIRST
        roce(0x01, 3, payload=mtu, v6=v6),
        roce(0x03, 4, payload=b"abcde", ext=b"\0\0\0\7", v6=v6),   # LAST_IMM
        roce(0x00, 3 - 1, payload=mtu, v6=v6),                     # go-back-N:
        roce(0x01, 3, payload=mtu, v6=v6),                         # resent
        roce(0x03, 4, payload=b"abcde", ext=b"\0\0\0\7", v6=v6),
        back(0x11, 4, syn=0x61),                                   # NAK invalid req
        back(0x11, 4, syn=0x2e),                                   # RNR NAK
        roce(0x0c, 5, v6=v6),                                      # READ 3 packets
        back(0x0d, 5, payload=mtu),
        back(0x0e, 6, payload=mtu),
        back(0x0f, 7, payload=b"12"),
        roce(0x0c, 5, v6=v6),                                      # re-sent READ
        back(0x10, 5, payload=b"re-read", tos=0x03),               # CE-marked
        roce(0x06, 8, payload=mtu, v6=v6),                         # WRITE after gap
        roce(0x09, 9, payload=b"", ext=b"\0\0\0\1", v6=v6),
        roce(0x13, 10, v6=v6),                                     # CMP_SWAP
        back(0x12, 10),                                            # ATOMIC_ACK
        roce(0x24, 77, dqpn=0x33, payload=b"uc" * 33, v6=v6),      # UC SEND_ONLY
        roce(0x64, 0, dqpn=1, payload=b"mad" * 80, v6=v6),         # UD
        roce(0x65, 0, dqpn=1, payload=b"", v6=v6),
        roce(0x81, 0, dqpn=0x40000011, v6=v6),                     # CNP, BECN
        roce(0x17, 11, payload=b"inv", v6=v6),                     # SEND_ONLY_INV
        roce(0x04, 12, payload=bytes(1000), v6=v6, tos=0xb8, ttl=1),
    ]
    return fs


class CheckerTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="roce_pcap_test.")

    def tearDown(self):
        shutil.rmtree(self.dir)

    def check(self, frames, snaplen=65536, mtu=1024):
        """(problem counts, report text, sections) of a pcap of frames"""
        p = os.path.join(self.dir, "t.pcap")
        write_pcap(p, frames, snaplen)
        out = io.StringIO()
        ck = rp.Checker("t.pcap", mtu, 1000, out)
        _, sections = rp.read_sections(p, ck)
        self.last = ck
        return ck.problems, out.getvalue(), sections

    def assert_clean(self, frames, **kw):
        probs, text, _ = self.check(frames, **kw)
        self.assertEqual(sum(probs.values()), 0, text)

    def assert_caught(self, bad, what, needle, v6=False, **kw):
        """good frames, then @bad: @what lines about that frame only, one
        with @needle"""
        fs = good_frames(v6) + [bad]
        probs, text, _ = self.check(fs, **kw)
        lines = text.splitlines()
        self.assertEqual(sum(probs.values()), len(lines), text)
        self.assertGreaterEqual(len(lines), 1, text)
        for ln in lines:
            self.assertTrue(ln.startswith("%s t.pcap frame %d t " % (what, len(fs))), text)
            self.assertIn(" bth=", ln)
        self.assertIn(needle, text)

    def test_good(self):
        for v6 in (False, True):
            self.assert_clean(good_frames(v6))
            self.assertEqual(self.last.icrc_ok, len(good_frames(v6)))

    def test_cnp(self):
        """a CNP needs BECN and no AckReq; one the capturing host sent
        must follow a CE-marked packet from where it goes"""
        self.assert_caught(roce(0x81, 0, dqpn=0x11), "MALFORMED", "CNP without BECN")
        self.assert_caught(roce(0x81, 0, dqpn=0x40000011, ackreq=1), "MALFORMED",
                           "CNP with AckReq")
        cnp = roce(0x81, 0, dqpn=0x40000011)
        for me, ce, want in ((("192.0.2.1",), None, 1), ((), None, 0),
                             (("192.0.2.2",), None, 0),
                             (("192.0.2.1",), resp(0x11, 1, syn=0x1f, tos=0x03), 0),
                             (("192.0.2.1",), roce(0x04, 1, payload=b"x", tos=0x03), 1)):
            p = os.path.join(self.dir, "c.pcap")
            write_pcap(p, ([ce] if ce else []) + [cnp])
            out = io.StringIO()
            ck = rp.Checker("c.pcap", 1024, 1000, out, me=me)
            rp.read_sections(p, ck)
            self.assertEqual(ck.problems["VIOLATION"], want, (me, out.getvalue()))
            self.assertEqual(ck.problems["MALFORMED"], 0, out.getvalue())
            self.assertEqual((ck.cnps, ck.ce_marked), (1, 1 if ce else 0))
            if want:
                self.assertIn("CNP to 192.0.2.2, which sent no CE-marked packet", out.getvalue())

    def test_good_truncated(self):
        """a 192-byte snaplen (vm2.sh): lengths from the headers, no ICRC
        on long frames"""
        for v6 in (False, True):
            self.assert_clean(good_frames(v6), snaplen=192)
            self.assertLess(self.last.whole, len(good_frames(v6)))
            self.assertEqual(self.last.icrc_ok, self.last.whole)

    def test_sections_and_bth(self):
        fs = [marker("T1 start"), roce(0x04, 5, payload=b"abc"), marker("T1 done")]
        probs, text, sections = self.check(fs)
        self.assertEqual(sum(probs.values()), 0, text)
        self.assertEqual([s[0] for s in sections],
                         ["(before the first marker)", "T1 start", "T1 done"])
        t, src, dst, b = sections[1][1][0]
        self.assertEqual((src, dst, b["op"], b["psn"], b["len"], b["pad"]),
                         ("192.0.2.1", "192.0.2.2", 4, 5, 3, 1))

    def test_markers_forget_flows(self):
        """a new test step may reuse a QPN at any PSN"""
        fs = [roce(0x00, 1, payload=bytes(1024)), marker("T2 start"),
              roce(0x04, 2, payload=b"a")]
        self.assert_clean(fs)

    def test_bad_icrc(self):
        for v6 in (False, True):
            self.assert_caught(roce(0x04, 13, payload=b"x", v6=v6, bad_icrc=True),
                               "MALFORMED", "ICRC", v6=v6)

    def test_bad_icrc_masked_fields(self):
        """TOS, TTL, flow label and the UDP checksum are not covered: a frame
        with them changed after the ICRC keeps its ICRC right"""
        fr = bytearray(roce(0x04, 13, payload=b"xyzw", v6=True))
        fr[14] = (fr[14] & 0xf0) | 0x0a         # traffic class, flow label
        fr[15:18] = b"\x77\x88\x99"
        fr[21] = 3                              # hop limit
        fr[14 + 46:14 + 48] = b"\x12\x34"       # UDP checksum
        self.assert_clean(good_frames(True) + [bytes(fr)])
        fr[14 + 40] ^= 1                        # source port: covered
        self.assert_caught(bytes(fr), "MALFORMED", "ICRC", v6=True)

    def test_bad_lengths(self):
        for v6 in (False, True):
            self.assert_caught(roce(0x04, 13, payload=b"abcd" * 20, v6=v6, ip_len=4),
                               "MALFORMED", "IP length", v6=v6)
            self.assert_caught(roce(0x04, 13, payload=b"abcd" * 20, v6=v6, udp_len=-4),
                               "MALFORMED", "UDP length", v6=v6)
        # a frame longer than its datagram and than 60 bytes: a trailer
        self.assert_caught(roce(0x04, 13, payload=b"abcd" * 20) + b"\0" * 4,
                           "MALFORMED", "IP length")

    def test_bad_lengths_truncated(self):
        """lengths against the original length, ICRC not checked"""
        fr = roce(0x04, 13, payload=bytes(600), udp_len=8)
        self.assert_caught(fr, "MALFORMED", "UDP length", snaplen=192)
        self.assert_clean(good_frames() + [roce(0x04, 13, payload=bytes(600),
                                                bad_icrc=True)], snaplen=192)

    def test_bad_ip4_checksum(self):
        fr = bytearray(roce(0x04, 13, payload=b"a"))
        fr[14 + 10] ^= 0x40
        self.assert_caught(bytes(fr), "MALFORMED", "checksum")

    def test_bad_pad(self):
        # 3 bytes of payload + 1 pad, said to be 2 pad: 2 + 2 not aligned
        self.assert_caught(roce(0x04, 13, payload=b"abc" + b"\0", pad=2),
                           "MALFORMED", "pad")
        self.assert_caught(resp(0x11, 13, pad=3, pad_bytes=0),
                           "MALFORMED", "payload length -3")

    def test_bad_payload(self):
        self.assert_caught(resp(0x11, 13, payload=b"abcd"),
                           "MALFORMED", "payload on RC_ACK")
        self.assert_caught(roce(0x0c, 13, payload=b"abcd"), "MALFORMED",
                           "payload on RC_READ_REQUEST")
        self.assert_caught(roce(0x00, 13, dqpn=0x44, payload=bytes(1000)),
                           "MALFORMED", "not an IB MTU")
        self.assert_caught(roce(0x00, 13, dqpn=0x44, payload=bytes(2048)),
                           "MALFORMED", "not an IB MTU up to 1024")
        self.assert_caught(roce(0x04, 13, payload=bytes(1028)), "MALFORMED",
                           "more than the MTU 1024")
        # the flow's FIRST/MIDDLE set its MTU
        self.assert_caught(roce(0x00, 13, payload=bytes(512)), "MALFORMED",
                           "1024 on the flow's earlier")

    def test_mtu_auto(self):
        fs = [roce(0x00, 1, payload=bytes(4096)), roce(0x02, 2, payload=bytes(4000))]
        self.assert_clean(fs, mtu=0)
        probs, text, _ = self.check(fs, mtu=1024)
        self.assertEqual(sum(probs.values()), 2, text)

    def test_bad_bth(self):
        self.assert_caught(roce(0x04, 13, payload=b"a", tver=1), "MALFORMED", "TVer 1")
        self.assert_caught(roce(0x04, 13, payload=b"a", pkey=0x7fff), "MALFORMED",
                           "P_Key 0x7fff")
        self.assert_caught(roce(0x15, 13), "MALFORMED", "opcode 0x15 unknown")
        self.assert_caught(roce(0x2c, 13), "MALFORMED", "opcode 0x2c")   # UC READ
        self.assert_caught(roce(0x60, 13, payload=bytes(8)), "MALFORMED", "opcode 0x60")
        self.assert_caught(roce(0x44, 13, payload=bytes(16)), "MALFORMED", "opcode 0x44")

    def test_bad_syndrome(self):
        for s in (0x40, 0x5f, 0x65, 0x7f, 0x80, 0xff):
            self.assert_caught(resp(0x11, 13, syn=s), "MALFORMED",
                               "syndrome 0x%02x reserved" % s)
        self.assert_caught(resp(0x10, 5, syn=0x60, payload=b"abcd"),
                           "MALFORMED", "on RC_READ_RESP_ONLY")

    def test_bad_sequence(self):
        mtu = bytes(1024)
        # good_frames() leaves the request flow at PSN 12 (SEND_ONLY)
        self.assert_caught(roce(0x01, 13, payload=mtu), "VIOLATION",
                           "RC_SEND_MIDDLE at PSN 13 without a SEND FIRST/MIDDLE")
        self.assert_caught(roce(0x02, 13, payload=b"a"), "VIOLATION", "RC_SEND_LAST")
        fs = good_frames() + [roce(0x00, 13, payload=mtu)]
        self.assert_caught_after(fs, roce(0x04, 14, payload=b"a"),
                                 "RC_SEND_ONLY at PSN 14 while a SEND message is open")
        self.assert_caught_after(fs, roce(0x08, 14, payload=b"a"),
                                 "RC_WRITE_LAST at PSN 14 without a WRITE FIRST/MIDDLE"
                                 " before it (a SEND message is open)")
        self.assert_caught_after(fs, roce(0x0c, 14), "RC_READ_REQUEST at PSN 14 while")
        # a resend must repeat its PSN's opcode
        self.assert_caught(roce(0x02, 3, payload=b"a"), "VIOLATION",
                           "PSN 3 resent as RC_SEND_LAST, first sent as RC_SEND_MIDDLE")
        # READ responses
        self.assert_caught(resp(0x0e, 6, payload=mtu), "VIOLATION",
                           "RC_READ_RESP_MIDDLE at PSN 6 without a RESP FIRST")
        self.assert_caught(resp(0x10, 30, payload=b"a"), "VIOLATION",
                           "RC_READ_RESP_ONLY at PSN 30 answers no READ request")
        fs = good_frames() + [roce(0x0c, 13), resp(0x0d, 13, payload=mtu)]
        self.assert_caught_after(fs, resp(0x10, 14, payload=b"a"),
                                 "RC_READ_RESP_ONLY at PSN 14 answers no READ request")
        # and the legal ones: on, or over again for a re-sent READ
        self.assert_clean(fs + [resp(0x0e, 14, payload=mtu), resp(0x0f, 15, payload=b"a")])
        self.assert_clean(fs + [roce(0x0c, 14), resp(0x10, 14, payload=b"a")])
        # ATOMIC WRITE: answered by an empty READ response, as rdma_rxe does
        self.assert_clean(good_frames() + [roce(0x1d, 13, ext=bytes(16), payload=bytes(8)),
                                           resp(0x10, 13, syn=0x1f)])
        # PSN wrap
        self.assert_clean([roce(0x00, 0xffffff, payload=mtu), roce(0x02, 0, payload=b"a"),
                           roce(0x00, 0xffffff, payload=mtu)], mtu=0)
        self.assertEqual(self.check([roce(0x00, 0xffffff, payload=mtu),
                                     roce(0x04, 0, payload=b"a")])[0]["VIOLATION"], 1)

    def assert_caught_after(self, fs, bad, needle):
        probs, text, _ = self.check(fs + [bad])
        self.assertEqual(sum(probs.values()), 1, text)
        self.assertIn("VIOLATION t.pcap frame %d " % (len(fs) + 1), text)
        self.assertIn(needle, text)

    def test_eth_padding(self):
        """small frames padded to 60 bytes, or not padded at all"""
        fr = roce(0x04, 13, eth_pad=False)          # a 0-byte SEND: 58 bytes
        self.assertLess(len(fr), 60)
        self.assert_clean(good_frames() + [fr, roce(0x04, 14)])
        self.assertEqual(self.last.icrc_ok, len(good_frames()) + 2)
        self.assert_caught(roce(0x04, 13, ip_len=-4), "MALFORMED", "IP length")

    def test_vlan(self):
        fr = roce(0x04, 13, payload=b"a", bad_icrc=True)
        fr = fr[:12] + b"\x81\x00\x00\x05" + fr[12:]
        self.assert_caught(fr, "MALFORMED", "ICRC")

    def test_no_crash(self):
        """frames cut and flipped at random: reported, never a traceback"""
        rnd = random.Random(2)
        base = good_frames() + good_frames(True)
        fs = []
        for _ in range(3000):
            fr = bytearray(rnd.choice(base))
            for _ in range(rnd.randrange(1, 4)):
                fr[rnd.randrange(12, len(fr))] = rnd.randrange(256)
            if rnd.random() < 0.3:
                fr = fr[:rnd.randrange(14, len(fr))]
            fs.append(bytes(fr))
        probs, text, _ = self.check(fs, snaplen=rnd.choice((64, 192, 65536)))
        self.assertGreater(sum(probs.values()), 1000)

    def test_icrc_vs_driver(self):
        """the checker's ICRC against the driver's sroce_icrc() and
        sroce_parse(), built from drivers/sroce/parse.c with the fuzzer's
        shim, on random packets (rdma_rxe's rxe_icrc.c computes the same)"""
        cc = shutil.which("cc") or shutil.which("gcc")
        top = os.path.dirname(HERE)
        if not cc or not os.path.exists(os.path.join(top, "drivers/sroce/parse.c")):
            self.skipTest("no C compiler or no driver source")
        src = os.path.join(self.dir, "ref.c")
        with open(src, "w") as f:
            f.write(REF_C)
        exe = os.path.join(self.dir, "ref")
        subprocess.check_call([cc, "-O2", "-I", os.path.join(top, "selftests/fuzz/shim"),
                               "-I", os.path.join(top, "drivers/sroce"), "-o", exe, src,
                               os.path.join(top, "drivers/sroce/parse.c"),
                               os.path.join(top, "drivers/sroce/wire.c")])
        rnd = random.Random(1)
        ops = [op for op in rp.OPINFO if op != 0x81 and op & 0x1f != 0x1d]
        recs, want = [], []
        for _ in range(3000):
            op = rnd.choice(ops)
            rule = rp.OPINFO[op][1]
            n = 0 if rule == rp.NONE else rnd.choice((1, 2, 3, 4, 7, 256, 1023, 1024))
            if rule == rp.FULL:
                n = 1024
            v6 = rnd.random() < 0.5
            ext = bytes(rnd.randrange(256) for _ in range(rp.OPINFO[op][0]))
            if rp.OPINFO[op][4]:
                ext = b"\x1f" + ext[1:]
            fr = roce(op, rnd.randrange(1 << 24), rnd.randrange(1 << 24),
                      bytes(rnd.randrange(256) for _ in range(n)), ext=ext, v6=v6,
                      tos=rnd.randrange(256), ttl=rnd.randrange(256),
                      flow=rnd.randrange(1 << 20), sport=rnd.randrange(1 << 16),
                      ackreq=rnd.randrange(2), eth_pad=False)
            # the BTH's reserved byte before DestQP: not covered either
            fr = bytearray(fr)
            fr[14 + (40 if v6 else 20) + 8 + 4] = rnd.randrange(256)
            ip = bytes(fr[14:])
            recs.append(struct.pack("<BH", v6, len(ip)) + ip)
            want.append(ip[-4:].hex())
        out = subprocess.run([exe], input=b"".join(recs), stdout=subprocess.PIPE,
                             check=True).stdout.decode().split("\n")
        for i, w in enumerate(want):
            res, got = out[i].split()
            self.assertEqual((res, got), ("0", w), "packet %d" % i)


REF_C = r"""
#include <stdio.h>
#include "parse.h"

/* stdin: [IPv6 flag][u16 LE length][packet from the IP header]...;
 * stdout: sroce_parse()'s result and sroce_icrc() as the wire bytes */
int main(void)
{
	static unsigned char buf[70000];
	unsigned char h[3];

	while (fread(h, 1, 3, stdin) == 3) {
		unsigned int len = h[1] | h[2] << 8, l4 = h[0] ? 40 : 20;
		struct sroce_pkt pkt;
		__le32 c;
		unsigned char *b = (unsigned char *)&c;
		int r;

		if (fread(buf, 1, len, stdin) != len)
			return 1;
		r = sroce_parse(buf, len, l4, h[0], &pkt);
		c = sroce_icrc(buf, l4, buf + l4 + 8, len - l4 - 8 - 4);
		printf("%d %02x%02x%02x%02x\n", r, b[0], b[1], b[2], b[3]);
	}
	return 0;
}
"""  # noqa: W191,E101 (the C program is indented as C is, with tabs)


class CliTest(unittest.TestCase):
    """the command line: exit status, the summary lines"""

    def run_cli(self, frames, *args):
        with tempfile.TemporaryDirectory() as d:
            p = os.path.join(d, "a.pcap")
            write_pcap(p, frames)
            return subprocess.run([sys.executable, os.path.join(HERE, "roce_pcap.py"),
                                   p] + list(args), stdout=subprocess.PIPE,
                                  universal_newlines=True)

    def test_exit_status(self):
        r = self.run_cli(good_frames())
        self.assertEqual(r.returncode, 0, r.stdout)
        self.assertIn("\nmalformed: 0\n", r.stdout)
        self.assertIn("\nsender 192.0.2.1: 14 request packets, 4 sent more than once\n",
                      r.stdout)
        bad = good_frames() + [roce(0x04, 13, payload=b"a", tver=1),
                               roce(0x01, 14, payload=bytes(1024))]
        r = self.run_cli(bad)
        self.assertEqual(r.returncode, 1, r.stdout)
        self.assertIn("\nmalformed: 2\n", r.stdout)
        lines = r.stdout.splitlines()
        self.assertEqual(sum(ln.startswith("MALFORMED ") for ln in lines), 1)
        self.assertEqual(sum(ln.startswith("VIOLATION ") for ln in lines), 1)
        r = self.run_cli(bad, "--no-fail")
        self.assertEqual(r.returncode, 0, r.stdout)
        self.assertIn("\nmalformed: 2\n", r.stdout)

    def run_two(self, fa, fb, *args, ms=None):
        """the summary of two captures: @fa on 192.0.2.1, @fb on .2"""
        with tempfile.TemporaryDirectory() as d:
            pa, pb = os.path.join(d, "a.pcap"), os.path.join(d, "b.pcap")
            write_pcap(pa, fa, ms=ms)
            write_pcap(pb, fb, ms=ms)
            r = subprocess.run([sys.executable, os.path.join(HERE, "roce_pcap.py"),
                                pa, "--peer-pcap", pb] + list(args),
                               stdout=subprocess.PIPE, universal_newlines=True)
        self.assertEqual(r.returncode, 0, r.stdout)
        return r.stdout

    def test_rerequest_ipv6(self):
        """an IPv6 sender counts as its host, in both captures; a READ
        asked again from inside its range (a PSN never sent as a request)
        is a retransmission, explained only by a gap in its responses"""
        mtu = bytes(1024)

        def rd(psn, n):
            return roce(0x0c, psn, v6=True, ext=struct.pack(">QII", 0x1000, 7, n * 1024))

        def resp(op, psn):
            return roce(op, psn, dqpn=0x22, v6=True, src=DST6, dst=SRC6,
                        payload=mtu)
        for gap in (False, True):
            rs = [resp(0x0d, 5)] + ([] if gap else [resp(0x0e, 6)]) + [resp(0x0f, 7)]
            fs = [marker("T start"), rd(5, 3)] + rs + [rd(6, 2), resp(0x0d, 6),
                                                       resp(0x0f, 7), rd(8, 1)]
            out = self.run_two(fs, fs, "--mtu", "1024")
            self.assertIn("\nsender 192.0.2.1: 3 request packets, 1 sent more than once\n",
                          out)
            self.assertIn("\nsender 192.0.2.1: %d sent more than once with no loss shown"
                          " before them\n" % (0 if gap else 1), out)
            self.assertNotIn("sender 2001:db8", out)

    def test_timeout_resend(self):
        """a WRITE resent after a whole ACK timeout (67 ms) is explained
        if no ACK that covers it had come (some ACK may have: the peer was
        slow, not silent), and not if one had come in time to be seen; the
        rest of its burst, sent first less than a timeout before, too; a
        resend up to TMO_SLACK (4 ms) short of a whole timeout is still the
        timeout's (the guest's clock against the capture's), 6 ms short not"""
        mtu = bytes(1024)
        w = [roce(0x06, 2, payload=mtu), roce(0x07, 3, payload=mtu),
             roce(0x08, 4, payload=mtu)]
        # (ACK PSN, its time, the resend's time, first copies of PSN 3
        # and 4 (the burst's tail: younger than a timeout), unexplained)
        for ack, at, again, tail, bad in ((1, 10, 100, 3, 0), (4, 50, 100, 3, 3),
                                          (4, 95, 100, 3, 0), (1, 10, 40, 3, 3),
                                          (1, 45, 100, 40, 0), (3, 70, 100, 40, 2),
                                          (1, 10, 66, 3, 0), (1, 10, 61, 3, 3)):
            fs = [marker("T start"), roce(0x04, 1, payload=b"x")] + w + \
                 [resp(0x11, ack, syn=0x1f)] + w
            ms = [0, 1, 2, tail, tail + 1, at, again, again + 1, again + 2]
            out = self.run_two(fs, fs, "--mtu", "1024", ms=ms)
            self.assertIn("\nsender 192.0.2.1: 7 request packets, 3 sent more than once\n",
                          out)
            self.assertIn("\nsender 192.0.2.1: %d sent more than once with no loss shown"
                          " before them\n" % bad, out, (ack, at, again))

    def test_ack_probe(self):
        """the newest request sent again, alone, with AckReq where its first
        copy had none, is an ACK probe, not a resend with no loss before it;
        another PSN, or the copy not asking, is still one"""
        w = [roce(0x0a, p, payload=b"x" * 16) for p in (1, 2, 3)]
        for psn, ask, bad, probe in ((3, 1, 0, 1), (2, 1, 1, 0), (3, 0, 1, 0)):
            fs = [marker("T start")] + w + [roce(0x0a, psn, payload=b"x" * 16,
                                                 ackreq=ask)]
            out = self.run_two(fs, fs, "--mtu", "1024", ms=[0, 1, 2, 3, 30])
            self.assertIn("\nsender 192.0.2.1: 4 request packets, 1 sent more than once\n",
                          out)
            self.assertIn("\nsender 192.0.2.1: %d sent more than once with no loss shown"
                          " before them\n" % bad, out, (psn, ask))
            self.assertIn("\nsender 192.0.2.1: %d ACK probes" % probe, out, (psn, ask))


if __name__ == "__main__":
    unittest.main()
