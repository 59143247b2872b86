/* SPDX-License-Identifier: GPL-2.0 */
/*
 * etwctl internals: the commands, the helpers they share, the provider
 * spec parser and the event decoder.  Not installed.
 *
 * Every command returns its exit status: 0 on success, ETWCTL_EXIT_RUNTIME
 * when the operation failed, ETWCTL_EXIT_USAGE for bad arguments.  Errors
 * are one line on stderr, printed by etwctl_fail() or etwctl_usage().
 */
#ifndef _ETWCTL_H
#define _ETWCTL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <windows.h>
#include <evntrace.h>
#include <evntcons.h>

#include "etw_etl.h"

#define ETWCTL_EXIT_RUNTIME	1
#define ETWCTL_EXIT_USAGE	2

/* "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" and its NUL. */
#define ETWCTL_GUID_LEN		37

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

/*
 * Receives one decoded field: @name (dotted for struct members, indexed
 * for struct arrays) and @value as text.  @quoted says whether the value
 * is a string (JSON quotes it) or a number, boolean or array literal.
 */
typedef void (*etwctl_field_fn)(void *ctx, const char *name,
				const char *value, bool quoted);

int etwctl_tl_event_name(const void *meta, size_t len, char *out,
			 size_t size);
int etwctl_tl_decode(const void *meta, size_t meta_len, const void *data,
		     size_t len, etwctl_field_fn fn, void *ctx);
int etwctl_tl_decode_event(const struct etw_etl_event *ev, char *name,
			   size_t size, etwctl_field_fn fn, void *ctx);
int etwctl_traits_name(const void *traits, size_t len, char *out,
		       size_t size);
void etwctl_filetime_format(int64_t ft, char *out, size_t size);
int etwctl_time_parse(const char *s, int64_t start, int64_t *ft);
int etwctl_utf8_len(const unsigned char *p);

enum etwctl_format {
	ETWCTL_FORMAT_TABLE,
	ETWCTL_FORMAT_CSV,
	ETWCTL_FORMAT_JSON,
};

/* print.c */
int etwctl_format_parse(const char *s, enum etwctl_format *fmt);
void etwctl_print_begin(FILE *f, enum etwctl_format fmt);
int etwctl_print_event(FILE *f, enum etwctl_format fmt,
		       const struct etw_etl_event *ev, bool first);
void etwctl_print_end(FILE *f, enum etwctl_format fmt);
void etwctl_json_string(FILE *f, const char *s);

/* print_ext.c */
void etwctl_print_ext(FILE *f, const struct etw_etl_event *ev, bool json);

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

int etwctl_session_logger_id(const char *name, uint32_t *logger_id,
			     uint32_t *buffer_kb);

/* ---------------------------------------------------------------------- */
/* cmd_providers.c */

int etwctl_provider_resolve(const struct etwctl_provider_spec *spec,
			    GUID *guid);

/* ---------------------------------------------------------------------- */
/* cmd_session.c */

int etwctl_session_handle(const char *name, CONTROLTRACE_ID *id);

#endif /* _ETWCTL_H */
