// SPDX-License-Identifier: GPL-2.0
/*
 * A remote shell for the cluster VMs (selftests/vmn.sh), which have no ssh:
 * what Open MPI's mpirun starts its daemons with on the other nodes
 * (--mca plm_rsh_agent rexec), as it would with ssh.
 *
 *   rexec serve [PORT]			run commands for whoever connects
 *   rexec HOST COMMAND [ARG...]	run COMMAND on HOST with /bin/sh -c,
 *					its output here, its exit status ours
 *
 * PORT is $REXEC_PORT, or 18602. The client sends the words of COMMAND
 * joined by spaces and a newline; the server runs them in a child whose
 * standard input is /dev/null and whose output and errors it relays, then
 * a last line "\0EXIT N\n" with the child's status. No authentication:
 * test VMs on a private segment only.
 *
 * Exit (client): the remote command's status; 255 if it could not be run.
 */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>

#define CMD_MAX		65536
#define TRAILER		"EXIT "

static const char *port_str(void)
{
	const char *p = getenv("REXEC_PORT");

	return p && *p ? p : "18602";
}

static int write_all(int fd, const char *buf, size_t n)
{
	while (n) {
		ssize_t w = write(fd, buf, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		buf += w;
		n -= w;
	}
	return 0;
}

/* The command line a client sent: up to the first newline. */
static char *read_cmd(int fd)
{
	char *cmd = malloc(CMD_MAX);
	size_t n = 0;

	if (!cmd)
		return NULL;
	while (n < CMD_MAX - 1) {
		ssize_t r = read(fd, cmd + n, 1);

		if (r <= 0)
			break;
		if (cmd[n] == '\n') {
			cmd[n] = 0;
			return cmd;
		}
		n++;
	}
	free(cmd);
	return NULL;
}

/* One connection: run its command, relay its output, then its status. */
static void serve_one(int fd)
{
	char buf[4096], *cmd = read_cmd(fd);
	int pfd[2], status = 255, nul;
	ssize_t r;
	pid_t pid;

	if (!cmd || pipe(pfd))
		goto out;
	pid = fork();
	if (pid < 0)
		goto out;
	if (!pid) {
		nul = open("/dev/null", O_RDONLY);
		if (nul >= 0)
			dup2(nul, 0);
		dup2(pfd[1], 1);
		dup2(pfd[1], 2);
		close(pfd[0]);
		close(pfd[1]);
		close(fd);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	close(pfd[1]);
	while ((r = read(pfd[0], buf, sizeof(buf))) > 0 || (r < 0 && errno == EINTR))
		if (r > 0 && write_all(fd, buf, r))
			break;
	close(pfd[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
out:
	r = snprintf(buf, sizeof(buf), "%c" TRAILER "%d\n", 0, status);
	write_all(fd, buf, r);
	free(cmd);
}

static int serve(const char *port)
{
	struct sockaddr_in6 a = { .sin6_family = AF_INET6,
				  .sin6_port = htons(atoi(port)),
				  .sin6_addr = IN6ADDR_ANY_INIT };
	int one = 1, ls, fd;

	signal(SIGCHLD, SIG_IGN);	/* the connections' children */
	ls = socket(AF_INET6, SOCK_STREAM, 0);
	if (ls < 0 || setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(ls, (struct sockaddr *)&a, sizeof(a)) || listen(ls, 64)) {
		perror("rexec: listen");
		return 1;
	}
	for (;;) {
		fd = accept(ls, NULL, NULL);
		if (fd < 0) {
			if (errno == EINTR)
				continue;
			perror("rexec: accept");
			return 1;
		}
		if (!fork()) {
			signal(SIGCHLD, SIG_DFL);	/* waitpid() wants it */
			close(ls);
			serve_one(fd);
			_exit(0);
		}
		close(fd);
	}
}

static int connect_to(const char *host)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *ai, *p;
	int fd = -1, e;

	e = getaddrinfo(host, port_str(), &hints, &ai);
	if (e) {
		fprintf(stderr, "rexec: %s: %s\n", host, gai_strerror(e));
		return -1;
	}
	for (p = ai; p; p = p->ai_next) {
		fd = socket(p->ai_family, SOCK_STREAM, 0);
		if (fd >= 0 && !connect(fd, p->ai_addr, p->ai_addrlen))
			break;
		if (fd >= 0)
			close(fd);
		fd = -1;
	}
	freeaddrinfo(ai);
	if (fd < 0)
		fprintf(stderr, "rexec: %s: cannot connect\n", host);
	return fd;
}

/*
 * Relay what comes back to stdout; the trailer, which starts with a NUL
 * byte that no command's text output carries, gives the exit status.
 */
static int relay(int fd)
{
	char buf[4096], tail[32];
	size_t t = 0;
	int in_tail = 0;
	ssize_t r, i;

	while ((r = read(fd, buf, sizeof(buf))) > 0 || (r < 0 && errno == EINTR)) {
		for (i = 0; i < r; i++) {
			if (!in_tail && buf[i] == 0) {
				in_tail = 1;
				continue;
			}
			if (in_tail) {
				if (t < sizeof(tail) - 1)
					tail[t++] = buf[i];
			} else if (write_all(1, buf + i, 1)) {
				return 255;
			}
		}
	}
	tail[t] = 0;
	if (!in_tail || strncmp(tail, TRAILER, strlen(TRAILER)))
		return 255;
	return atoi(tail + strlen(TRAILER));
}

int main(int argc, char **argv)
{
	char *cmd;
	size_t n = 0;
	int fd, i, rc;

	if (argc >= 2 && !strcmp(argv[1], "serve"))
		return serve(argc > 2 ? argv[2] : port_str());
	if (argc < 3) {
		fprintf(stderr, "usage: rexec serve [PORT]\n"
				"       rexec HOST COMMAND [ARG...]\n");
		return 255;
	}
	cmd = malloc(CMD_MAX);
	if (!cmd)
		return 255;
	for (i = 2; i < argc; i++) {
		size_t l = strlen(argv[i]);

		if (n + l + 2 > CMD_MAX || strchr(argv[i], '\n')) {
			fprintf(stderr, "rexec: command too long, or with a newline\n");
			return 255;
		}
		memcpy(cmd + n, argv[i], l);
		n += l;
		cmd[n++] = i + 1 < argc ? ' ' : '\n';
	}
	fd = connect_to(argv[1]);
	if (fd < 0)
		return 255;
	rc = write_all(fd, cmd, n) ? 255 : relay(fd);
	close(fd);
	free(cmd);
	return rc;
}
