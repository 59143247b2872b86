/* SPDX-License-Identifier: GPL-2.0 */
/*
 * etwctl internals: the commands, the helpers they share, the provider
 * spec parser and the event decoder.  Not installed.
 *
 * Every command returns its exit status: 0 on success, ETWCTL_EXIT_RUNTIME
 * when the operation failed, ETWCTL_EXIT_USAGE for bad arguments, and
 * forward ETWCTL_EXIT_OTHER_COLLECTOR when its spool holds batches for
 * another collector.  Errors are one line on stderr, printed by
 * etwctl_fail() or etwctl_usage().
 */
#ifndef _ETWCTL_H
#define _ETWCTL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <windows.h>
#include <evntrace.h>
#include <evntcons.h>

#include "etw_etl.h"

#define ETWCTL_EXIT_RUNTIME	1
#define ETWCTL_EXIT_USAGE	2
#define ETWCTL_EXIT_OTHER_COLLECTOR	3

/* "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" and its NUL. */
#define ETWCTL_GUID_LEN		37
/* The digits of the largest uint64_t. */
#define ETWCTL_U64_LEN		20

/**
 * struct etwctl_cmd - one etwctl command
 * @name: the word after "etwctl"
 * @run: runs it with argv[0] == @name; returns the exit status
 * @summary: one line for "etwctl --help"
 */
struct etwctl_cmd {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
};

int etwctl_cmd_start(int argc, char **argv);

/**
 * struct etwctl_kflag_bad - the name etwctl_kernel_flags() refused
 * @name: where it starts (in the argument, or in a group's members)
 * @len: its bytes
 * @group: the group whose member it is, or NULL
 */
struct etwctl_kflag_bad {
	const char *name;
	size_t len;
	const char *group;
};

int etwctl_kernel_flags(const char *s, ULONG *flags,
			struct etwctl_kflag_bad *bad);
int etwctl_cmd_stop(int argc, char **argv);
int etwctl_cmd_flush(int argc, char **argv);
int etwctl_cmd_update(int argc, char **argv);
int etwctl_cmd_query(int argc, char **argv);
int etwctl_cmd_list(int argc, char **argv);
int etwctl_cmd_enable(int argc, char **argv);
int etwctl_cmd_disable(int argc, char **argv);
int etwctl_cmd_capture_state(int argc, char **argv);
int etwctl_cmd_disallow(int argc, char **argv);
int etwctl_cmd_providers(int argc, char **argv);
int etwctl_cmd_view(int argc, char **argv);
int etwctl_cmd_dump(int argc, char **argv);
int etwctl_cmd_merge(int argc, char **argv);
int etwctl_cmd_stats(int argc, char **argv);
int etwctl_cmd_forward(int argc, char **argv);
int etwctl_cmd_export(int argc, char **argv);
int etwctl_cmd_top(int argc, char **argv);
int etwctl_cmd_mc(int argc, char **argv);

/* ---------------------------------------------------------------------- */
/* common.c */

