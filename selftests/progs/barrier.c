// SPDX-License-Identifier: GPL-2.0
/*
 * A rendezvous between the VMs of a two-host test (selftests/vm2.sh) or of
 * a cluster test (selftests/vmn.sh), over TCP on the test segment.
 *
 *   barrier listen PORT TAG [MSG] [TIMEOUT_S]	(role B)
 *   barrier connect HOST PORT TAG [MSG] [TIMEOUT_S]	(role A)
 *   barrier hub PORT TAG COUNT [MSG] [TIMEOUT_S]	(cluster node 1)
 *   barrier join HOST PORT TAG [MSG] [TIMEOUT_S]	(the other nodes)
 *
 * Both sides must name the same TAG. The listener accepts connections until
 * one names its TAG; the connector retries until the listener accepts its
 * TAG. A side that ran ahead after a failure (its test exited early) is thus
 * turned away, not paired with a step of another test, and both meet again
 * at the next test's first barrier. Each side sends MSG (default "-") and
 * prints the peer's: the tests exchange exit statuses that way.
 *
 * A probe of the tools' own TCP port cannot serve as the barrier: perftest
 * and ibv_rc_pingpong servers accept exactly one connection and fail when it
 * carries no parameters.
 *
 * The hub holds each joiner that names TAG until COUNT of them have; then
 * it answers every one with all the messages, its own first, then the
 * joiners' in the order they came, separated by spaces, and each side
 * prints that line: a barrier of COUNT + 1 nodes that also gathers their
 * exit statuses.
 *
 * Exit: 0 met, 1 timeout (default 120 s) or error.
 */
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#define LINE 1024
#define HUB_MAX 64

static double deadline;
/* the longest a reply may take: a joiner waits until the last one comes */
static int reply_ms = 5000;

static double mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int left_ms(void)
{
	double l = deadline - mono();

	return l > 0 ? (int)(l * 1000) + 1 : 0;
}

/* read one '\n'-terminated line (without it) before the deadline */
static int read_line(int fd, char *buf, size_t len)
{
	size_t n = 0;

	while (n + 1 < len) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		ssize_t r;

		if (poll(&p, 1, left_ms() < reply_ms ? left_ms() : reply_ms) <= 0)
			return -1;
		r = read(fd, buf + n, 1);
		if (r <= 0)
			return -1;
		if (buf[n] == '\n') {
			buf[n] = 0;
			return 0;
		}
		n++;
	}
	return -1;
}

static int write_all(int fd, const char *s)
{
	size_t n = strlen(s);

	while (n) {
		ssize_t w = write(fd, s, n);

		if (w <= 0)
			return -1;
		s += w;
		n -= w;
	}
	return 0;
}

/*
 * One exchange: "TAG MSG\n" each way. Returns 0 when the peer named TAG
 * (peer's MSG in @peer), 1 when it named another tag, -1 on error.
 */
static int exchange(int fd, const char *tag, const char *msg, char *peer)
{
	char out[LINE], in[LINE], *sp;

	snprintf(out, sizeof(out), "%s %s\n", tag, msg);
	if (write_all(fd, out) || read_line(fd, in, sizeof(in)))
		return -1;
	sp = strchr(in, ' ');
	if (!sp)
		return -1;
	*sp = 0;
	if (strcmp(in, tag)) {
		static int said;

		/* once: the other side asks again every 100 ms */
		if (!said++)
			fprintf(stderr, "barrier: peer is at '%s', not '%s'\n", in, tag);
		return 1;
	}
	snprintf(peer, LINE, "%s", sp + 1);
	return 0;
}

static int listen_on(int port)
{
	struct sockaddr_in6 a = { .sin6_family = AF_INET6, .sin6_port = htons(port),
				  .sin6_addr = IN6ADDR_ANY_INIT };
	int one = 1, ls;

	ls = socket(AF_INET6, SOCK_STREAM, 0);
	if (ls < 0 || setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(ls, (struct sockaddr *)&a, sizeof(a)) || listen(ls, HUB_MAX)) {
		perror("barrier: listen");
		if (ls >= 0)
			close(ls);
		return -1;
	}
	return ls;
}

static int do_listen(int port, const char *tag, const char *msg, char *peer)
{
	int ls, fd, r;

	ls = listen_on(port);
	if (ls < 0)
		return 1;
	while (left_ms()) {
		struct pollfd p = { .fd = ls, .events = POLLIN };

		if (poll(&p, 1, left_ms()) <= 0)
			break;
		fd = accept(ls, NULL, NULL);
		if (fd < 0)
			continue;
		r = exchange(fd, tag, msg, peer);
		close(fd);
		if (!r) {
			close(ls);
			return 0;
		}
	}
	close(ls);
	fprintf(stderr, "barrier: listen %s: timed out\n", tag);
	return 1;
}

