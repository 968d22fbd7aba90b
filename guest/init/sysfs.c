// SPDX-License-Identifier: GPL-2.0-only
/* smmulab guest init: small sysfs/procfs helpers. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "smmulab-guest.h"

/* Write VAL to PATH; returns 0 or -errno. */
int sysfs_write(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY);
	ssize_t n;
	int err;

	if (fd < 0)
		return -errno;
	n = write(fd, val, strlen(val));
	err = n < 0 ? -errno : 0;
	close(fd);
	return err;
}

/* Read PATH into BUF (NUL-terminated, trailing newline dropped). */
int sysfs_read(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	if (n > 0 && buf[n - 1] == '\n')
		buf[n - 1] = '\0';
	return 0;
}
