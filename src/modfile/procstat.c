/* /proc/PID/stat: the few fields gstrace needs (name, state, parent,
 * flags, start time). The command name is the process's to choose, ')'
 * and spaces included: the fields are found after the last ')'. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gs/modfile.h>

/* The next space-separated field after *p (advanced past it), or NULL. */
static const char *field(const char **p, const char *end)
{
	const char *s = *p;

	while (s < end && *s == ' ')
		s++;
	if (s >= end)
		return NULL;
	*p = s;
	while (*p < end && **p != ' ')
		(*p)++;
	return s;
}

/* A decimal number of field s (up to end or a space); false when none. A
 * negative one is stored two's complement, from -2^63 up: the negation is
 * done unsigned (negating a long long of -2^63 is undefined). */
static bool number(const char *s, const char *end, unsigned long long *out)
{
	unsigned long long v = 0;
	bool neg = s < end && *s == '-';
	const char *p = s + neg;

	if (p >= end || *p < '0' || *p > '9')
		return false;
	for (; p < end && *p >= '0' && *p <= '9'; p++) {
		if (v > (~0ull - 9) / 10)
			return false;
		v = v * 10 + (unsigned long long)(*p - '0');
	}
	if (neg && v > 1ull << 63)
		return false; /* below any 64-bit number */
	*out = neg ? 0 - v : v;
	return true;
}

int gs_proc_stat_parse(const char *text, size_t len, struct gs_proc_stat *out,
		       struct gs_error *err)
{
	const char *end = text + len, *open = memchr(text, '(', len), *close = NULL, *p, *f;
	unsigned long long v;
	size_t n;

	memset(out, 0, sizeof(*out));
	for (const char *s = text; s < end; s++)
		if (*s == ')')
			close = s;
	if (!open || !close || close < open)
		return gs_errorf(err, -EINVAL, "/proc/PID/stat: no (name) in the line");
	n = (size_t)(close - open - 1);
	if (n >= sizeof(out->comm))
		n = sizeof(out->comm) - 1;
	memcpy(out->comm, open + 1, n);
	out->comm[n] = '\0';
	p = close + 1;
	/* field 3 is the state; 4 ppid; 9 flags; 22 starttime */
	for (int i = 3; i <= 22; i++) {
		f = field(&p, end);
		if (!f)
			return gs_errorf(err, -EINVAL, "/proc/PID/stat: field %d is missing", i);
		if (i == 3) {
			out->state = *f;
			continue;
		}
		if ((i == 4 || i == 9 || i == 22) && !number(f, end, &v))
			return gs_errorf(err, -EINVAL, "/proc/PID/stat: field %d is not a number", i);
		if (i == 4)
			out->ppid = (pid_t)v;
		else if (i == 9)
			out->flags = (unsigned long)v;
		else if (i == 22)
			out->start_time = v;
	}
	return 0;
}

/* A /proc file of at most size-1 bytes as text; its length, or -errno. */
static ssize_t read_proc(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	if (n < 0)
		n = -errno;
	close(fd);
	if (n >= 0)
		buf[n] = '\0';
	return n;
}

int gs_proc_stat_read(pid_t pid, struct gs_proc_stat *out, struct gs_error *err)
{
	char path[64], buf[1024];
	ssize_t n;

	if (pid > 0)
		snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	else
		snprintf(path, sizeof(path), "/proc/self/stat");
	n = read_proc(path, buf, sizeof(buf));
	if (n < 0)
		return gs_errorf(err, (int)n, "cannot read %s: %s", path, strerror((int)-n));
	return gs_proc_stat_parse(buf, (size_t)n, out, err);
}

pid_t gs_proc_tgid(pid_t pid)
{
	char path[64], buf[4096], *line;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if (read_proc(path, buf, sizeof(buf)) < 0 || !(line = strstr(buf, "\nTgid:")))
		return pid;
	return (pid_t)strtol(line + 6, NULL, 10);
}
