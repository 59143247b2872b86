// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * fuzz_seeds: writes the seed corpora of the fuzz targets, so that none
 * is committed.
 *
 *   fuzz_seeds OUTDIR ETL... -- MANIFEST...
 *
 * OUTDIR/etl: each ETL file as it is, and one the ETL writer writes of
 * 4 KiB buffers: the TraceLogging events below on CPU 0, plain events on
 * CPU 1.
 * OUTDIR/tl: each event of those files that carries TraceLogging
 * metadata, and each event of userlib/tests/tracelogging_events.c (one
 * per group of field macros), in etw_fuzz_tl()'s input format.
 * OUTDIR/manifest: each manifest alone, and followed by a NUL and 64
 * bytes of user data for its events.
 * OUTDIR/xpress: the compressed streams of the first buffers of each ETL
 * file that has them, and what etw_xpress_compress() makes of a run, of
 * text and of counters.
 * OUTDIR/wevt: the PE file of userlib/tests/wevt_build.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "etl_test.h"
#include "etw_etl.h"
#include "etw_fuzz_entry.h"
#include "tracelogging_events.h"
#include "wevt_build.h"

static int fuzz_seeds_write(const char *dir, const char *name, int n,
			    const void *a, size_t alen,
			    const void *b, size_t blen)
{
	char path[4096];
	FILE *f;
	int ok;

	snprintf(path, sizeof(path), "%s/%s-%d", dir, name, n);
	f = fopen(path, "wb");
	if (!f) {
		perror(path);
		return -1;
	}
	ok = fwrite(a, 1, alen, f) == alen && fwrite(b, 1, blen, f) == blen;
	if (fclose(f) || !ok) {
		perror(path);
		return -1;
	}
	return 0;
}

