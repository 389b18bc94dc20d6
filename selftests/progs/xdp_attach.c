// SPDX-License-Identifier: GPL-2.0
/*
 * xdp_attach IFNAME drv|skb pass|drop|switch: an XDP program on IFNAME, in
 * the driver (native XDP) or on the generic path, until SIGTERM or SIGINT:
 *
 *   pass   every frame passes (the program's presence changes the path:
 *          a veth then receives through its NAPI ring)
 *   drop   IPv4 UDP to port 4791 (RoCEv2) is dropped, the rest passes
 *   switch as drop while a flag in a map is set, else as pass: SIGUSR1
 *          sets it, SIGUSR2 clears it, and "drop on" or "drop off" is
 *          printed once the map holds the change. The program stays
 *          attached, so no kernel text is patched while traffic runs
 *          (attaching one rewrites the XDP dispatcher)
 *
 * The program is loaded from instructions written out below (no compiler
 * for BPF needed) and attached through a BPF link, which goes with this
 * process. Prints "attached" on stdout once it is. Exit 0, or 1 on error.
 */
#include <errno.h>
#include <linux/bpf.h>
#include <linux/if_link.h>
#include <net/if.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define INSN(c, d, s, o, i)	{ .code = (c), .dst_reg = (d), .src_reg = (s), \
				  .off = (o), .imm = (i) }
#define LDX(sz, d, s, o)	INSN(BPF_LDX | BPF_MEM | (sz), d, s, o, 0)
#define MOV_REG(d, s)		INSN(BPF_ALU64 | BPF_MOV | BPF_X, d, s, 0, 0)
#define MOV_IMM(d, i)		INSN(BPF_ALU64 | BPF_MOV | BPF_K, d, 0, 0, i)
#define ADD_IMM(d, i)		INSN(BPF_ALU64 | BPF_ADD | BPF_K, d, 0, 0, i)
#define AND_IMM(d, i)		INSN(BPF_ALU64 | BPF_AND | BPF_K, d, 0, 0, i)
#define JNE_IMM(d, i, o)	INSN(BPF_JMP | BPF_JNE | BPF_K, d, 0, o, i)
#define JGT_REG(d, s, o)	INSN(BPF_JMP | BPF_JGT | BPF_X, d, s, o, 0)
#define EXIT()			INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0)
#define JEQ_IMM(d, i, o)	INSN(BPF_JMP | BPF_JEQ | BPF_K, d, 0, o, i)
#define ST_W(d, o, i)		INSN(BPF_ST | BPF_MEM | BPF_W, d, 0, o, i)
#define CALL(f)			INSN(BPF_JMP | BPF_CALL, 0, 0, 0, f)
/* A 64-bit load of a map's fd: two instructions. */
#define LD_MAP_FD(d)		INSN(BPF_LD | BPF_DW | BPF_IMM, d, BPF_PSEUDO_MAP_FD, 0, 0), \
				INSN(0, 0, 0, 0, 0)

static const struct bpf_insn prog_pass[] = {
	MOV_IMM(0, XDP_PASS),
	EXIT(),
};

/*
 * Ethernet (14 bytes), IPv4 without options (20), UDP (8). Loads are
 * little-endian: the ethertype 0x0800 reads 0x0008, port 4791 0xb712.
 */
static const struct bpf_insn prog_drop[] = {
	LDX(BPF_W, 2, 1, offsetof(struct xdp_md, data)),
	LDX(BPF_W, 3, 1, offsetof(struct xdp_md, data_end)),
	MOV_REG(4, 2),
	ADD_IMM(4, 42),
	JGT_REG(4, 3, 11),		/* too short: pass */
	LDX(BPF_H, 5, 2, 12),
	JNE_IMM(5, 0x0008, 9),		/* not IPv4 */
	LDX(BPF_B, 5, 2, 14),
	AND_IMM(5, 0x0f),
	JNE_IMM(5, 5, 6),		/* IP options */
	LDX(BPF_B, 5, 2, 23),
	JNE_IMM(5, 17, 4),		/* not UDP */
	LDX(BPF_H, 5, 2, 36),
	JNE_IMM(5, 0xb712, 2),		/* not to port 4791 */
	MOV_IMM(0, XDP_DROP),
	EXIT(),
	MOV_IMM(0, XDP_PASS),
	EXIT(),
};

/*
 * switch: the flag at key 0 of an array map (its fd patched into
 * instruction 4), then prog_drop's test on the context kept in r6.
 */
