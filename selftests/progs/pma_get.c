// SPDX-License-Identifier: GPL-2.0
/*
 * PerfMgmt GETs from user space through ib_umad, as infiniband-diags'
 * perfquery sends them, to the PMA of a port named by its GID: over the
 * wire to another host's port, or to the sender's own. Only the GSI class
 * (4) is registered: perfquery also registers the SMI class, whose QP0 a
 * RoCE port does not have (Documentation/interop.md). From an IPv6 GID:
 * the kernel matches the answer to a GET sent from an IPv4 GID with a GRH
 * that holds an IPv4 header, and never finds it.
 *
 * ClassPortInfo (the extended-width capability), PortCountersExtended and
 * PortCounters are asked for; each answer must be a GetResp with status 0
 * and the request's TID and attribute. The 64-bit counters are printed as
 * "NAME=VALUE" lines for the caller to compare with hw_counters, and the
 * 32-bit ones must agree with them (the lower bits, or all ones).
 *
 *   pma_get DEV GID_INDEX DEST_GID
 *
 * TAP lines; the exit status is the number of failed checks (capped).
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <rdma/ib_user_mad.h>

#include "common.h"

#define MAD_LEN		256
#define PM_DATA		64	/* PerfMgmt data after header and reserved */
#define ATTR_CPI	0x0001
#define ATTR_PC		0x0012
#define ATTR_PCE	0x001d

struct umad {
	struct ib_user_mad hdr;
	uint8_t mad[MAD_LEN];
};

static int fd;
static uint32_t agent;

/* /dev/infiniband/umadN of port 1 of @dev, opened; -1 if none */
static int open_umad(const char *dev)
{
	char path[300], name[64] = "";
	struct dirent *e;
	DIR *d = opendir("/sys/class/infiniband_mad");
	FILE *f;
	int r = -1;

	while (d && (e = readdir(d)) && r < 0) {
		if (strncmp(e->d_name, "umad", 4))
			continue;
		snprintf(path, sizeof(path), "/sys/class/infiniband_mad/%s/ibdev",
			 e->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fscanf(f, "%63s", name) == 1 && !strcmp(name, dev)) {
			snprintf(path, sizeof(path), "/dev/infiniband/%s",
				 e->d_name);
			r = open(path, O_RDWR);
		}
		fclose(f);
	}
	if (d)
		closedir(d);
	return r;
}

/* Register a GSI agent for the PerfMgmt class, version 1 */
static int reg_agent(void)
{
	struct ib_user_mad_reg_req req = {
		.qpn = 1, .mgmt_class = 4, .mgmt_class_version = 1,
	};

	if (ioctl(fd, IB_USER_MAD_ENABLE_PKEY) ||
	    ioctl(fd, IB_USER_MAD_REGISTER_AGENT, &req))
		return -1;
	agent = req.id;
	return 0;
}

static uint64_t get_be(const uint8_t *p, int n)
{
	uint64_t v = 0;

	while (n--)
		v = v << 8 | *p++;
	return v;
}

/*
 * Send a GET of @attr to the PMA at @gid (from GID index @sgid) and read
 * the answer into @resp: 0, or -1 with the reason printed
 */
