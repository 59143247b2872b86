// SPDX-License-Identifier: GPL-2.0
/*
 * forward_spool.c: the batches "etwctl forward" could not deliver, kept on
 * disk in order until the collector takes them.
 *
 * One file per batch, "SEQ-EVENTS.export": SEQ a 16-digit hex sequence
 * number (the order), EVENTS the entries it holds, the content the
 * request body as it would have been sent.  A batch is written to a
 * ".tmp-" file, synced and renamed, so a crash leaves either a whole
 * batch or a temporary file, which the next open removes.  The spool is
 * bounded in bytes; "DIR/.lock" (flock) keeps a second forwarder out.
 *
 * "DIR/.destination" records the collector the batches are for, so that
 * one collector's events never reach another: "url URL\n", then
 * "unix-socket PATH\n" when it is reached through a UNIX socket.  A spool
 * holding batches is only bound to the collector it records; an empty one
 * is bound to any, its record rewritten first.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "etwctl.h"

#define ETWCTL_SPOOL_NAME	"%016" PRIx64 "-%" PRIu32 ".export"
#define ETWCTL_SPOOL_TMP	".tmp-"
#define ETWCTL_SPOOL_DEST	".destination"
/* A record is two lines of at most a URL and a path each. */
#define ETWCTL_SPOOL_DEST_MAX	8192

/* One spooled batch. */
struct etwctl_spool_item {
	uint64_t seq;
	uint32_t events;
	uint64_t bytes;
};

/*
 * @items: batches in order, @items[@head..@n) in use
 * @bytes, @events: what the spooled batches hold
 * @next_seq: the number of the next batch put
 * @bound: etwctl_spool_bind() tied the spool to its collector; until then
 *	no batch may be put or read
 */
struct etwctl_spool {
	int dirfd;
	int lockfd;
	uint64_t max_bytes;
	uint64_t bytes;
	uint64_t events;
	struct etwctl_spool_item *items;
	size_t head;
	size_t n;
	size_t cap;
	uint64_t next_seq;
	bool bound;
};

static int etwctl_mkdirs(const char *dir)
{
	char path[4096];
	size_t i, len = strlen(dir);

	if (!len || len >= sizeof(path))
		return -ENAMETOOLONG;
	memcpy(path, dir, len + 1);
	for (i = 1; i <= len; i++) {
		if (path[i] != '/' && path[i])
			continue;
		path[i] = 0;
		if (mkdir(path, 0700) && errno != EEXIST)
			return -errno;
		path[i] = i < len ? '/' : 0;
	}
	return 0;
}

