// SPDX-License-Identifier: GPL-2.0
/*
 * print.c: one event as a table row, a CSV record or a JSON object.
 *
 * The columns are the EVENT_HEADER's (time, CPU, process, thread,
 * provider, descriptor, activity IDs) and the payload: TraceLogging
 * events as named fields, string-only events as their string, anything
 * else as hex.  CSV follows RFC 4180 (a header line, fields quoted when
 * needed); JSON is one array with an object per event, one per line.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "etwctl.h"

struct etwctl_field {
	char *name;
	char *value;
	bool quoted;
};

struct etwctl_fields {
	struct etwctl_field *v;
	size_t n;
	size_t cap;
	bool oom;
};

/* The text columns of one event; numbers are printed directly. */
struct etwctl_row {
	char time[40];
	char provider[ETWCTL_GUID_LEN];
	char provider_name[256];
	char name[256];
	char activity[ETWCTL_GUID_LEN];
	char related[ETWCTL_GUID_LEN];
	struct etwctl_fields fields;
	bool decoded;
	char *text;
};

static const char *const etwctl_csv_columns =
	"time,cpu,pid,tid,provider,provider_name,name,id,version,level,"
	"opcode,task,keywords,activity_id,related_activity_id,payload\n";

/**
 * etwctl_format_parse - "table", "csv" or "json"
 * @s: the text
 * @fmt: out: the format
 *
 * Return: 0, or -EINVAL.
 */
int etwctl_format_parse(const char *s, enum etwctl_format *fmt)
{
	if (!strcasecmp(s, "table"))
		*fmt = ETWCTL_FORMAT_TABLE;
	else if (!strcasecmp(s, "csv"))
		*fmt = ETWCTL_FORMAT_CSV;
	else if (!strcasecmp(s, "json"))
		*fmt = ETWCTL_FORMAT_JSON;
	else
		return -EINVAL;
	return 0;
}

static void etwctl_field_add(void *ctx, const char *name, const char *value,
			     bool quoted)
{
	struct etwctl_fields *fs = ctx;
	struct etwctl_field *v;

	if (fs->oom)
		return;
	if (fs->n == fs->cap) {
		v = realloc(fs->v, (fs->cap ? fs->cap * 2 : 8) * sizeof(*v));
		if (!v) {
			fs->oom = true;
			return;
		}
		fs->v = v;
		fs->cap = fs->cap ? fs->cap * 2 : 8;
	}
	v = &fs->v[fs->n];
	v->name = strdup(name);
	v->value = strdup(value);
	v->quoted = quoted;
	if (!v->name || !v->value) {
		free(v->name);
		free(v->value);
		fs->oom = true;
		return;
	}
	fs->n++;
}

static void etwctl_fields_free(struct etwctl_fields *fs)
{
	size_t i;

	for (i = 0; i < fs->n; i++) {
		free(fs->v[i].name);
		free(fs->v[i].value);
	}
	free(fs->v);
	memset(fs, 0, sizeof(*fs));
}

static const struct etw_etl_ext *etwctl_ext(const struct etw_etl_event *ev,
					    uint16_t type)
{
	uint32_t i;

	for (i = 0; i < ev->ext_count; i++)
		if (ev->ext[i].type == type)
			return &ev->ext[i];
	return NULL;
}

static bool etwctl_guid_is_zero(const struct etw_guid *g)
{
	static const struct etw_guid zero;

	return !memcmp(g, &zero, sizeof(zero));
}

static void etwctl_row_guid(const struct etw_guid *g,
			    char out[ETWCTL_GUID_LEN])
{
	GUID guid;

	memcpy(&guid, g, sizeof(guid));
	etwctl_guid_format(&guid, out);
}

/* TraceLogging fields, or false to fall back to hex. */
static bool etwctl_row_tl(struct etwctl_row *row,
			  const struct etw_etl_event *ev)
{
	if (!etwctl_tl_decode_event(ev, row->name, sizeof(row->name),
				    etwctl_field_add, &row->fields) &&
	    !row->fields.oom)
		return true;
	etwctl_fields_free(&row->fields);
	return false;
}