static struct bpf_insn prog_switch[] = {
	MOV_REG(6, 1),
	ST_W(10, -4, 0),
	MOV_REG(2, 10),
	ADD_IMM(2, -4),
	LD_MAP_FD(1),
	CALL(BPF_FUNC_map_lookup_elem),
	JEQ_IMM(0, 0, 3),		/* no element: pass */
	LDX(BPF_W, 0, 0, 0),
	JEQ_IMM(0, 0, 1),		/* flag clear: pass */
	INSN(BPF_JMP | BPF_JA, 0, 0, 2, 0),
	MOV_IMM(0, XDP_PASS),
	EXIT(),
	MOV_REG(1, 6),
};

static int bpf(int cmd, union bpf_attr *attr)
{
	return syscall(__NR_bpf, cmd, attr, sizeof(*attr));
}

static int load(const struct bpf_insn *insns, size_t n)
{
	static char log[65536];
	union bpf_attr a;
	int fd;

	memset(&a, 0, sizeof(a));
	a.prog_type = BPF_PROG_TYPE_XDP;
	a.insns = (unsigned long)insns;
	a.insn_cnt = n;
	a.license = (unsigned long)"GPL";
	a.log_buf = (unsigned long)log;
	a.log_size = sizeof(log);
	a.log_level = 1;
	fd = bpf(BPF_PROG_LOAD, &a);
	if (fd < 0)
		fprintf(stderr, "xdp_attach: BPF_PROG_LOAD: %s\n%s\n",
			strerror(errno), log);
	return fd;
}

/* The map of the switch program, its flag 0. */
static int switch_map(void)
{
	union bpf_attr a;
	int fd;

	memset(&a, 0, sizeof(a));
	a.map_type = BPF_MAP_TYPE_ARRAY;
	a.key_size = 4;
	a.value_size = 4;
	a.max_entries = 1;
	fd = bpf(BPF_MAP_CREATE, &a);
	if (fd < 0)
		fprintf(stderr, "xdp_attach: BPF_MAP_CREATE: %s\n", strerror(errno));
	return fd;
}

static int switch_set(int map, unsigned int on)
{
	unsigned int key = 0;
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.map_fd = map;
	a.key = (unsigned long)&key;
	a.value = (unsigned long)&on;
	if (bpf(BPF_MAP_UPDATE_ELEM, &a)) {
		fprintf(stderr, "xdp_attach: BPF_MAP_UPDATE_ELEM: %s\n", strerror(errno));
		return -1;
	}
	printf("drop %s\n", on ? "on" : "off");
	fflush(stdout);
	return 0;
}

#define N(a)	(sizeof(a) / sizeof((a)[0]))

static int load_named(const char *what, int *map)
{
	static struct bpf_insn both[N(prog_switch) + N(prog_drop)];

	*map = -1;
	if (!strcmp(what, "pass"))
		return load(prog_pass, N(prog_pass));
	if (!strcmp(what, "drop"))
		return load(prog_drop, N(prog_drop));
	*map = switch_map();
	if (*map < 0)
		return -1;
	prog_switch[4].imm = *map;
	memcpy(both, prog_switch, sizeof(prog_switch));
	memcpy(both + N(prog_switch), prog_drop, sizeof(prog_drop));
	return load(both, N(both));
}

int main(int argc, char **argv)
{
	union bpf_attr a;
	unsigned int ifindex;
	int prog, link, sig, map;
	sigset_t set;

	if (argc != 4 || (strcmp(argv[2], "drv") && strcmp(argv[2], "skb")) ||
	    (strcmp(argv[3], "pass") && strcmp(argv[3], "drop") &&
	     strcmp(argv[3], "switch"))) {
		fprintf(stderr, "usage: xdp_attach IFNAME drv|skb pass|drop|switch\n");
		return 1;
	}
	ifindex = if_nametoindex(argv[1]);
	if (!ifindex) {
		fprintf(stderr, "xdp_attach: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	/* Blocked before the link exists: a signal right after "attached" waits. */
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGUSR2);
	sigprocmask(SIG_BLOCK, &set, NULL);

	prog = load_named(argv[3], &map);
	if (prog < 0)
		return 1;
	memset(&a, 0, sizeof(a));
	a.link_create.prog_fd = prog;
	a.link_create.target_ifindex = ifindex;
	a.link_create.attach_type = BPF_XDP;
	a.link_create.flags = strcmp(argv[2], "drv") ? XDP_FLAGS_SKB_MODE :
						       XDP_FLAGS_DRV_MODE;
	link = bpf(BPF_LINK_CREATE, &a);
	if (link < 0) {
		fprintf(stderr, "xdp_attach: BPF_LINK_CREATE on %s (%s): %s\n",
			argv[1], argv[2], strerror(errno));
		return 1;
	}
	printf("attached\n");
	fflush(stdout);
	while (!sigwait(&set, &sig) && (sig == SIGUSR1 || sig == SIGUSR2))
		if (map >= 0 && switch_set(map, sig == SIGUSR1))
			return 1;
	close(link);
	close(prog);
	return 0;
}