int etwctl_fail(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int etwctl_usage(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int etwctl_help(const char *usage);
int etwctl_bad_option(const char *cmd, int c, char **argv);
void etwctl_getopt_reset(void);
int etwctl_parse_u64(const char *s, uint64_t max, uint64_t *out);
int etwctl_parse_list(const char *s, uint64_t max, uint64_t *out,
		      size_t cap, size_t *count);
const char *etwctl_win32_str(ULONG err);
const char *etwctl_errno_str(int err);
void etwctl_progress(const char *what, uint64_t done, uint64_t total);
void etwctl_progress_end(void);
int etwctl_need_device(const char *cmd);
int etwctl_load_manifest(const char *cmd, const char *path);

/* ---------------------------------------------------------------------- */
/* provider_spec.c */

/**
 * struct etwctl_provider_spec - PROVIDER[:KEYWORDS[:LEVEL]], parsed
 * @name: what stood for the provider, as given
 * @guid: the GUID when the spec was a GUID or "*Name"
 * @has_guid: false when @name is a plain name still to be resolved
 * @keywords: MatchAnyKeyword (all bits when omitted)
 * @level: level (255, every level, when omitted)
 */
struct etwctl_provider_spec {
	char name[256];
	GUID guid;
	bool has_guid;
	uint64_t keywords;
	uint8_t level;
};

int etwctl_guid_parse(const char *s, GUID *guid);
void etwctl_guid_format(const GUID *guid, char out[ETWCTL_GUID_LEN]);
int etwctl_level_parse(const char *s, uint8_t *level);
int etwctl_provider_spec_parse(const char *s,
			       struct etwctl_provider_spec *spec);

/* ---------------------------------------------------------------------- */
/* decode.c */

/**
 * struct etwctl_field_text - one decoded field, as text
 * @name: its name, @name_len bytes: dotted for struct members, indexed
 *	for struct arrays
 * @value: its text, @value_len bytes
 * @quoted: the value is a string (JSON quotes it), not a number, boolean
 *	or array literal
 * @plain: a string of printable ASCII without '"' or '\\' (hex numbers,
 *	GUIDs, addresses, times): JSON writes it as it is between its quotes
 *
 * The lengths are the decoder's: a row is made of many fields, and a
 * strlen() of each name and value cost as much as copying them.
 */
struct etwctl_field_text {
	const char *name;
	size_t name_len;
	const char *value;
	size_t value_len;
	bool quoted;
	bool plain;
};

/* Receives one decoded field; @f and its strings are valid for the call. */
typedef void (*etwctl_field_fn)(void *ctx, const struct etwctl_field_text *f);

int etwctl_tl_event_name(const void *meta, size_t len, char *out,
			 size_t size);
int etwctl_tl_decode(const void *meta, size_t meta_len, const void *data,
		     size_t len, etwctl_field_fn fn, void *ctx);
/**
 * struct etwctl_names - what an event's schema names, as UTF-8
 * @provider: the provider
 * @event: the event (TraceLogging, or a manifest event's name attribute)
 * @channel: the channel
 * @level: the level
 * @task: the task (manifest events only)
 * @opcode: the opcode
 * @keywords: the names of the event's keyword bits, joined by ","
 * @schema: where they come from: 0 when the event has no schema (all
 *	""), else the number of its schema in libetw's cache (the same
 *	number, the same names), or ETWCTL_NAMES_OWN for names of this
 *	event alone
 *
 * Each is "" when the schema does not name it.
 */
struct etwctl_names {
	char provider[256];
	char event[256];
	char channel[128];
	char level[128];
	char task[128];
	char opcode[128];
	char keywords[512];
	uint64_t schema;
};

#define ETWCTL_NAMES_OWN	UINT64_MAX

int etwctl_decode_names(const struct etw_etl_event *ev,
			const struct etwctl_names **names, etwctl_field_fn fn,
			void *ctx);
int etwctl_decode_event(const struct etw_etl_event *ev,
			struct etwctl_names *names, etwctl_field_fn fn,
			void *ctx);
int etwctl_traits_name(const void *traits, size_t len, char *out,
		       size_t size);
void etwctl_filetime_format(int64_t ft, char *out, size_t size);
int etwctl_time_parse(const char *s, int64_t start, int64_t *ft);

enum etwctl_format {
	ETWCTL_FORMAT_TABLE,
	ETWCTL_FORMAT_CSV,
	ETWCTL_FORMAT_JSON,
};

/* ---------------------------------------------------------------------- */
/* print.c */

struct etwctl_column;
struct etwctl_spans;

/**
 * struct etwctl_output - how events are printed
 * @format: table, CSV or JSON
 * @cols: the columns, in order (--fields, or the format's default)
 * @ncols: entries at @cols
 * @need_fields: a column shows the event's fields
 * @spec: the --fields text the columns' names point into
 * @symbols: the image map stacks are symbolised with, or NULL for hex
 *	(set and freed by the command)
 * @spans: the text of runs of columns for kinds of rows (print.c), or
 *	NULL
 */
struct etwctl_output {
	enum etwctl_format format;
	struct etwctl_column *cols;
	size_t ncols;
	bool need_fields;
	char *spec;
	struct etwctl_symbols *symbols;
	struct etwctl_spans *spans;
};

int etwctl_format_parse(const char *s, enum etwctl_format *fmt);
int etwctl_output_setup(const char *cmd, struct etwctl_output *out,
			enum etwctl_format fmt, const char *fields);
void etwctl_output_free(struct etwctl_output *out);
void etwctl_print_begin(FILE *f, const struct etwctl_output *out);
int etwctl_print_event(FILE *f, const struct etwctl_output *out,
		       const struct etw_etl_event *ev);

/* put.c */
/**
 * etwctl_put - write @n bytes of @s to @f
 * @f: the stream
 * @s: the bytes
 * @n: how many
 *
 * etwctl writes its output from one thread: no stream lock.  A line is
 * made of many short pieces; while the stream's buffer has room they are
 * copied into it the way glibc's inline putc_unlocked() stores a byte,
 * not through fwrite()'s call into the stream's vtable.  A line-buffered
 * or unbuffered stream shows no room, so its writes all take fwrite,
 * which flushes them as their mode asks.  Inline: a row is dozens of
 * these, and a constant @n makes the copy a move or two.
 */
static inline void etwctl_put(FILE *f, const char *s, size_t n)
{
	/* A line-buffered stream's pointer runs past the end it shows. */
	if (f->_IO_write_ptr < f->_IO_write_end &&
	    (size_t)(f->_IO_write_end - f->_IO_write_ptr) >= n) {
		memcpy(f->_IO_write_ptr, s, n);
		f->_IO_write_ptr += n;
		return;
	}
	fwrite_unlocked(s, 1, n, f);
}

/**
 * etwctl_room - where @n bytes go in @f's buffer, if it has room
 * @f: the stream
 * @n: how many
 *
 * The writer stores them there itself and moves f->_IO_write_ptr past
 * them: numbers are written in place rather than copied.
 *
 * Return: the first byte, or NULL when the buffer (or a line-buffered or
 * unbuffered stream, which shows none) has no room: write through
 * etwctl_put() then.
 */
static inline char *etwctl_room(FILE *f, size_t n)
{
	if (f->_IO_write_ptr < f->_IO_write_end &&
	    (size_t)(f->_IO_write_end - f->_IO_write_ptr) >= n)
		return f->_IO_write_ptr;
	return NULL;
}

/* The widest padding etwctl_put_u64() writes in place. */
#define ETWCTL_PAD_MAX		32

/* "0x" and 16 hex digits: the most etwctl_hex_u64_text() writes. */
#define ETWCTL_HEX_LEN		18

size_t etwctl_u64_digits(uint64_t v);
size_t etwctl_hex_u64_text(uint64_t v, char *out);
size_t etwctl_u64_text(uint64_t v, char *out);
void etwctl_dec_fixed(uint64_t v, size_t n, char *out);
/* Each byte's two hex digits: [0] lower case, [1] upper case (put.c). */
extern const char etwctl_hex_pairs[2][256][2];
void etwctl_hex_text(const uint8_t *p, size_t n, bool upper, char *out);

/*
 * The scans of text for JSON, inline: decode.c's quoted values and put.c's
 * JSON strings run them on every string, where a call costs about what a
 * short scan does and makes the caller keep more registers across it.
 */

/**
 * etwctl_utf8_len - the length of the UTF-8 sequence at @p
 * @p: NUL-terminated bytes
 *
 * ANSI strings in events are bytes of any code page; JSON output must be
 * UTF-8, so invalid sequences are replaced by U+FFFD there.
 *
 * Return: 1-4 for a valid (shortest-form, non-surrogate) sequence, 0 for
 * an invalid one.
 */
static inline int etwctl_utf8_len(const unsigned char *p)
{
	uint32_t cp;
	int n, i;

	if (*p < 0x80)
		return 1;
	if ((*p & 0xe0) == 0xc0)
		n = 2, cp = *p & 0x1f;
	else if ((*p & 0xf0) == 0xe0)
		n = 3, cp = *p & 0x0f;
	else if ((*p & 0xf8) == 0xf0)
		n = 4, cp = *p & 0x07;
	else
		return 0;
	for (i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (p[i] & 0x3f);
	}
	if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) ||
	    (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp < 0xe000))
		return 0;
	return n;
}