static int get(uint16_t attr, const uint8_t *gid, int sgid, struct umad *resp)
{
	static uint32_t tid = 0x5e0c0000;
	struct umad req = { 0 };
	struct pollfd p = { .fd = fd, .events = POLLIN };
	uint32_t my = ++tid;
	ssize_t n;

	req.hdr.hdr.id = agent;
	req.hdr.hdr.timeout_ms = 2000;
	req.hdr.hdr.retries = 3;
	req.hdr.hdr.qpn = htonl(1);
	req.hdr.hdr.qkey = htonl(0x80010000);
	req.hdr.hdr.grh_present = 1;
	req.hdr.hdr.gid_index = sgid;
	req.hdr.hdr.hop_limit = 64;
	memcpy(req.hdr.hdr.gid, gid, 16);
	req.mad[0] = 1;				/* base version */
	req.mad[1] = 4;				/* PerfMgmt */
	req.mad[2] = 1;				/* class version */
	req.mad[3] = 1;				/* Get */
	req.mad[12] = my >> 24;			/* TID, low 32 bits */
	req.mad[13] = my >> 16;
	req.mad[14] = my >> 8;
	req.mad[15] = my;
	req.mad[16] = attr >> 8;
	req.mad[17] = attr;
	req.mad[PM_DATA + 1] = 1;		/* PortSelect */
	if (write(fd, &req, sizeof(req)) != sizeof(req)) {
		printf("# write: %s\n", strerror(errno));
		return -1;
	}
	if (poll(&p, 1, 20000) != 1) {
		printf("# no answer within 20 s\n");
		return -1;
	}
	n = read(fd, resp, sizeof(*resp));
	if (n < (ssize_t)sizeof(resp->hdr) + 24 || resp->hdr.hdr.status) {
		printf("# read %zd bytes, status %u\n", n, resp->hdr.hdr.status);
		return -1;
	}
	return get_be(resp->mad + 12, 4) == my ? 0 : -1;
}

/* A GET of @attr answered: GetResp, status 0, the attribute asked */
static int answered(uint16_t attr, const uint8_t *gid, int sgid,
		    struct umad *r, const char *what)
{
	int ok = !get(attr, gid, sgid, r) && r->mad[3] == 0x81 &&
		 !get_be(r->mad + 4, 2) && get_be(r->mad + 16, 2) == attr;

	return check(ok, "%s: GetResp, status 0x%04x", what,
		     (unsigned int)get_be(r->mad + 4, 2));
}

int main(int argc, char **argv)
{
	static const char *const names[] = {
		"PortXmitData", "PortRcvData", "PortXmitPkts", "PortRcvPkts",
	};
	uint8_t gid[16];
	struct umad r;
	uint64_t ext[4] = { 0 };
	int i, sgid, have_ext = 0;

	if (argc < 4 || inet_pton(AF_INET6, argv[3], gid) != 1) {
		fprintf(stderr, "usage: pma_get DEV GID_INDEX DEST_GID\n");
		return 2;
	}
	sgid = atoi(argv[2]);
	fd = open_umad(argv[1]);
	if (!check(fd >= 0 && !reg_agent(), "%s: umad open, PerfMgmt agent",
		   argv[1]))
		return 1;
	if (answered(ATTR_CPI, gid, sgid, &r, "ClassPortInfo"))
		check(get_be(r.mad + PM_DATA + 2, 2) & (1 << 9),
		      "ClassPortInfo offers the extended counters (0x%04x)",
		      (unsigned int)get_be(r.mad + PM_DATA + 2, 2));
	if (answered(ATTR_PCE, gid, sgid, &r, "PortCountersExtended")) {
		have_ext = 1;
		for (i = 0; i < 4; i++) {
			ext[i] = get_be(r.mad + PM_DATA + 8 + 8 * i, 8);
			printf("%s=%llu\n", names[i], (unsigned long long)ext[i]);
		}
	}
	if (answered(ATTR_PC, gid, sgid, &r, "PortCounters") && have_ext) {
		/*
		 * Read after the extended ones: never smaller, and larger by
		 * about one exchange of MADs at most (the PMA's own answer)
		 */
		for (i = 0; i < 4; i++) {
			uint64_t v = get_be(r.mad + PM_DATA + 24 + 4 * i, 4);

			check(v == 0xffffffffull ||
			      (v >= ext[i] && v - ext[i] < 1024),
			      "%s: 32-bit %llu, 64-bit %llu", names[i],
			      (unsigned long long)v,
			      (unsigned long long)ext[i]);
		}
	}
	close(fd);
	return nfail > 100 ? 100 : nfail;
}
