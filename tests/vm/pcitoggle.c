// SPDX-License-Identifier: GPL-2.0
/*
 * pcitoggle - switch a PCI device's bus mastering off and on, again and
 * again, for the virtio_blk_sgl guest tests (driver-stall-long.sh).
 *
 *   pcitoggle CONFIG SECONDS HALF_PERIOD_MS
 *
 * CONFIG is the device's config space file (/sys/bus/pci/devices/X/config).
 * For SECONDS it clears the Bus Master Enable bit of the COMMAND register,
 * waits HALF_PERIOD_MS, sets the register back as it found it, waits again.
 * One process does it all: under TCG a shell loop of setpci and sleep forks
 * five programs a cycle and was the busiest thing in the guest.  Prints
 * "toggles N" and restores COMMAND on exit.  Exit status: 0 done, 1 the
 * register could not be read or written, 2 usage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define PCI_COMMAND		0x04
#define PCI_COMMAND_MASTER	0x4

static int write_command(int fd, uint16_t v)
{
	return pwrite(fd, &v, sizeof(v), PCI_COMMAND) == sizeof(v) ? 0 : -errno;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	struct timespec half;
	unsigned long toggles = 0;
	uint16_t cmd0;
	double end;
	long ms;
	int fd, err = 0;

	if (argc != 4 || atoi(argv[2]) <= 0 || (ms = atol(argv[3])) <= 0) {
		fprintf(stderr, "usage: pcitoggle CONFIG SECONDS HALF_PERIOD_MS\n");
		return 2;
	}
	fd = open(argv[1], O_RDWR);
	if (fd < 0 || pread(fd, &cmd0, sizeof(cmd0), PCI_COMMAND) != sizeof(cmd0)) {
		fprintf(stderr, "pcitoggle: cannot read COMMAND of %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	half.tv_sec = ms / 1000;
	half.tv_nsec = (ms % 1000) * 1000000L;
	end = now() + atoi(argv[2]);
	while (!err && now() < end) {
		err = write_command(fd, cmd0 & ~PCI_COMMAND_MASTER);
		nanosleep(&half, NULL);
		if (!err)
			err = write_command(fd, cmd0);
		nanosleep(&half, NULL);
		toggles++;
	}
	if (!err)
		err = write_command(fd, cmd0);
	else
		write_command(fd, cmd0);
	printf("toggles %lu\n", toggles);
	if (err)
		fprintf(stderr, "pcitoggle: cannot write COMMAND of %s: %s\n", argv[1], strerror(-err));
	close(fd);
	return err ? 1 : 0;
}