extern const bool etwctl_json_plain_bytes[256];

/**
 * etwctl_json_plain - the run of bytes at @p a JSON string keeps as is
 * @p: NUL-terminated bytes
 *
 * Printable ASCII other than '"' and '\\': what most text is made of,
 * copied in one go instead of a character at a time.
 *
 * Return: the length of the run, 0 when @p needs escaping or is not ASCII.
 */
static inline size_t etwctl_json_plain(const unsigned char *p)
{
	const unsigned char *q = p;

	while (etwctl_json_plain_bytes[*q])
		q++;
	return (size_t)(q - p);
}

void etwctl_puts(FILE *f, const char *s);
void etwctl_put_u64(FILE *f, uint64_t v, int width);
void etwctl_put_hex(FILE *f, uint64_t v);
void etwctl_json_string(FILE *f, const char *s);

/**
 * struct etwctl_event_text - an event's text columns, as dump prints them
 * @names: what its schema names (the provider also from its traits)
 * @provider_guid: provider GUID
 * @activity: activity GUID, or "" when zero
 * @related: related activity GUID, or "" when absent
 * @message: provider, event name, id and fields on one line, as the
 *	table shows them (malloc'ed)
 */
struct etwctl_event_text {
	struct etwctl_names names;
	char provider_guid[ETWCTL_GUID_LEN];
	char activity[ETWCTL_GUID_LEN];
	char related[ETWCTL_GUID_LEN];
	char *message;
};