static int etwctl_row_text(struct etwctl_row *row,
			   const struct etw_etl_event *ev)
{
	const uint8_t *p = ev->user_data;
	uint32_t i;

	if (ev->kind == ETW_ETL_KIND_EVENT &&
	    (ev->flags & ETW_EVENT_FLAG_STRING_ONLY)) {
		row->text = etw_etl_utf16_to_utf8(p, ev->user_data_len / 2);
		return row->text ? 0 : -ENOMEM;
	}
	row->text = malloc(2 * ev->user_data_len + 1);
	if (!row->text)
		return -ENOMEM;
	/* A table, not sprintf: dump spends its time here on big files. */
	for (i = 0; i < ev->user_data_len; i++) {
		row->text[2 * i] = "0123456789abcdef"[p[i] >> 4];
		row->text[2 * i + 1] = "0123456789abcdef"[p[i] & 0xf];
	}
	row->text[2 * i] = 0;
	return 0;
}

static int etwctl_row_fill(struct etwctl_row *row,
			   const struct etw_etl_event *ev)
{
	const struct etw_etl_ext *x;

	memset(row, 0, sizeof(*row));
	etwctl_filetime_format(ev->timestamp, row->time, sizeof(row->time));
	etwctl_row_guid(&ev->provider_id, row->provider);
	x = etwctl_ext(ev, ETW_EXT_PROV_TRAITS);
	if (x)
		etwctl_traits_name(x->data, x->size, row->provider_name,
				   sizeof(row->provider_name));
	if (!etwctl_guid_is_zero(&ev->activity_id))
		etwctl_row_guid(&ev->activity_id, row->activity);
	x = etwctl_ext(ev, ETW_EXT_RELATED_ACTIVITYID);
	if (x && x->size >= sizeof(struct etw_guid))
		etwctl_row_guid(x->data, row->related);
	row->decoded = etwctl_row_tl(row, ev);
	return row->decoded ? 0 : etwctl_row_text(row, ev);
}

static void etwctl_row_free(struct etwctl_row *row)
{
	etwctl_fields_free(&row->fields);
	free(row->text);
}

/**
 * etwctl_json_string - write @s as a JSON string literal
 * @f: the stream
 * @s: text; bytes that are not UTF-8 become U+FFFD
 */
void etwctl_json_string(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	int n;

	fputc('"', f);
	for (; *p; p += n ? n : 1) {
		n = etwctl_utf8_len(p);
		if (!n)
			fputs("\\ufffd", f);
		else if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p == '\n')
			fputs("\\n", f);
		else if (*p == '\r')
			fputs("\\r", f);
		else if (*p == '\t')
			fputs("\\t", f);
		else if (*p < 0x20)
			fprintf(f, "\\u%04x", *p);
		else
			fwrite(p, 1, (size_t)n, f);
	}
	fputc('"', f);
}

/* The payload as one text: "name=value ..." or the hex/string text. */
static void etwctl_payload_text(FILE *f, const struct etwctl_row *row)
{
	size_t i;

	if (!row->decoded) {
		fputs(row->text, f);
		return;
	}
	for (i = 0; i < row->fields.n; i++) {
		fprintf(f, "%s%s=", i ? " " : "", row->fields.v[i].name);
		if (row->fields.v[i].quoted)
			etwctl_json_string(f, row->fields.v[i].value);
		else
			fputs(row->fields.v[i].value, f);
	}
}

static const char *etwctl_or_dash(const char *s)
{
	return *s ? s : "-";
}

static void etwctl_print_table(FILE *f, const struct etw_etl_event *ev,
			       const struct etwctl_row *row)
{
	fprintf(f, "%s %3u %7u %7u %s %s id=%u v=%u lvl=%u op=%u task=%u "
		"kw=0x%llx act=%s ", row->time, ev->processor_index,
		ev->process_id, ev->thread_id,
		*row->provider_name ? row->provider_name : row->provider,
		etwctl_or_dash(row->name), ev->descriptor.id,
		ev->descriptor.version, ev->descriptor.level,
		ev->descriptor.opcode, ev->descriptor.task,
		(unsigned long long)ev->descriptor.keyword,
		etwctl_or_dash(row->activity));
	etwctl_print_ext(f, ev, false);
	etwctl_payload_text(f, row);
	fputc('\n', f);
}

/* A CSV field: quoted, with quotes doubled. */
static void etwctl_csv_field(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputs("\",", f);
}

