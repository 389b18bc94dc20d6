// SPDX-License-Identifier: GPL-2.0
/*
 * An MPI job of our own for the cluster tests (selftests/tests-cluster):
 * collectives and point-to-point between every pair of ranks, every
 * result checked against what it must be.
 *
 *   mpirun ... mpi_check [BYTES (1 MiB)] [ROUNDS (3)]
 *
 * Per round: MPI_Allreduce (sum) of BYTES / 8 doubles; MPI_Alltoall of
 * BYTES / size bytes to each rank; then every ordered pair of ranks, one
 * pair after another, sends BYTES (MPI_Sendrecv), the receiver checking
 * each byte. Rank 0 prints the seconds each part took (the slowest rank's),
 * as "mpi_check: ..." lines. Exit 0 if every check passed on every rank.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size;

/* The byte at @i of what rank @from sends rank @to in round @r. */
static uint8_t pattern(int from, int to, int r, size_t i)
{
	return (uint8_t)(i * 131 + from * 31 + to * 7 + r * 3);
}

static int check_allreduce(size_t n, int r)
{
	double *v = malloc(n * sizeof(*v)), *sum = malloc(n * sizeof(*sum));
	int bad = 0;
	size_t i;

	for (i = 0; i < n; i++)
		v[i] = (double)(rank + 1) * (double)(i % 1000 + r);
	MPI_Allreduce(v, sum, (int)n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
	for (i = 0; i < n && !bad; i++)
		bad = sum[i] != (double)size * (size + 1) / 2 * (double)(i % 1000 + r);
	if (bad)
		fprintf(stderr, "rank %d: allreduce wrong at %zu\n", rank, i - 1);
	free(v);
	free(sum);
	return bad;
}

static int check_alltoall(size_t each, int r)
{
	uint8_t *out = malloc(each * size), *in = malloc(each * size);
	int bad = 0, p;
	size_t i;

	for (p = 0; p < size; p++)
		for (i = 0; i < each; i++)
			out[p * each + i] = pattern(rank, p, r, i);
	MPI_Alltoall(out, (int)each, MPI_BYTE, in, (int)each, MPI_BYTE, MPI_COMM_WORLD);
	for (p = 0; p < size && !bad; p++)
		for (i = 0; i < each && !bad; i++)
			if (in[p * each + i] != pattern(p, rank, r, i)) {
				fprintf(stderr, "rank %d: alltoall from %d wrong at %zu\n", rank, p, i);
				bad = 1;
			}
	free(out);
	free(in);
	return bad;
}

/* Every ordered pair (a, b), a sending BYTES to b, in turn. */
static int check_pairs(size_t n, int r)
{
	uint8_t *buf = malloc(n);
	int bad = 0, a, b;
	size_t i;

	for (a = 0; a < size; a++)
		for (b = 0; b < size; b++) {
			if (a == b)
				continue;
			if (rank == a) {
				for (i = 0; i < n; i++)
					buf[i] = pattern(a, b, r, i);
				MPI_Send(buf, (int)n, MPI_BYTE, b, a * size + b, MPI_COMM_WORLD);
			} else if (rank == b) {
				memset(buf, 0, n);
				MPI_Recv(buf, (int)n, MPI_BYTE, a, a * size + b, MPI_COMM_WORLD,
					 MPI_STATUS_IGNORE);
				for (i = 0; i < n && !bad; i++)
					if (buf[i] != pattern(a, b, r, i)) {
						fprintf(stderr, "rank %d: from %d wrong at %zu\n",
							rank, a, i);
						bad = 1;
					}
			}
		}
	free(buf);
	return bad;
}

/* The slowest rank's seconds since @t0, printed by rank 0 as @what. */
static void took(const char *what, double t0, size_t bytes)
{
	double t = MPI_Wtime() - t0, max;

	MPI_Reduce(&t, &max, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
	if (!rank)
		printf("mpi_check: %s of %zu bytes: %.3f s\n", what, bytes, max);
}

int main(int argc, char **argv)
{
	size_t bytes;
	int rounds, r, bad = 0, all = 0;
	double t0;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	bytes = argc > 1 ? strtoull(argv[1], NULL, 0) : 1 << 20;
	rounds = argc > 2 ? atoi(argv[2]) : 3;
	if (!rank)
		printf("mpi_check: %d ranks, %zu bytes, %d rounds\n", size, bytes, rounds);
	for (r = 0; r < rounds; r++) {
		t0 = MPI_Wtime();
		bad |= check_allreduce(bytes / 8, r);
		took("allreduce", t0, bytes);
		t0 = MPI_Wtime();
		bad |= check_alltoall(bytes / size, r);
		took("alltoall", t0, bytes / size * size);
		t0 = MPI_Wtime();
		bad |= check_pairs(bytes, r);
		took("every pair", t0, bytes);
	}
	MPI_Allreduce(&bad, &all, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
	if (!rank)
		printf("mpi_check: %s\n", all ? "FAILED" : "all checks passed");
	MPI_Finalize();
	return all ? 1 : 0;
}