static int etwctl_spool_add(struct etwctl_spool *sp,
			    const struct etwctl_spool_item *it)
{
	struct etwctl_spool_item *v;
	size_t cap;

	if (sp->head && sp->head == sp->n)
		sp->head = sp->n = 0;
	if (sp->n == sp->cap && sp->head) {
		memmove(sp->items, sp->items + sp->head,
			(sp->n - sp->head) * sizeof(*v));
		sp->n -= sp->head;
		sp->head = 0;
	}
	if (sp->n == sp->cap) {
		cap = sp->cap ? sp->cap * 2 : 64;
		v = realloc(sp->items, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		sp->items = v;
		sp->cap = cap;
	}
	sp->items[sp->n++] = *it;
	sp->bytes += it->bytes;
	sp->events += it->events;
	if (it->seq >= sp->next_seq)
		sp->next_seq = it->seq + 1;
	return 0;
}

static int etwctl_spool_item_cmp(const void *a, const void *b)
{
	const struct etwctl_spool_item *x = a, *y = b;

	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Parse "SEQ-EVENTS.export"; false for any other name. */
static bool etwctl_spool_name(const char *name, struct etwctl_spool_item *it)
{
	char again[64];

	if (sscanf(name, "%16" SCNx64 "-%" SCNu32, &it->seq, &it->events) != 2)
		return false;
	snprintf(again, sizeof(again), ETWCTL_SPOOL_NAME, it->seq,
		 it->events);
	return !strcmp(again, name);
}

static int etwctl_spool_scan(struct etwctl_spool *sp)
{
	struct etwctl_spool_item it;
	struct dirent *de;
	struct stat st;
	int ret = 0, fd;
	DIR *d;

	fd = dup(sp->dirfd);
	d = fd < 0 ? NULL : fdopendir(fd);
	if (!d) {
		ret = -errno;
		if (fd >= 0)
			close(fd);
		return ret;
	}
	while (!ret && (de = readdir(d))) {
		if (!strncmp(de->d_name, ETWCTL_SPOOL_TMP,
			     strlen(ETWCTL_SPOOL_TMP))) {
			unlinkat(sp->dirfd, de->d_name, 0);
			continue;
		}
		if (!etwctl_spool_name(de->d_name, &it))
			continue;
		if (fstatat(sp->dirfd, de->d_name, &st, 0)) {
			ret = -errno;
			break;
		}
		it.bytes = (uint64_t)st.st_size;
		ret = etwctl_spool_add(sp, &it);
	}
	closedir(d);
	if (sp->n)
		qsort(sp->items, sp->n, sizeof(*sp->items),
		      etwctl_spool_item_cmp);
	return ret;
}

static int etwctl_spool_lock(struct etwctl_spool *sp)
{
	sp->lockfd = openat(sp->dirfd, ".lock", O_RDWR | O_CREAT | O_CLOEXEC,
			    0600);
	if (sp->lockfd < 0)
		return -errno;
	if (flock(sp->lockfd, LOCK_EX | LOCK_NB))
		return errno == EWOULDBLOCK ? -EBUSY : -errno;
	return 0;
}

/**
 * etwctl_spool_open - open (creating it) a spool directory
 * @dir: the directory; created with its parents (mode 0700)
 * @max_bytes: most bytes the spooled batches may hold
 * @out: out: the spool, holding what an earlier run left
 *
 * Return: 0 or a negative errno (-EBUSY: another forwarder uses @dir).
 */
int etwctl_spool_open(const char *dir, uint64_t max_bytes,
		      struct etwctl_spool **out)
{
	struct etwctl_spool *sp = calloc(1, sizeof(*sp));
	int ret;

	if (!sp)
		return -ENOMEM;
	sp->lockfd = -1;
	sp->max_bytes = max_bytes;
	ret = etwctl_mkdirs(dir);
	if (!ret) {
		sp->dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		ret = sp->dirfd < 0 ? -errno : 0;
	} else {
		sp->dirfd = -1;
	}
	if (!ret)
		ret = etwctl_spool_lock(sp) ?: etwctl_spool_scan(sp);
	if (ret) {
		etwctl_spool_close(sp);
		return ret;
	}
	*out = sp;
	return 0;
}

static int etwctl_spool_write(int fd, const char *p, size_t len)
{
	ssize_t n;

	while (len) {
		n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		p += n;
		len -= (size_t)n;
	}
	return fsync(fd) ? -errno : 0;
}

/* A value a record can hold: not empty, no control character. */
static bool etwctl_spool_value_ok(const char *v)
{
	if (!*v)
		return false;
	for (; *v; v++)
		if ((unsigned char)*v < 0x20 || *v == 0x7f)
			return false;
	return true;
}

/* @d's record, malloc'ed; -EINVAL when it cannot be one. */
static int etwctl_spool_dest_text(const struct etwctl_spool_dest *d,
				  char **out)
{
	int n;

	*out = NULL;
	if (!d->url || !etwctl_spool_value_ok(d->url) ||
	    (d->unix_socket && !etwctl_spool_value_ok(d->unix_socket)))
		return -EINVAL;
	if (d->unix_socket)
		n = asprintf(out, "url %s\nunix-socket %s\n", d->url,
			     d->unix_socket);
	else
		n = asprintf(out, "url %s\n", d->url);
	if (n < 0) {
		*out = NULL;
		return -ENOMEM;
	}
	if (n > ETWCTL_SPOOL_DEST_MAX) {
		free(*out);
		*out = NULL;
		return -EINVAL;
	}
	return 0;
}

/*
 * Read the record into @buf (ETWCTL_SPOOL_DEST_MAX + 1 bytes, NUL-ended).
 * Not followed through a symbolic link, nor waited on as a FIFO.
 * Return: its length, -ENOENT when there is none, -EBADMSG when it is no
 * regular file or too long, or another negative errno.
 */
static ssize_t etwctl_spool_dest_read(struct etwctl_spool *sp, char *buf)
{
	struct stat st;
	ssize_t n;
	int fd, err;

	fd = openat(sp->dirfd, ETWCTL_SPOOL_DEST,
		    O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return errno == ELOOP ? -EBADMSG : -errno;
	if (fstat(fd, &st)) {
		err = errno;
		close(fd);
		return -err;
	}
	if (!S_ISREG(st.st_mode) || st.st_size > ETWCTL_SPOOL_DEST_MAX) {
		close(fd);
		return -EBADMSG;
	}
	n = pread(fd, buf, ETWCTL_SPOOL_DEST_MAX + 1, 0);
	err = errno;
	close(fd);
	if (n < 0)
		return -err;
	if (n > ETWCTL_SPOOL_DEST_MAX)
		return -EBADMSG;
	buf[n] = 0;
	return n;
}

/*
 * Parse the record @text (@len bytes, cut in place) into @d, pointing into
 * it.  Return: false when it is not exactly the format.
 */
static bool etwctl_spool_dest_parse(char *text, size_t len,
				    struct etwctl_spool_dest *d)
{
	static const char url[] = "url ", sock[] = "unix-socket ";
	char *nl, *path = NULL;

	if (!len || strlen(text) != len || text[len - 1] != '\n' ||
	    strncmp(text, url, sizeof(url) - 1))
		return false;
	nl = strchr(text, '\n');
	*nl++ = 0;
	if (*nl) {
		if (strncmp(nl, sock, sizeof(sock) - 1))
			return false;
		path = nl + sizeof(sock) - 1;
		nl = strchr(path, '\n');
		*nl++ = 0;
		if (*nl)
			return false;
	}
	d->url = text + sizeof(url) - 1;
	d->unix_socket = path;
	return etwctl_spool_value_ok(d->url) &&
	       (!path || etwctl_spool_value_ok(path));
}

/* How a message names @d: "URL", or "URL via PATH"; malloc'ed. */
static int etwctl_spool_dest_show(const struct etwctl_spool_dest *d,
				  char **out)
{
	int n = d->unix_socket ?
		asprintf(out, "%s via %s", d->url, d->unix_socket) :
		asprintf(out, "%s", d->url);

	if (n >= 0)
		return 0;
	*out = NULL;
	return -ENOMEM;
}

static bool etwctl_spool_dest_eq(const struct etwctl_spool_dest *a,
				 const struct etwctl_spool_dest *b)
{
	if (strcmp(a->url, b->url))
		return false;
	if (!a->unix_socket || !b->unix_socket)
		return a->unix_socket == b->unix_socket;
	return !strcmp(a->unix_socket, b->unix_socket);
}

/* Replace the record by @text: written, synced and renamed into place. */
static int etwctl_spool_dest_write(struct etwctl_spool *sp, const char *text)
{
	static const char tmp[] = ETWCTL_SPOOL_TMP ETWCTL_SPOOL_DEST;
	int fd, ret;

	unlinkat(sp->dirfd, tmp, 0);
	fd = openat(sp->dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
		    0600);
	if (fd < 0)
		return -errno;
	ret = etwctl_spool_write(fd, text, strlen(text));
	if (close(fd) && !ret)
		ret = -errno;
	if (!ret && renameat(sp->dirfd, tmp, sp->dirfd, ETWCTL_SPOOL_DEST))
		ret = -errno;
	if (ret) {
		unlinkat(sp->dirfd, tmp, 0);
		return ret;
	}
	return fsync(sp->dirfd) ? -errno : 0;
}

/**
 * etwctl_spool_bind - tie a spool to the collector its batches are for
 * @sp: the spool
 * @dest: the collector this run sends to
 * @recorded: out: with -EXDEV, the collector the batches are for ("URL",
 *	or "URL via PATH" for a UNIX socket; malloc'ed), else NULL
 *
 * An empty spool is bound to @dest, its record rewritten to name @dest if
 * it names another collector, is corrupt or missing.  A spool holding
 * batches is bound only when its record names @dest: those batches go to
 * no other collector.
 *
 * Return: 0 bound; -EXDEV: the batches are for another collector;
 * -ENOMSG: no record says which collector they are for; -EBADMSG: the
 * record is corrupt (no regular file, longer than 8 KiB, or not exactly
 * the format); -EINVAL: @dest cannot be recorded (an empty value or a
 * control character); or another negative errno.
 */
int etwctl_spool_bind(struct etwctl_spool *sp,
		      const struct etwctl_spool_dest *dest, char **recorded)
{
	struct etwctl_spool_dest old;
	char *text, *buf;
	ssize_t n;
	int ret;

	*recorded = NULL;
	ret = etwctl_spool_dest_text(dest, &text);
	if (ret)
		return ret;
	buf = malloc(ETWCTL_SPOOL_DEST_MAX + 1);
	if (!buf) {
		free(text);
		return -ENOMEM;
	}
	n = etwctl_spool_dest_read(sp, buf);
	if (n >= 0)
		ret = etwctl_spool_dest_parse(buf, (size_t)n, &old) ?
		      0 : -EBADMSG;
	else
		ret = n == -ENOENT ? -ENOMSG : (int)n;
	if (!ret && etwctl_spool_dest_eq(&old, dest))
		goto bound;
	if (etwctl_spool_batches(sp)) {
		if (!ret)
			ret = etwctl_spool_dest_show(&old, recorded) ?: -EXDEV;
		goto out;
	}
	ret = etwctl_spool_dest_write(sp, text);
	if (ret)
		goto out;
bound:
	sp->bound = true;
	ret = 0;
out:
	free(buf);
	free(text);
	return ret;
}

/**
 * etwctl_spool_put - spool a batch after the others
 * @sp: the spool
 * @data: the request body
 * @len: bytes at @data
 * @events: entries in it
 *
 * Return: 0, -ENOSPC when the spool cannot hold @len more bytes,
 * -EDESTADDRREQ when it is not bound to a collector, or another negative
 * errno.
 */
int etwctl_spool_put(struct etwctl_spool *sp, const void *data, size_t len,
		     uint32_t events)
{
	struct etwctl_spool_item it = { sp->next_seq, events, len };
	char tmp[80], name[64];
	int fd, ret;

	if (!sp->bound)
		return -EDESTADDRREQ;
	if (sp->bytes + len > sp->max_bytes)
		return -ENOSPC;
	snprintf(name, sizeof(name), ETWCTL_SPOOL_NAME, it.seq, events);
	snprintf(tmp, sizeof(tmp), ETWCTL_SPOOL_TMP "%s", name);
	fd = openat(sp->dirfd, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
		    0600);
	if (fd < 0)
		return -errno;
	ret = etwctl_spool_write(fd, data, len);
	if (close(fd) && !ret)
		ret = -errno;
	if (!ret && renameat(sp->dirfd, tmp, sp->dirfd, name))
		ret = -errno;
	if (!ret)
		ret = etwctl_spool_add(sp, &it);
	if (ret) {
		unlinkat(sp->dirfd, tmp, 0);
		unlinkat(sp->dirfd, name, 0);
		return ret;
	}
	fsync(sp->dirfd);
	return 0;
}

static void etwctl_spool_name_of(const struct etwctl_spool_item *it,
				 char name[64])
{
	snprintf(name, 64, ETWCTL_SPOOL_NAME, it->seq, it->events);
}

/**
 * etwctl_spool_peek - read the oldest spooled batch
 * @sp: the spool
 * @b: out: the batch's bytes (replacing what @b held)
 * @events: out: entries in it
 *
 * Return: 1 with a batch, 0 when the spool is empty, -EDESTADDRREQ when it
 * is not bound to a collector, or another negative errno.
 */
int etwctl_spool_peek(struct etwctl_spool *sp, struct etwctl_jbuf *b,
		      uint32_t *events)
{
	const struct etwctl_spool_item *it;
	char name[64], *p;
	struct stat st;
	ssize_t n;
	int fd;

	if (!sp->bound)
		return -EDESTADDRREQ;
	if (sp->head == sp->n)
		return 0;
	it = &sp->items[sp->head];
	etwctl_spool_name_of(it, name);
	fd = openat(sp->dirfd, name, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st))
		goto fail;
	p = st.st_size > (off_t)b->cap ? realloc(b->data, (size_t)st.st_size)
				       : b->data;
	if (!p && st.st_size) {
		close(fd);
		return -ENOMEM;
	}
	if (p != b->data) {
		b->data = p;
		b->cap = (size_t)st.st_size;
	}
	n = pread(fd, b->data, (size_t)st.st_size, 0);
	if (n != st.st_size) {
		errno = n < 0 ? errno : EIO;
		goto fail;
	}
	close(fd);
	b->len = (size_t)n;
	*events = it->events;
	return 1;
fail:
	n = -errno;
	if (fd >= 0)
		close(fd);
	return (int)n;
}

/**
 * etwctl_spool_pop - remove the oldest spooled batch, once delivered
 * @sp: the spool, not empty
 *
 * Return: 0 or a negative errno.
 */
int etwctl_spool_pop(struct etwctl_spool *sp)
{
	const struct etwctl_spool_item *it = &sp->items[sp->head];
	char name[64];

	etwctl_spool_name_of(it, name);
	if (unlinkat(sp->dirfd, name, 0) && errno != ENOENT)
		return -errno;
	sp->bytes -= it->bytes;
	sp->events -= it->events;
	sp->head++;
	return 0;
}

/**
 * etwctl_spool_batches - batches spooled
 * @sp: the spool
 *
 * Return: their number.
 */
size_t etwctl_spool_batches(const struct etwctl_spool *sp)
{
	return sp->n - sp->head;
}

/**
 * etwctl_spool_events - entries in the spooled batches
 * @sp: the spool
 *
 * Return: their number.
 */
uint64_t etwctl_spool_events(const struct etwctl_spool *sp)
{
	return sp->events;
}

/**
 * etwctl_spool_close - close a spool; its batches stay on disk
 * @sp: the spool, or NULL
 */
void etwctl_spool_close(struct etwctl_spool *sp)
{
	if (!sp)
		return;
	if (sp->lockfd >= 0)
		close(sp->lockfd);
	if (sp->dirfd >= 0)
		close(sp->dirfd);
	free(sp->items);
	free(sp);
}
