// SPDX-License-Identifier: GPL-2.0-only
/*
 * Policy files: read whole, bounded, then parsed with libinih through our
 * own line reader, which counts lines and refuses what libinih would take
 * silently or read differently: NUL bytes, lines longer than it reads
 * whole, indented lines, "key: value", text after a section header; it
 * checks section headers as they come, so that an empty or duplicate
 * section is an error too. The settings go the one path (policy_settings.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <ini.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "util/compiler.h"
#include "policy.h"
#include "policy_settings.h"

#define LINE_MAX_CHARS 200 /* INI_MAX_LINE of libinih, newline and NUL included */
#define UTF8_BOM       "\xef\xbb\xbf"

/* After a section header's "]": nothing, or a comment. */
static bool section_tail_ok(const char *s)
{
	s += strspn(s, " \t\r\n");
	return !*s || *s == ';' || *s == '#';
}

/* libinih's line source: one line per call, counted and checked. */
static char *policy_reader(char *str, int num, void *stream)
{
	struct policy_parse *ps = stream;
	const char *line = ps->text + ps->pos, *nl;
	size_t len;
	char *s, *end;

	if (ps->err_line || ps->pos >= ps->len)
		return NULL;
	nl = memchr(line, '\n', ps->len - ps->pos);
	len = nl ? (size_t)(nl - line) + 1 : ps->len - ps->pos;
	ps->pos += len;
	ps->line++;
	/* A UTF-8 byte order mark is allowed, once, before the first line. */
	if (ps->line == 1 && len >= 3 && !memcmp(line, UTF8_BOM, 3)) {
		line += 3;
		len -= 3;
	}
	/* Text never holds a NUL: libinih would end the line there and take the rest. */
	if (memchr(line, '\0', len)) {
		policy_parse_fail(ps, "a NUL byte (not a text file?)");
		return NULL;
	}
	if (len >= (size_t)num || len > LINE_MAX_CHARS - 1 - !nl) {
		policy_parse_fail(ps, "line longer than %d characters", LINE_MAX_CHARS - 2);
		return NULL;
	}
	memcpy(str, line, len);
	str[len] = '\0';
	/* An indented line continues the previous value in libinih: refuse it plainly. */
	s = str;
	if (*s == ' ' || *s == '\t') {
		while (*s == ' ' || *s == '\t')
			s++;
		if (*s && *s != '\n' && *s != '\r' && *s != ';' && *s != '#') {
			policy_parse_fail(ps, "indented line (values are one line; "
					      "remove the indentation)");
			return NULL;
		}
	}
	if (*s == '[') {
		end = strchr(s, ']');
		if (!end) {
			policy_parse_fail(ps, "section header without \"]\"");
			return NULL;
		}
		if (!section_tail_ok(end + 1)) {
			policy_parse_fail(ps, "text after the section header [%.*s]",
					  (int)(end - s - 1), s + 1);
			return NULL;
		}
		*end = '\0';
		if (!policy_section_enter(ps, s + 1))
			return NULL;
		*end = ']';
	} else if (*s != ';' && *s != '#' && s[strcspn(s, "=:")] == ':') {
		/* libinih takes "key: value" too: one way to write a setting. */
		policy_parse_fail(ps, "\"%.*s\": write key = value", (int)strcspn(s, "\r\n"), s);
		return NULL;
	}
	return str;
}

/* libinih calls back with its section name: ps->sect, checked by our reader, is ours. */
static int policy_handler(void *user, const char *section __always_unused, const char *name,
			  const char *value)
{
	struct policy_parse *ps = user;

	if (ps->err_line)
		return 0;
	if (ps->sect == SECT_NONE)
		return policy_parse_fail(ps,
					 "key \"%s\" before any section ([global], [default] or "
					 "[syscall NAME])",
					 name);
	return policy_key_apply(ps, name, value);
}

bool policy_parse_text(struct policy *p, const char *name, const char *text, size_t len, char *err,
		       size_t errlen)
{
	struct policy_parse *ps = policy_parse_new(p, name, err, errlen);
	bool ok = false;
	int ret;

	if (!ps)
		return false;
	ps->text = text;
	ps->len = len;
	ret = ini_parse_stream(policy_reader, ps, policy_handler, ps);
	if (ret > 0 && (!ps->err_line || ret < ps->err_line)) {
		ps->err_line = 0;
		ps->line = ret;
		policy_parse_fail(ps, "expected \"[section]\" or \"key = value\"");
	} else if (ret < 0 && !ps->err_line) {
		snprintf(err, errlen, "%s: out of memory", name);
		goto out;
	}
	ok = !ps->err_line && policy_finish(ps);
out:
	free(ps);
	return ok;
}

static const char *file_kind(mode_t mode)
{
	return S_ISDIR(mode)	? "a directory"
	       : S_ISCHR(mode)	? "a character device"
	       : S_ISBLK(mode)	? "a block device"
	       : S_ISFIFO(mode) ? "a FIFO"
	       : S_ISSOCK(mode) ? "a socket"
				: "not a file";
}

/*
 * The bytes of a policy file: a regular file, at most POLICY_FILE_MAX bytes.
 * /dev/zero or a FIFO would never end, a directory reads as nothing; opened
 * without blocking so that a FIFO is refused rather than waited on.
 */
static char *file_read(const char *path, size_t *len, char *err, size_t errlen)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	char *buf = NULL;
	struct stat st;
	ssize_t n;

	if (fd < 0 || fstat(fd, &st)) {
		snprintf(err, errlen, "%s: cannot read: %s", path, strerror(errno));
		goto fail;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "%s: not a regular file (%s)", path, file_kind(st.st_mode));
		goto fail;
	}
	buf = malloc(POLICY_FILE_MAX + 1);
	if (!buf) {
		snprintf(err, errlen, "%s: out of memory", path);
		goto fail;
	}
	/* Read one byte more than allowed: a file that grew is caught too. */
	for (*len = 0; *len <= POLICY_FILE_MAX; *len += n) {
		n = read(fd, buf + *len, POLICY_FILE_MAX + 1 - *len);
		if (n < 0 && errno == EINTR) {
			n = 0;
			continue;
		}
		if (n < 0) {
			snprintf(err, errlen, "%s: cannot read: %s", path, strerror(errno));
			goto fail;
		}
		if (!n)
			break;
	}
	if (*len > POLICY_FILE_MAX) {
		snprintf(err, errlen, "%s: too large (a policy file is at most %d KiB)", path,
			 POLICY_FILE_MAX / 1024);
		goto fail;
	}
	close(fd);
	return buf;
fail:
	free(buf);
	if (fd >= 0)
		close(fd);
	return NULL;
}

bool policy_parse_file(struct policy *p, const char *path, char *err, size_t errlen)
{
	size_t len;
	char *text = file_read(path, &len, err, errlen);
	bool ok;

	if (!text)
		return false;
	ok = policy_parse_text(p, path, text, len, err, errlen);
	free(text);
	return ok;
}
