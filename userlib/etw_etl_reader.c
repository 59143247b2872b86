// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * etw_etl_reader.c: open an ETL file, parse its header buffer and read
 * its buffers.
 *
 * Buffers are read on demand with pread, so files larger than memory can
 * be processed; opening indexes where each buffer is stored.  The buffer
 * count comes from the file, not from BuffersWritten: a writer that was
 * killed leaves a stale count, and the last complete buffer is what is
 * worth reading.
 *
 * A file whose header buffer is TRACE_LOGFILE_HEADER.BufferSize bytes and
 * that is not in compressed mode has buffers of that size, at multiples
 * of it: a buffer with a corrupt header still takes its slot, and the
 * next one is found.  Any other file (relogged, compressed) chains its
 * buffers by their BufferSize; a buffer whose size cannot be right ends
 * the chain as one corrupt buffer, which reads as -EBADMSG.
 *
 * A reader is used by one thread at a time (it inflates through its own
 * scratch buffer).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "etw_etl.h"

/*
 * What the index keeps of a buffer; @corrupt: its size cannot be right;
 * @kept: bytes of it inflated kept at @kept_at (etw_etl_reader_keep()),
 * or 0.
 */
struct etw_etl_slot {
	uint64_t offset;
	uint32_t size;
	bool compressed;
	bool corrupt;
	uint32_t kept;
	uint64_t kept_at;
};

struct etw_etl_reader {
	int fd;
	uint32_t buffer_size;
	uint32_t header_size;
	uint64_t buffer_count;
	struct etw_etl_slot *slots;
	uint8_t *scratch;
	struct etw_etl_logfile_header hdr;
	struct etw_etl_system_header hev;
	struct etw_etl_clock clock;
	char *logger_name;
	char *file_name;
	bool keep;
	uint8_t *kept_mem;
	size_t kept_cap, kept_len;
	int kept_fd;
	uint64_t kept_spooled;
};

/* The smallest header buffer that can hold the header event. */
#define ETW_ETL_MIN_HEADER_BUFFER (ETW_BUFFER_HEADER_SIZE + \
	sizeof(struct etw_etl_system_header) + ETW_ETL_LOGFILE_HEADER32_SIZE)