int etwctl_event_visit(const struct etw_etl_event *ev, etwctl_field_fn fn,
		       void *ctx, struct etwctl_event_text *text);

/* print_ext.c */
struct etwctl_symbols;

void etwctl_print_ext(FILE *f, const struct etw_etl_event *ev, bool json,
		      struct etwctl_symbols *syms);
int etwctl_symbols_setup(const char *cmd, const char *kallsyms,
			 struct etwctl_symbols **out);
bool etwctl_event_has_stack(const struct etw_etl_event *ev);
bool etwctl_image_wants(const struct etw_etl_event *ev);
int etwctl_image_event(struct etwctl_symbols *syms,
		       const struct etw_etl_event *ev);

/* ---------------------------------------------------------------------- */
/* source.c: events from files (time-ordered) or from a live session */

struct etwctl_source;

int etwctl_source_open_files(char *const *paths, unsigned int count,
			     struct etwctl_source **out, const char **bad);
int etwctl_source_open_session(const char *name, bool follow,
			       struct etwctl_source **out);
int etwctl_source_next(struct etwctl_source *src, struct etw_etl_event *ev);
int64_t etwctl_source_start_time(const struct etwctl_source *src);
void etwctl_source_progress(const struct etwctl_source *src,
			    const char *what, const struct etw_etl_event *ev);
void etwctl_source_close(struct etwctl_source *src);
bool etwctl_event_is_metadata(const struct etw_etl_event *ev);
struct etwctl_stacks;

/* export_speedscope.c */
int etwctl_export_speedscope(FILE *out, char **files, unsigned int nfiles,
			     bool folded);

int etwctl_source_prepass(char *const *paths, unsigned int count,
			  struct etwctl_symbols *syms,
			  struct etwctl_stacks *stacks);
int etwctl_source_join(struct etwctl_source *src, char *const *paths,
		       unsigned int count, struct etwctl_stacks *stacks);

int etwctl_session_logger_id(const char *name, uint32_t *logger_id,
			     uint32_t *buffer_kb);

/* ---------------------------------------------------------------------- */
/* journal_export.c: events in the systemd Journal Export Format */

/**
 * struct etwctl_jbuf - a growing byte buffer
 * @data: the bytes (malloc'ed)
 * @len: bytes in use
 * @cap: bytes allocated
 */
struct etwctl_jbuf {
	char *data;
	size_t len;
	size_t cap;
};

void etwctl_jbuf_free(struct etwctl_jbuf *b);
int etwctl_journal_field(struct etwctl_jbuf *b, const char *name,
			 const char *value, size_t len);
void etwctl_journal_field_name(const char *name, char *out, size_t size);
int etwctl_journal_priority(uint8_t level);
int etwctl_journal_entry(struct etwctl_jbuf *b,
			 const struct etw_etl_event *ev, const char *session);

/* ---------------------------------------------------------------------- */
/* forward_spool.c: batches waiting on disk for the collector */

struct etwctl_spool;

/*
 * The collector a spool's batches are for.
 * @url: where they are POSTed
 * @unix_socket: the UNIX socket the collector is reached through, or NULL
 */
struct etwctl_spool_dest {
	const char *url;
	const char *unix_socket;
};

int etwctl_spool_open(const char *dir, uint64_t max_bytes,
		      struct etwctl_spool **out);
int etwctl_spool_bind(struct etwctl_spool *sp,
		      const struct etwctl_spool_dest *dest, char **recorded);
int etwctl_spool_put(struct etwctl_spool *sp, const void *data, size_t len,
		     uint32_t events);
int etwctl_spool_peek(struct etwctl_spool *sp, struct etwctl_jbuf *b,
		      uint32_t *events);
int etwctl_spool_pop(struct etwctl_spool *sp);
size_t etwctl_spool_batches(const struct etwctl_spool *sp);
uint64_t etwctl_spool_events(const struct etwctl_spool *sp);
void etwctl_spool_close(struct etwctl_spool *sp);

/* ---------------------------------------------------------------------- */
/* cmd_providers.c */

int etwctl_provider_resolve(const struct etwctl_provider_spec *spec,
			    GUID *guid);

/* ---------------------------------------------------------------------- */
/* cmd_session.c */

int etwctl_session_handle(const char *name, CONTROLTRACE_ID *id);

#endif /* _ETWCTL_H */
