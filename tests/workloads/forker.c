// SPDX-License-Identifier: GPL-2.0-only
/*
 * Many processes alive at once, for the scope tests:
 *
 *   forker N
 *
 * Forks N children, each of which waits on a pipe until the last one is
 * forked; then closes the pipe, which lets them all exit, and reaps them.
 * Exits 0 when every child was forked and reaped.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long n, i, reaped = 0;
	int fd[2];
	char byte;

	if (argc != 2 || (n = atol(argv[1])) <= 0) {
		fprintf(stderr, "usage: forker N\n");
		return 2;
	}
	if (pipe(fd)) {
		perror("forker: pipe");
		return 1;
	}
	for (i = 0; i < n; i++) {
		pid_t pid = fork();

		if (pid < 0) {
			perror("forker: fork");
			break;
		}
		if (!pid) {
			close(fd[1]);
			/* 0 at end of file: the parent closed its end. */
			_exit(read(fd[0], &byte, 1) == 0 ? 0 : 1);
		}
	}
	close(fd[1]);
	while (wait(NULL) > 0)
		reaped++;
	return i == n && reaped == n ? 0 : 1;
}