static int do_connect(const char *host, const char *port, const char *tag,
		      const char *msg, char *peer)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *ai;
	int fd, r, e;

	e = getaddrinfo(host, port, &hints, &ai);
	if (e) {
		fprintf(stderr, "barrier: %s: %s\n", host, gai_strerror(e));
		return 1;
	}
	while (left_ms()) {
		fd = socket(ai->ai_family, SOCK_STREAM, 0);
		if (fd < 0)
			break;
		r = -1;
		if (!connect(fd, ai->ai_addr, ai->ai_addrlen))
			r = exchange(fd, tag, msg, peer);
		close(fd);
		if (!r) {
			freeaddrinfo(ai);
			return 0;
		}
		/* not listening yet, or at another step: ask again soon */
		usleep(100000);
	}
	freeaddrinfo(ai);
	fprintf(stderr, "barrier: connect %s: timed out\n", tag);
	return 1;
}

/*
 * One joiner's "TAG MSG": 0 and its MSG appended to @all when it names
 * @tag (the connection kept open), else it is told our tag and closed.
 */
static int hub_take(int fd, const char *tag, char *all, size_t len)
{
	char in[LINE], out[LINE], *sp;

	if (read_line(fd, in, sizeof(in)))
		return -1;
	sp = strchr(in, ' ');
	if (sp) {
		*sp = 0;
		if (!strcmp(in, tag)) {
			size_t n = strlen(all);

			snprintf(all + n, len - n, " %s", sp + 1);
			return 0;
		}
	}
	snprintf(out, sizeof(out), "%s -\n", tag);
	write_all(fd, out);
	return -1;
}

static int do_hub(int port, const char *tag, int count, const char *msg, char *all,
		  size_t len)
{
	int fds[HUB_MAX], n = 0, ls, fd, i, r = 1;
	char out[LINE + 64];

	ls = listen_on(port);
	if (ls < 0)
		return 1;
	snprintf(all, len, "%s", msg);
	while (n < count && left_ms()) {
		struct pollfd p = { .fd = ls, .events = POLLIN };

		if (poll(&p, 1, left_ms()) <= 0)
			break;
		fd = accept(ls, NULL, NULL);
		if (fd < 0)
			continue;
		if (hub_take(fd, tag, all, len))
			close(fd);
		else
			fds[n++] = fd;
	}
	close(ls);
	if (n == count) {
		snprintf(out, sizeof(out), "%s %s\n", tag, all);
		for (i = 0, r = 0; i < n; i++)
			r |= write_all(fds[i], out);
	} else {
		fprintf(stderr, "barrier: hub %s: %d of %d came\n", tag, n, count);
	}
	for (i = 0; i < n; i++)
		close(fds[i]);
	return r ? 1 : 0;
}

int main(int argc, char **argv)
{
	char peer[LINE] = "", all[LINE] = "";
	const char *msg = "-", *out = peer;
	int timeout = 120, count, r;

	if (argc >= 4 && !strcmp(argv[1], "listen")) {
		if (argc > 4)
			msg = argv[4];
		if (argc > 5)
			timeout = atoi(argv[5]);
		deadline = mono() + timeout;
		r = do_listen(atoi(argv[2]), argv[3], msg, peer);
	} else if (argc >= 5 && !strcmp(argv[1], "connect")) {
		if (argc > 5)
			msg = argv[5];
		if (argc > 6)
			timeout = atoi(argv[6]);
		deadline = mono() + timeout;
		r = do_connect(argv[2], argv[3], argv[4], msg, peer);
	} else if (argc >= 5 && !strcmp(argv[1], "hub")) {
		if (argc > 5)
			msg = argv[5];
		if (argc > 6)
			timeout = atoi(argv[6]);
		deadline = mono() + timeout;
		count = atoi(argv[4]);
		if (count < 1 || count > HUB_MAX) {
			fprintf(stderr, "barrier: hub: COUNT must be 1..%d\n", HUB_MAX);
			return 1;
		}
		r = do_hub(atoi(argv[2]), argv[3], count, msg, all, sizeof(all));
		out = all;
	} else if (argc >= 5 && !strcmp(argv[1], "join")) {
		if (argc > 5)
			msg = argv[5];
		if (argc > 6)
			timeout = atoi(argv[6]);
		deadline = mono() + timeout;
		reply_ms = timeout * 1000;
		r = do_connect(argv[2], argv[3], argv[4], msg, all);
		out = all;
	} else {
		fprintf(stderr, "usage: barrier listen PORT TAG [MSG] [TIMEOUT_S]\n"
				"       barrier connect HOST PORT TAG [MSG] [TIMEOUT_S]\n"
				"       barrier hub PORT TAG COUNT [MSG] [TIMEOUT_S]\n"
				"       barrier join HOST PORT TAG [MSG] [TIMEOUT_S]\n");
		return 1;
	}
	if (!r)
		printf("%s\n", out);
	return r;
}