static void etwctl_print_csv(FILE *f, const struct etw_etl_event *ev,
			     const struct etwctl_row *row)
{
	char *text = NULL;
	size_t len = 0, i;
	FILE *mem;

	fprintf(f, "%s,%u,%u,%u,%s,", row->time, ev->processor_index,
		ev->process_id, ev->thread_id, row->provider);
	etwctl_csv_field(f, row->provider_name);
	etwctl_csv_field(f, row->name);
	fprintf(f, "%u,%u,%u,%u,%u,0x%llx,%s,%s,", ev->descriptor.id,
		ev->descriptor.version, ev->descriptor.level,
		ev->descriptor.opcode, ev->descriptor.task,
		(unsigned long long)ev->descriptor.keyword, row->activity,
		row->related);
	mem = open_memstream(&text, &len);
	if (mem) {
		etwctl_payload_text(mem, row);
		fclose(mem);
	}
	fputc('"', f);
	for (i = 0; text && i < len; i++) {
		if (text[i] == '"')
			fputc('"', f);
		fputc(text[i], f);
	}
	fputs("\"\n", f);
	free(text);
}

static void etwctl_print_json(FILE *f, const struct etw_etl_event *ev,
			      const struct etwctl_row *row, bool first)
{
	size_t i;

	fprintf(f, "%s{\"time\":\"%s\",\"cpu\":%u,\"pid\":%u,\"tid\":%u,"
		"\"provider\":\"%s\",\"provider_name\":", first ? "" : ",\n",
		row->time, ev->processor_index, ev->process_id,
		ev->thread_id, row->provider);
	etwctl_json_string(f, row->provider_name);
	fputs(",\"name\":", f);
	etwctl_json_string(f, row->name);
	etwctl_print_ext(f, ev, true);
	fprintf(f, ",\"id\":%u,\"version\":%u,\"level\":%u,\"opcode\":%u,"
		"\"task\":%u,\"keywords\":\"0x%llx\",\"activity_id\":\"%s\","
		"\"related_activity_id\":\"%s\",\"payload\":",
		ev->descriptor.id, ev->descriptor.version,
		ev->descriptor.level, ev->descriptor.opcode,
		ev->descriptor.task, (unsigned long long)ev->descriptor.keyword,
		row->activity, row->related);
	if (!row->decoded) {
		etwctl_json_string(f, row->text);
		fputc('}', f);
		return;
	}
	fputc('{', f);
	for (i = 0; i < row->fields.n; i++) {
		if (i)
			fputc(',', f);
		etwctl_json_string(f, row->fields.v[i].name);
		fputc(':', f);
		if (row->fields.v[i].quoted)
			etwctl_json_string(f, row->fields.v[i].value);
		else
			fputs(row->fields.v[i].value, f);
	}
	fputs("}}", f);
}

/**
 * etwctl_print_begin - what comes before the first event
 * @f: the stream
 * @fmt: the format
 */
void etwctl_print_begin(FILE *f, enum etwctl_format fmt)
{
	if (fmt == ETWCTL_FORMAT_CSV)
		fputs(etwctl_csv_columns, f);
	else if (fmt == ETWCTL_FORMAT_JSON)
		fputs("[\n", f);
}

/**
 * etwctl_print_event - print one event
 * @f: the stream
 * @fmt: the format
 * @ev: the event
 * @first: it is the first event printed (JSON separates the others)
 *
 * Return: 0, or -ENOMEM.
 */
int etwctl_print_event(FILE *f, enum etwctl_format fmt,
		       const struct etw_etl_event *ev, bool first)
{
	struct etwctl_row row;
	int ret;

	ret = etwctl_row_fill(&row, ev);
	if (ret) {
		etwctl_row_free(&row);
		return ret;
	}
	if (fmt == ETWCTL_FORMAT_TABLE)
		etwctl_print_table(f, ev, &row);
	else if (fmt == ETWCTL_FORMAT_CSV)
		etwctl_print_csv(f, ev, &row);
	else
		etwctl_print_json(f, ev, &row, first);
	etwctl_row_free(&row);
	return 0;
}

/**
 * etwctl_print_end - what comes after the last event
 * @f: the stream
 * @fmt: the format
 */
void etwctl_print_end(FILE *f, enum etwctl_format fmt)
{
	if (fmt == ETWCTL_FORMAT_JSON)
		fputs("\n]\n", f);
}