static int etw_etl_pread(int fd, void *buf, size_t len, uint64_t off)
{
	ssize_t n;

	while (len) {
		n = pread(fd, buf, len, off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -EBADMSG;
		buf = (uint8_t *)buf + n;
		len -= n;
		off += n;
	}
	return 0;
}

/*
 * The 32-bit form differs only in its two 4-byte name fields; the rest
 * moves up by 8 bytes.
 */
static void etw_etl_header_from32(struct etw_etl_logfile_header *h,
				  const uint8_t *p)
{
	const size_t names = offsetof(struct etw_etl_logfile_header,
				      logger_name);
	uint32_t name;

	memcpy(h, p, names);
	memcpy(&name, p + names, sizeof(name));
	h->logger_name = name;
	memcpy(&name, p + names + 4, sizeof(name));
	h->log_file_name = name;
	memcpy(h->time_zone, p + names + 8,
	       ETW_ETL_LOGFILE_HEADER32_SIZE - names - 8);
}

/* Two NUL-terminated UTF-16LE names follow the logfile header. */
static int etw_etl_parse_names(struct etw_etl_reader *r, const uint8_t *p,
			       size_t len)
{
	size_t units = len / 2, i = 0;

	r->logger_name = etw_etl_utf16_to_utf8(p, units);
	while (i < units && (p[2 * i] || p[2 * i + 1]))
		i++;
	i = i < units ? i + 1 : units;
	r->file_name = etw_etl_utf16_to_utf8(p + 2 * i, units - i);
	return r->logger_name && r->file_name ? 0 : -ENOMEM;
}

static int etw_etl_parse_header_event(struct etw_etl_reader *r,
				      const struct etw_etl_event *ev)
{
	bool is32 = ev->header_type == ETW_ETL_HT_SYSTEM32;
	size_t tlh = is32 ? ETW_ETL_LOGFILE_HEADER32_SIZE :
			    ETW_ETL_LOGFILE_HEADER_SIZE;

	if (ev->kind != ETW_ETL_KIND_SYSTEM || ev->hook_id ||
	    (!is32 && ev->header_type != ETW_ETL_HT_SYSTEM64) ||
	    ev->user_data_len < tlh)
		return -EBADMSG;
	memcpy(&r->hev, ev->record, sizeof(r->hev));
	if (is32)
		etw_etl_header_from32(&r->hdr, ev->user_data);
	else
		memcpy(&r->hdr, ev->user_data, tlh);
	/* The header buffer may be smaller than the others, not larger. */
	if (r->hdr.buffer_size < r->header_size ||
	    r->hdr.buffer_size > ETW_ETL_MAX_BUFFER_SIZE ||
	    (r->hdr.pointer_size != 4 && r->hdr.pointer_size != 8))
		return -EBADMSG;
	r->buffer_size = r->hdr.buffer_size;
	return etw_etl_parse_names(r, (const uint8_t *)ev->user_data + tlh,
				   ev->user_data_len - tlh);
}

static int etw_etl_read_header(struct etw_etl_reader *r, uint64_t file_size)
{
	struct etw_etl_records it;
	struct etw_etl_event ev;
	struct etw_buffer_header bh;
	uint8_t *buf;
	int ret;

	ret = etw_etl_pread(r->fd, &bh, sizeof(bh), 0);
	if (ret)
		return ret;
	if (bh.buffer_type != ETW_BUFFER_TYPE_HEADER ||
	    (bh.buffer_flag & ETW_ETL_BUFFER_FLAG_COMPRESSED) ||
	    bh.buffer_size < ETW_ETL_MIN_HEADER_BUFFER ||
	    bh.buffer_size > ETW_ETL_MAX_BUFFER_SIZE ||
	    bh.buffer_size > file_size)
		return -EBADMSG;
	r->header_size = bh.buffer_size;
	buf = malloc(r->header_size);
	if (!buf)
		return -ENOMEM;
	ret = etw_etl_pread(r->fd, buf, r->header_size, 0);
	if (!ret)
		ret = etw_etl_records_init(&it, buf, r->header_size, NULL);
	if (!ret) {
		ret = etw_etl_records_next(&it, &ev);
		ret = ret == 1 ? etw_etl_parse_header_event(r, &ev) :
				 ret ? ret : -EBADMSG;
	}
	free(buf);
	return ret;
}

static int etw_etl_add_slot(struct etw_etl_reader *r, size_t *cap,
			    const struct etw_etl_slot *slot)
{
	struct etw_etl_slot *v;

	if (r->buffer_count == *cap) {
		*cap = *cap ? *cap * 2 : 64;
		v = realloc(r->slots, *cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		r->slots = v;
	}
	r->slots[r->buffer_count++] = *slot;
	return 0;
}

/* Buffers of the header buffer's size, one per slot of that size. */
static bool etw_etl_fixed_slots(const struct etw_etl_reader *r)
{
	return r->header_size == r->buffer_size &&
	       !(r->hdr.log_file_mode & ETW_ETL_MODE_COMPRESSED);
}

/*
 * Where each buffer is.  A partial buffer at the end of the file (a
 * writer killed mid-write) is left out.
 */
static int etw_etl_index(struct etw_etl_reader *r, uint64_t file_size)
{
	struct etw_etl_slot slot = { 0 };
	struct etw_buffer_header bh;
	bool fixed = etw_etl_fixed_slots(r);
	uint64_t off = 0;
	size_t cap = 0;
	int ret;

	while (file_size - off >= sizeof(bh)) {
		ret = etw_etl_pread(r->fd, &bh, sizeof(bh), off);
		if (ret)
			return ret;
		slot.offset = off;
		slot.compressed = bh.buffer_flag &
				  ETW_ETL_BUFFER_FLAG_COMPRESSED;
		slot.corrupt = false;
		if (fixed) {
			slot.size = r->buffer_size;
		} else if (bh.buffer_size < sizeof(bh) ||
			   bh.buffer_size > r->buffer_size) {
			slot.size = file_size - off < r->buffer_size ?
				    file_size - off : r->buffer_size;
			slot.corrupt = true;
		} else {
			slot.size = bh.buffer_size;
		}
		if (slot.size > file_size - off)
			break;
		ret = etw_etl_add_slot(r, &cap, &slot);
		if (ret || slot.corrupt)
			return ret;
		off += slot.size;
	}
	return 0;
}

/**
 * etw_etl_reader_open - open an ETL file, parse its header buffer and
 * index its buffers
 * @path: the file
 * @out: out: the reader
 *
 * Return: 0, -errno from open() or a read, -ENOMEM, or -EBADMSG for a
 * file that is not a readable ETL file.
 */
int etw_etl_reader_open(const char *path, struct etw_etl_reader **out)
{
	struct etw_etl_reader *r;
	struct stat st;
	int ret;

	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->kept_fd = -1;
	r->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (r->fd < 0) {
		ret = -errno;
		free(r);
		return ret;
	}
	ret = fstat(r->fd, &st) ? -errno : 0;
	if (!ret)
		ret = etw_etl_read_header(r, st.st_size);
	if (!ret)
		ret = etw_etl_index(r, st.st_size);
	if (!ret) {
		r->scratch = malloc(r->buffer_size);
		ret = r->scratch ? 0 : -ENOMEM;
	}
	if (ret) {
		etw_etl_reader_close(r);
		return ret;
	}
	r->clock.type = r->hdr.reserved_flags;
	r->clock.perf_freq = r->hdr.perf_freq;
	r->clock.cpu_speed_mhz = r->hdr.cpu_speed_mhz;
	r->clock.start_raw = r->hev.system_time;
	r->clock.start_time = r->hdr.start_time;
	*out = r;
	return 0;
}

void etw_etl_reader_close(struct etw_etl_reader *r)
{
	if (!r)
		return;
	close(r->fd);
	if (r->kept_fd >= 0)
		close(r->kept_fd);
	free(r->kept_mem);
	free(r->slots);
	free(r->scratch);
	free(r->logger_name);
	free(r->file_name);
	free(r);
}

const struct etw_etl_logfile_header *
etw_etl_reader_header(const struct etw_etl_reader *r)
{
	return &r->hdr;
}

const struct etw_etl_system_header *
etw_etl_reader_header_event(const struct etw_etl_reader *r)
{
	return &r->hev;
}

const struct etw_etl_clock *
etw_etl_reader_clock(const struct etw_etl_reader *r)
{
	return &r->clock;
}

const char *etw_etl_reader_logger_name(const struct etw_etl_reader *r)
{
	return r->logger_name;
}

const char *etw_etl_reader_file_name(const struct etw_etl_reader *r)
{
	return r->file_name;
}

/* Bytes of an inflated buffer: TRACE_LOGFILE_HEADER.BufferSize. */
uint32_t etw_etl_reader_buffer_size(const struct etw_etl_reader *r)
{
	return r->buffer_size;
}

/* Buffers in the file, header buffer included. */
uint64_t etw_etl_reader_buffer_count(const struct etw_etl_reader *r)
{
	return r->buffer_count;
}

/**
 * etw_etl_reader_stored - how one buffer is stored
 * @r: the reader
 * @index: 0 .. etw_etl_reader_buffer_count() - 1
 * @st: out: its place and size in the file, and whether it is compressed
 *
 * Return: 0, or -ERANGE for an index past the last buffer.
 */
int etw_etl_reader_stored(const struct etw_etl_reader *r, uint64_t index,
			  struct etw_etl_stored *st)
{
	if (index >= r->buffer_count)
		return -ERANGE;
	st->offset = r->slots[index].offset;
	st->size = r->slots[index].size;
	st->compressed = r->slots[index].compressed;
	return 0;
}

/*
 * A compressed buffer's header as the inflated buffer has it: the file's
 * buffer size, no compressed flag.
 */
static void etw_etl_inflated_header(const struct etw_etl_reader *r,
				    struct etw_buffer_header *bh)
{
	if (!(bh->buffer_flag & ETW_ETL_BUFFER_FLAG_COMPRESSED))
		return;
	bh->buffer_size = r->buffer_size;
	bh->buffer_flag &= ~ETW_ETL_BUFFER_FLAG_COMPRESSED;
}

/**
 * etw_etl_reader_buffer_header - the header of one buffer
 * @r: the reader
 * @index: 0 .. etw_etl_reader_buffer_count() - 1
 * @bh: out: the header, as etw_etl_reader_buffer() gives it
 *
 * Return: 0, -ERANGE for an index past the last buffer, -EBADMSG for a
 * buffer whose stored size cannot be right, or a read error.
 */
int etw_etl_reader_buffer_header(struct etw_etl_reader *r, uint64_t index,
				 struct etw_buffer_header *bh)
{
	int ret;

	if (index >= r->buffer_count)
		return -ERANGE;
	if (r->slots[index].corrupt)
		return -EBADMSG;
	ret = etw_etl_pread(r->fd, bh, sizeof(*bh), r->slots[index].offset);
	if (!ret)
		etw_etl_inflated_header(r, bh);
	return ret;
}

/*
 * Inflate the compressed buffer stored at @slot into @buf: the header as
 * stored, then exactly Offset - header bytes of records.
 */
static int etw_etl_inflate(struct etw_etl_reader *r,
			   const struct etw_etl_slot *slot, uint8_t *buf)
{
	const size_t hs = sizeof(struct etw_buffer_header);
	struct etw_buffer_header bh;
	uint32_t in_len;
	size_t n;
	int ret;

	ret = etw_etl_pread(r->fd, r->scratch, sizeof(bh), slot->offset);
	if (ret)
		return ret;
	memcpy(&bh, r->scratch, sizeof(bh));
	/* A fixed-slot file's compressed buffer says how much it holds. */
	in_len = bh.buffer_size;
	if (in_len < hs || in_len > slot->size || bh.offset < hs ||
	    bh.offset > r->buffer_size)
		return -EBADMSG;
	ret = etw_etl_pread(r->fd, r->scratch + hs, in_len - hs,
			    slot->offset + hs);
	if (ret)
		return ret;
	ret = etw_xpress_decompress(r->scratch + hs, in_len - hs, buf + hs,
				    bh.offset - hs, &n);
	if (ret)
		return ret;
	if (n != bh.offset - hs)
		return -EBADMSG;
	etw_etl_inflated_header(r, &bh);
	memcpy(buf, &bh, sizeof(bh));
	memset(buf + bh.offset, 0xff, r->buffer_size - bh.offset);
	return 0;
}

/*
 * A kept buffer's bytes: the first kept_cap in memory, the rest spooled
 * to an unlinked temporary file.
 */
static int etw_etl_kept(const struct etw_etl_reader *r,
			const struct etw_etl_slot *slot, uint8_t *buf)
{
	int ret = 0;

	if (slot->kept_at < r->kept_cap)
		memcpy(buf, r->kept_mem + slot->kept_at, slot->kept);
	else
		ret = etw_etl_pread(r->kept_fd, buf, slot->kept,
				    slot->kept_at - r->kept_cap);
	if (!ret)
		memset(buf + slot->kept, 0xff, r->buffer_size - slot->kept);
	return ret;
}

/*
 * secure_getenv: in a set-user-ID or set-group-ID program TMPDIR comes
 * from the caller, who could point the spool at a directory of their
 * choosing; /tmp is used there instead.
 */
static int etw_etl_spool_open(void)
{
	const char *dir = secure_getenv("TMPDIR");
	char path[4096];
	int fd;

	if (!dir || !*dir)
		dir = "/tmp";
#ifdef O_TMPFILE
	fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd >= 0)
		return fd;
#endif
	if ((size_t)snprintf(path, sizeof(path), "%s/etw-spool.XXXXXX", dir) >=
	    sizeof(path))
		return -1;
	fd = mkostemp(path, O_CLOEXEC);
	if (fd >= 0)
		unlink(path);
	return fd;
}

/*
 * Keep the inflated buffer @buf of @slot, if it can be: in memory while
 * kept_cap lasts, then in the spool.  A buffer not kept is inflated
 * again when read again.
 */
static void etw_etl_keep_one(struct etw_etl_reader *r,
			     struct etw_etl_slot *slot, const uint8_t *buf)
{
	uint32_t n = ((const struct etw_buffer_header *)buf)->offset;
	ssize_t w;

	if (n > r->buffer_size)
		return;
	if (r->kept_len + n <= r->kept_cap) {
		if (!r->kept_mem) {
			r->kept_mem = malloc(r->kept_cap);
			if (!r->kept_mem) {
				r->kept_cap = 0;
				return;
			}
		}
		memcpy(r->kept_mem + r->kept_len, buf, n);
		slot->kept_at = r->kept_len;
		r->kept_len += n;
		slot->kept = n;
		return;
	}
	if (r->kept_fd < 0) {
		r->kept_fd = etw_etl_spool_open();
		if (r->kept_fd < 0) {
			r->keep = false;
			return;
		}
	}
	w = pwrite(r->kept_fd, buf, n, (off_t)r->kept_spooled);
	if (w != (ssize_t)n)
		return;
	/* Spooled bytes are found past kept_cap, whatever memory holds. */
	slot->kept_at = r->kept_cap + r->kept_spooled;
	r->kept_spooled += n;
	slot->kept = n;
}

/**
 * etw_etl_reader_keep - keep the buffers inflated for another pass
 * @r: the reader
 * @mem: bytes of them to keep in memory; the rest go to an unlinked
 *	temporary file under $TMPDIR, else /tmp (TMPDIR is ignored in
 *	set-user-ID and set-group-ID programs)
 *
 * From now on, each compressed buffer etw_etl_reader_buffer() inflates
 * is kept, and read back instead of inflated again; the memory it takes
 * is at most @mem bytes.  Call it once, before reading.
 */
void etw_etl_reader_keep(struct etw_etl_reader *r, size_t mem)
{
	if (r->keep || r->kept_mem)
		return;
	r->keep = true;
	r->kept_cap = mem;
}

/**
 * etw_etl_reader_buffer - read, inflate and validate one buffer
 * @r: the reader
 * @index: 0 .. etw_etl_reader_buffer_count() - 1, in file order
 * @buf: receives etw_etl_reader_buffer_size() bytes: a compressed buffer
 *	inflated, with the file's buffer size and no compressed flag in its
 *	header; a smaller one followed by 0xff
 *
 * Return: 0, -ERANGE for an index past the last buffer, -EBADMSG for a
 * corrupt buffer (its header, its size, or its compressed stream), or a
 * read error.
 */
int etw_etl_reader_buffer(struct etw_etl_reader *r, uint64_t index,
			  void *buf)
{
	const struct etw_etl_slot *slot;
	uint32_t filled;
	int ret;

	if (index >= r->buffer_count)
		return -ERANGE;
	slot = &r->slots[index];
	if (slot->corrupt)
		return -EBADMSG;
	if (slot->compressed && slot->kept) {
		ret = etw_etl_kept(r, slot, buf);
	} else if (slot->compressed) {
		ret = etw_etl_inflate(r, slot, buf);
		if (!ret && r->keep)
			etw_etl_keep_one(r, &r->slots[index], buf);
	} else {
		ret = etw_etl_pread(r->fd, buf, slot->size, slot->offset);
		if (!ret)
			memset((uint8_t *)buf + slot->size, 0xff,
			       r->buffer_size - slot->size);
	}
	if (ret)
		return ret;
	return etw_etl_buffer_check(buf, r->buffer_size, &filled);
}