static const char *fuzz_seeds_base(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

static void *fuzz_seeds_read(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	void *buf = NULL;
	long n = -1;

	if (!f)
		return NULL;
	if (!fseek(f, 0, SEEK_END))
		n = ftell(f);
	if (n >= 0 && !fseek(f, 0, SEEK_SET))
		buf = malloc(n ? n : 1);
	if (buf && fread(buf, 1, n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	*len = n;
	fclose(f);
	return buf;
}

/* A TraceLogging seed: etw_fuzz_tl()'s header, metadata, user data. */
static int fuzz_seeds_tl(const char *dir, const char *name, int n,
			 uint8_t flags, const void *meta, size_t mlen,
			 const void *data, size_t dlen)
{
	uint8_t buf[ETW_FUZZ_TL_HEADER + 65536];

	if (mlen > 0xffff)
		return -1;
	buf[0] = mlen & 0xff;
	buf[1] = mlen >> 8;
	buf[2] = flags;
	memcpy(buf + ETW_FUZZ_TL_HEADER, meta, mlen);
	return fuzz_seeds_write(dir, name, n, buf, ETW_FUZZ_TL_HEADER + mlen,
				data, dlen);
}

/* The TraceLogging events of one buffer, a seed each, numbered from *@n. */
static int fuzz_seeds_buffer_events(const char *dir, const char *name,
				    const void *buf, size_t size, int *n)
{
	struct etw_etl_records it;
	struct etw_etl_event ev;
	uint32_t i;
	int ret = 0;

	if (etw_etl_records_init(&it, buf, size, NULL))
		return 0;
	while (!ret && etw_etl_records_next(&it, &ev) == 1) {
		for (i = 0; !ret && i < ev.ext_count; i++) {
			if (ev.ext[i].type !=
			    EVENT_HEADER_EXT_TYPE_EVENT_SCHEMA_TL)
				continue;
			ret = fuzz_seeds_tl(dir, name, (*n)++, 0,
					    ev.ext[i].data, ev.ext[i].size,
					    ev.user_data, ev.user_data_len);
		}
	}
	return ret;
}

/* The TraceLogging events of an ETL file, one seed each. */
static int fuzz_seeds_etl_events(const char *dir, const char *path)
{
	struct etw_etl_reader *r;
	uint8_t *buf;
	uint32_t bs;
	uint64_t b;
	int n = 0, ret;

	ret = etw_etl_reader_open(path, &r);
	if (ret) {
		fprintf(stderr, "fuzz_seeds: %s: %s\n", path, strerror(-ret));
		return -1;
	}
	bs = etw_etl_reader_buffer_size(r);
	buf = malloc(bs);
	ret = buf ? 0 : -1;
	for (b = 0; !ret && b < etw_etl_reader_buffer_count(r); b++)
		if (!etw_etl_reader_buffer(r, b, buf))
			ret = fuzz_seeds_buffer_events(dir,
						       fuzz_seeds_base(path),
						       buf, bs, &n);
	free(buf);
	etw_etl_reader_close(r);
	return ret;
}

/*
 * Appends an event of @c's metadata and payload, with provider traits,
 * to @buf; false when it does not fit.
 */
static bool fuzz_seeds_add_tl(void *buf, const struct tle_capture *c,
			      uint64_t ts)
{
	static const uint8_t traits[8] = "\x07\x00" "fuzz";
	struct etw_buffer_header *bh = buf;
	uint8_t *p = (uint8_t *)buf + bh->offset;
	uint32_t titem = sizeof(struct etw_ext_item) + sizeof(traits);
	uint32_t mitem = sizeof(struct etw_ext_item) +
			 ((c->meta_len + 7) & ~7u);
	uint32_t size = sizeof(struct etw_event_header) + titem + mitem +
			c->payload_len;
	struct etw_event_header eh = {
		.size = (uint16_t)size,
		.header_type = ETW_EVENT_HEADER_TYPE_64,
		.flags = ETW_EVENT_FLAG_EXTENDED_INFO,
		.thread_id = 101,
		.process_id = 100,
		.timestamp = ts,
		.provider_id = etl_test_guid,
	};
	struct etw_ext_item x = { .item_size = titem, .linkage = 1,
				  .ext_type = EVENT_HEADER_EXT_TYPE_PROV_TRAITS,
				  .data_size = 7 };

	if (size > 0xffff || bh->offset + ((size + 7) & ~7u) > bh->buffer_size)
		return false;
	memcpy(&eh.descriptor, &c->desc, sizeof(eh.descriptor));
	memcpy(p, &eh, sizeof(eh));
	p += sizeof(eh);
	memcpy(p, &x, sizeof(x));
	memcpy(p + sizeof(x), traits, sizeof(traits));
	p += titem;
	x = (struct etw_ext_item){ .item_size = mitem,
		.ext_type = EVENT_HEADER_EXT_TYPE_EVENT_SCHEMA_TL,
		.data_size = c->meta_len };
	memcpy(p, &x, sizeof(x));
	memset(p + sizeof(x), 0, mitem - sizeof(x));
	memcpy(p + sizeof(x), c->meta, c->meta_len);
	p += mitem;
	memcpy(p, c->payload, c->payload_len);
	memset(p + c->payload_len, 0, ((size + 7) & ~7u) - size);
	bh->offset += (size + 7) & ~7u;
	bh->saved_offset = bh->offset;
	bh->current_offset = bh->offset;
	bh->events++;
	bh->timestamp = ts;
	return true;
}

/* An ETL file of the TraceLogging test events, as libetw writes one. */
static int fuzz_seeds_written(const char *dir, struct tle_capture *c)
{
	struct etw_etl_writer_params params = etl_test_params();
	struct etw_etl_writer_stats st;
	uint64_t ts = ETL_TEST_START_RAW;
	struct etw_etl_writer *w;
	uint8_t *buf = malloc(ETL_TEST_BS);
	const char *expect;
	char path[4096 + 32];
	int i, ret;

	snprintf(path, sizeof(path), "%s/libetw-written.etl", dir);
	ret = buf ? etw_etl_writer_open(path, ETW_ETL_MODE_SEQUENTIAL, &params,
					&w) : -ENOMEM;
	if (ret) {
		free(buf);
		return ret;
	}
	etl_buf_init(buf, ETL_TEST_BS, 0);
	for (i = 0; !ret && tle_run_c(i, c, &expect) == 0; i++) {
		ts += 1000;
		if (fuzz_seeds_add_tl(buf, c, ts))
			continue;
		ret = etw_etl_writer_append(w, buf);
		etl_buf_init(buf, ETL_TEST_BS, 0);
		if (!ret && !fuzz_seeds_add_tl(buf, c, ts))
			ret = -E2BIG;
	}
	if (!ret)
		ret = etw_etl_writer_append(w, buf);
	etl_buf_fill(buf, 1, 5, 100, ETL_TEST_START_RAW + 1500, 2000);
	if (!ret)
		ret = etw_etl_writer_append(w, buf);
	if (etw_etl_writer_close(w, &st) && !ret)
		ret = -EIO;
	free(buf);
	if (ret)
		fprintf(stderr, "fuzz_seeds: %s: %s\n", path, strerror(-ret));
	return ret;
}

static int fuzz_seeds_copy(const char *dir, const char *path,
			   const void *tail, size_t tlen, int n)
{
	size_t len;
	void *buf = fuzz_seeds_read(path, &len);
	int ret;

	if (!buf) {
		perror(path);
		return -1;
	}
	ret = fuzz_seeds_write(dir, fuzz_seeds_base(path), n, buf, len,
			       tail, tlen);
	free(buf);
	return ret;
}

/* The streams of the first few compressed buffers of an ETL file. */
static int fuzz_seeds_streams(const char *dir, const char *path)
{
	struct etw_etl_reader *r;
	struct etw_etl_stored st;
	size_t len = 0, hs = ETW_BUFFER_HEADER_SIZE;
	uint8_t *file;
	uint64_t b;
	int n = 0, ret = 0;

	if (etw_etl_reader_open(path, &r))
		return 0;	/* fuzz_seeds_etl_events() said why */
	file = fuzz_seeds_read(path, &len);
	for (b = 0; file && !ret && n < 8 &&
	     !etw_etl_reader_stored(r, b, &st); b++)
		if (st.compressed && st.offset + st.size <= len)
			ret = fuzz_seeds_write(dir, fuzz_seeds_base(path), n++,
					       file + st.offset + hs,
					       st.size - hs, NULL, 0);
	free(file);
	etw_etl_reader_close(r);
	return ret;
}

/* The compressor's streams of a few shapes of data. */
static int fuzz_seeds_compressed(const char *dir)
{
	static uint8_t in[4096], z[4096 + 4096 / 8 + 16];
	ssize_t len;
	int i, ret = 0;
	size_t j;

	for (i = 0; !ret && i < 3; i++) {
		for (j = 0; j < sizeof(in); j++)
			in[j] = i == 0 ? 'a' : i == 1 ?
				"lorem ipsum dolor "[j % 18 ^ (j / 64 % 3)] :
				(uint8_t)(j / 2 >> (8 * (j % 2)));
		len = etw_xpress_compress(in, sizeof(in), z, sizeof(z));
		ret = len > 0 ? fuzz_seeds_write(dir, "compressed", i, z, len,
						 NULL, 0) : -1;
	}
	return ret;
}

static int fuzz_seeds_mkdir(char *path, size_t size, const char *out,
			    const char *sub)
{
	snprintf(path, size, "%s/%s", out, sub);
	if (mkdir(path, 0755) && errno != EEXIST) {
		perror(path);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static struct wevt_image wevt;
	char etl[4096], tl[4096], mf[4096], xp[4096], pe[4096];
	uint8_t user[1 + 64];
	struct tle_capture *c = malloc(sizeof(*c));
	const char *expect;
	int i, ret = 0;
	bool man = false;

	if (argc < 2 || !c) {
		fprintf(stderr, "usage: fuzz_seeds OUTDIR ETL... -- MANIFEST...\n");
		return 2;
	}
	if (fuzz_seeds_mkdir(etl, sizeof(etl), argv[1], "") ||
	    fuzz_seeds_mkdir(etl, sizeof(etl), argv[1], "etl") ||
	    fuzz_seeds_mkdir(tl, sizeof(tl), argv[1], "tl") ||
	    fuzz_seeds_mkdir(mf, sizeof(mf), argv[1], "manifest") ||
	    fuzz_seeds_mkdir(xp, sizeof(xp), argv[1], "xpress") ||
	    fuzz_seeds_mkdir(pe, sizeof(pe), argv[1], "wevt"))
		return 1;
	for (i = 0; i < (int)sizeof(user); i++)
		user[i] = (uint8_t)(i * 7);
	user[0] = 0;
	for (i = 2; i < argc && !ret; i++) {
		if (!strcmp(argv[i], "--"))
			man = true;
		else if (man)
			ret = fuzz_seeds_copy(mf, argv[i], NULL, 0, 0) ||
			      fuzz_seeds_copy(mf, argv[i], user,
					      sizeof(user), 1);
		else
			ret = fuzz_seeds_copy(etl, argv[i], NULL, 0, 0) ||
			      fuzz_seeds_etl_events(tl, argv[i]) ||
			      fuzz_seeds_streams(xp, argv[i]);
	}
	if (!ret)
		ret = fuzz_seeds_compressed(xp);
	for (i = 0; !ret && tle_run_c(i, c, &expect) == 0; i++)
		ret = fuzz_seeds_tl(tl, "tracelogging", i,
				    i % 2 ? ETW_FUZZ_TL_TRAITS : 0,
				    c->meta, c->meta_len,
				    c->payload, c->payload_len);
	if (!ret)
		ret = fuzz_seeds_written(etl, c);
	wevt_build(&wevt);
	if (!ret)
		ret = fuzz_seeds_write(pe, "sample", 0, wevt.file.b, wevt.file.n,
				       NULL, 0);
	free(c);
	return ret ? 1 : 0;
}
