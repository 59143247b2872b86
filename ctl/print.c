// SPDX-License-Identifier: GPL-2.0
/*
 * print.c: one event as a table row, a CSV record or a JSON object, with
 * the columns --fields chose.
 *
 * The header columns come from the EVENT_HEADER (time, CPU, process,
 * thread, provider, descriptor, activity IDs), with the names the event's
 * schema gives for provider, event, channel, level, task, opcode and
 * keywords, and numbers where it gives none.  The event's fields are one
 * column ("fields": TraceLogging and manifest events as named fields,
 * string-only events as their string, anything else as hex) or one column
 * each ("fields.NAME").  CSV follows RFC 4180 (a header line, fields
 * quoted when they hold a comma, a quote or a line break); JSON is one
 * object per line.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "etwctl.h"

/* The columns --fields names; ETWCTL_COL_PROPERTY is "fields.NAME". */
enum etwctl_col {
	ETWCTL_COL_TIME,
	ETWCTL_COL_CPU,
	ETWCTL_COL_PID,
	ETWCTL_COL_TID,
	ETWCTL_COL_PROVIDER,
	ETWCTL_COL_PROVIDER_GUID,
	ETWCTL_COL_EVENT,
	ETWCTL_COL_ID,
	ETWCTL_COL_VERSION,
	ETWCTL_COL_CHANNEL,
	ETWCTL_COL_LEVEL,
	ETWCTL_COL_OPCODE,
	ETWCTL_COL_TASK,
	ETWCTL_COL_KEYWORDS,
	ETWCTL_COL_ACTIVITY,
	ETWCTL_COL_RELATED_ACTIVITY,
	ETWCTL_COL_FIELDS,
	ETWCTL_COL_PROPERTY,
};

/*
 * @name: the name in --fields, CSV headers and JSON keys
 * @label: what precedes the value in a table row
 * @width: the value's minimum width in a table row
 */
static const struct {
	const char *name;
	const char *label;
	int width;
} etwctl_cols[] = {
	[ETWCTL_COL_TIME] = { "time", "", 0 },
	[ETWCTL_COL_CPU] = { "cpu", "", 3 },
	[ETWCTL_COL_PID] = { "pid", "", 7 },
	[ETWCTL_COL_TID] = { "tid", "", 7 },
	[ETWCTL_COL_PROVIDER] = { "provider", "", 0 },
	[ETWCTL_COL_PROVIDER_GUID] = { "provider_guid", "", 0 },
	[ETWCTL_COL_EVENT] = { "event", "", 0 },
	[ETWCTL_COL_ID] = { "id", "id=", 0 },
	[ETWCTL_COL_VERSION] = { "version", "v=", 0 },
	[ETWCTL_COL_CHANNEL] = { "channel", "ch=", 0 },
	[ETWCTL_COL_LEVEL] = { "level", "lvl=", 0 },
	[ETWCTL_COL_OPCODE] = { "opcode", "op=", 0 },
	[ETWCTL_COL_TASK] = { "task", "task=", 0 },
	[ETWCTL_COL_KEYWORDS] = { "keywords", "kw=", 0 },
	[ETWCTL_COL_ACTIVITY] = { "activity", "act=", 0 },
	[ETWCTL_COL_RELATED_ACTIVITY] = { "related_activity", "rel=", 0 },
	[ETWCTL_COL_FIELDS] = { "fields", "", 0 },
};

#define ETWCTL_NCOLS	ETWCTL_COL_PROPERTY
/* A lead this long or shorter is copied as this many bytes: one move. */
#define ETWCTL_LEAD_COPY	16
#define ETWCTL_PROP_PREFIX	"fields."

/* A table row keeps the layout etwctl always had; CSV and JSON get all. */
static const char etwctl_table_default[] =
	"time,cpu,pid,tid,provider,event,id,version,level,opcode,task,"
	"keywords,activity,fields";
static const char etwctl_full_default[] =
	"time,cpu,pid,tid,provider,provider_guid,event,id,version,channel,"
	"level,opcode,task,keywords,activity,related_activity,fields";

/*
 * @id: which column
 * @name: as given in --fields (points into etwctl_output.spec)
 * @prop: ETWCTL_COL_PROPERTY: the field's name
 * @lead: what precedes its value in a row, @lead_len bytes (malloc'ed,
 *	NUL-padded to at least ETWCTL_LEAD_COPY): the separator and the
 *	table's label or the JSON key, made once rather than for every row
 * @run: for the first of two or more fixed columns in a row
 *	(etwctl_col_fixed()), how many there are; else 0
 */
struct etwctl_column {
	enum etwctl_col id;
	const char *name;
	const char *prop;
	char *lead;
	size_t lead_len;
	size_t run;
};

/*
 * The columns a row shows from its schema's names, its descriptor and
 * its provider GUID alone, which the events of one kind share: a run of
 * them is written once for a kind (struct etwctl_spans) and copied for
 * the next rows of that kind, where each cell took a few dozen
 * instructions of every row.  A kernel trace has hundreds of kinds (a
 * schema per StackWalk frame count).
 */
#define ETWCTL_SPAN_SLOTS	256
/* A run's text longer than this is written every time. */
#define ETWCTL_SPAN_MAX		256

/*
 * A kind of row, what the fixed columns show is a function of: its
 * names' schema number, its descriptor and its provider GUID, as words.
 */
#define ETWCTL_SPAN_KEY		5

/* The text of the run at column @col for rows of @key; @len 0: free. */
struct etwctl_span {
	uint64_t key[ETWCTL_SPAN_KEY];
	size_t col;
	size_t len;
	char text[ETWCTL_SPAN_MAX];
};

/*
 * @slot: a direct-mapped table of runs' texts
 * @mem: the stream a run is written to first, its text in @text (@len
 *	bytes once flushed)
 */
struct etwctl_spans {
	struct etwctl_span slot[ETWCTL_SPAN_SLOTS];
	FILE *mem;
	char *text;
	size_t len;
};

/*
 * @name and @value point into etwctl_fields.text once it is sealed;
 * @name_len and @value_len are their lengths; @quoted and @plain as
 * struct etwctl_field_text's.
 */
struct etwctl_field {
	char *name;
	char *value;
	size_t name_off;
	size_t value_off;
	size_t name_len;
	size_t value_len;
	bool quoted;
	bool plain;
};

/*
 * An event's fields: @v, and their names and values one after another in
 * @text (two allocations an event, not one per field).
 */
struct etwctl_fields {
	struct etwctl_field *v;
	size_t n;
	size_t cap;
	char *text;
	size_t used;
	size_t size;
	bool oom;
};

/*
 * One event's values; numbers are read from the event itself.  @names:
 * its schema's (decode.c's, until the next event), or @own, a copy with
 * the provider name of its traits.  @keyed: its fixed columns are those
 * of its kind (etwctl_span_key()): its names are its schema's, not
 * its own or its provider traits'.
 */
struct etwctl_row {
	const struct etw_etl_event *ev;
	char time[40];
	char provider_guid[ETWCTL_GUID_LEN];
	char activity[ETWCTL_GUID_LEN];
	char related[ETWCTL_GUID_LEN];
	const struct etwctl_names *names;
	struct etwctl_names own;
	struct etwctl_fields fields;
	bool decoded;
	bool keyed;
	char *text;
	size_t text_len;
	bool text_plain;
};

/*
 * A value as each format shows it.  NONE: "-", an empty CSV field, JSON
 * null.  UINT: a number.  HEX: "0x..." (a JSON string).  TEXT: as is
 * (JSON: a string).  PLAIN: TEXT of @len bytes that no format escapes or
 * quotes (times and GUIDs).  VALUE: a field's value of @len bytes,
 * @quoted when a string (a JSON string, JSON-quoted in a table; @plain
 * when it needs no escapes), else a JSON literal.
 */
enum etwctl_cell_kind {
	ETWCTL_CELL_NONE,
	ETWCTL_CELL_UINT,
	ETWCTL_CELL_HEX,
	ETWCTL_CELL_TEXT,
	ETWCTL_CELL_PLAIN,
	ETWCTL_CELL_VALUE,
};

struct etwctl_cell {
	enum etwctl_cell_kind kind;
	uint64_t u;
	const char *s;
	size_t len;
	bool quoted;
	bool plain;
};

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

static bool etwctl_col_fixed(enum etwctl_col id)
{
	switch (id) {
	case ETWCTL_COL_PROVIDER:
	case ETWCTL_COL_PROVIDER_GUID:
	case ETWCTL_COL_EVENT:
	case ETWCTL_COL_ID:
	case ETWCTL_COL_VERSION:
	case ETWCTL_COL_CHANNEL:
	case ETWCTL_COL_LEVEL:
	case ETWCTL_COL_OPCODE:
	case ETWCTL_COL_TASK:
	case ETWCTL_COL_KEYWORDS:
		return true;
	default:
		return false;
	}
}

/* Each run of two or more fixed columns: its length at its first. */
static void etwctl_runs_mark(struct etwctl_output *out)
{
	size_t i, j;

	for (i = 0; i < out->ncols; i = j + 1) {
		for (j = i; j < out->ncols && etwctl_col_fixed(out->cols[j].id);
		     j++)
			;
		if (j - i >= 2)
			out->cols[i].run = j - i;
	}
}

/* The column @name stands for, or -EINVAL. */
static int etwctl_column_parse(char *name, struct etwctl_column *col)
{
	size_t plen = strlen(ETWCTL_PROP_PREFIX);
	int i;

	col->name = name;
	col->prop = NULL;
	if (!strncmp(name, ETWCTL_PROP_PREFIX, plen) && name[plen]) {
		col->id = ETWCTL_COL_PROPERTY;
		col->prop = name + plen;
		return 0;
	}
	for (i = 0; i < ETWCTL_NCOLS; i++) {
		if (!strcmp(name, etwctl_cols[i].name)) {
			col->id = (enum etwctl_col)i;
			return 0;
		}
	}
	return -EINVAL;
}

/*
 * Splits @out->spec at its commas into @out->cols.  Return: 0; -EINVAL
 * for an unknown or empty name, -EEXIST for one given twice, with *@bad
 * the name at fault; -ENOMEM.
 */
static int etwctl_columns_parse(struct etwctl_output *out, const char **bad)
{
	size_t n = 1, i, k;
	char *p, *name;

	for (p = out->spec; *p; p++)
		n += *p == ',';
	out->cols = calloc(n, sizeof(*out->cols));
	if (!out->cols)
		return -ENOMEM;
	for (p = out->spec, i = 0; i < n; i++) {
		name = p;
		*bad = name;
		p += strcspn(p, ",");
		if (*p)
			*p++ = 0;
		if (etwctl_column_parse(name, &out->cols[i]))
			return -EINVAL;
		for (k = 0; k < i; k++)
			if (!strcmp(out->cols[k].name, name))
				return -EEXIST;
		out->need_fields |= out->cols[i].id >= ETWCTL_COL_FIELDS;
		out->ncols++;
	}
	etwctl_runs_mark(out);
	return 0;
}

/*
 * What precedes column @i's value in a row: its separator, and its label
 * in a table or its key in JSON.
 */
static void etwctl_lead_write(FILE *f, const struct etwctl_output *out,
			      size_t i)
{
	const struct etwctl_column *col = &out->cols[i];

	switch (out->format) {
	case ETWCTL_FORMAT_TABLE:
		if (i)
			putc(' ', f);
		if (col->id == ETWCTL_COL_PROPERTY)
			fprintf(f, "%s=", col->prop);
		else
			fputs(etwctl_cols[col->id].label, f);
		break;
	case ETWCTL_FORMAT_CSV:
		if (i)
			putc(',', f);
		break;
	case ETWCTL_FORMAT_JSON:
		/* A property's name comes from --fields: it may need escapes. */
		putc(i ? ',' : '{', f);
		if (col->id == ETWCTL_COL_PROPERTY)
			etwctl_json_string(f, col->name);
		else
			fprintf(f, "\"%s\"", col->name);
		putc(':', f);
		break;
	}
}

/* Every column's lead; -ENOMEM. */
static int etwctl_leads_make(struct etwctl_output *out)
{
	struct etwctl_column *col;
	FILE *mem;
	size_t i;
	char *lead;

	for (i = 0; i < out->ncols; i++) {
		col = &out->cols[i];
		mem = open_memstream(&col->lead, &col->lead_len);
		if (!mem)
			return -ENOMEM;
		etwctl_lead_write(mem, out, i);
		if (fclose(mem))
			return -ENOMEM;
		if (col->lead_len >= ETWCTL_LEAD_COPY)
			continue;
		lead = realloc(col->lead, ETWCTL_LEAD_COPY);
		if (!lead)
			return -ENOMEM;
		memset(lead + col->lead_len, 0,
		       ETWCTL_LEAD_COPY - col->lead_len);
		col->lead = lead;
	}
	return 0;
}

/* The table of runs' texts, when the columns have a run. */
static int etwctl_spans_make(struct etwctl_output *out)
{
	size_t i;

	for (i = 0; i < out->ncols && !out->cols[i].run; i++)
		;
	if (i == out->ncols)
		return 0;
	out->spans = calloc(1, sizeof(*out->spans));
	return out->spans ? 0 : -ENOMEM;
}

/**
 * etwctl_output_setup - the output of dump or view, from --fields
 * @cmd: the command, for the messages
 * @out: out: the output, to etwctl_output_free()
 * @fmt: the format
 * @fields: the --fields list, or NULL for the format's default columns
 *
 * Return: 0, or the exit status after a one-line message: a usage error
 * for an unknown, empty or repeated column name.
 */
int etwctl_output_setup(const char *cmd, struct etwctl_output *out,
			enum etwctl_format fmt, const char *fields)
{
	const char *bad = NULL;
	int ret;

	memset(out, 0, sizeof(*out));
	out->format = fmt;
	if (!fields)
		fields = fmt == ETWCTL_FORMAT_TABLE ? etwctl_table_default :
						      etwctl_full_default;
	out->spec = strdup(fields);
	ret = out->spec ? etwctl_columns_parse(out, &bad) : -ENOMEM;
	if (!ret)
		ret = etwctl_leads_make(out);
	if (!ret)
		ret = etwctl_spans_make(out);
	if (!ret)
		return 0;
	if (ret == -ENOMEM)
		ret = etwctl_fail(cmd, "out of memory");
	else if (!*bad)
		ret = etwctl_usage(cmd, "empty column name in --fields");
	else if (ret == -EEXIST)
		ret = etwctl_usage(cmd, "column '%s' given twice in --fields",
				   bad);
	else
		ret = etwctl_usage(cmd, "unknown column '%s' in --fields",
				   bad);
	etwctl_output_free(out);
	return ret;
}

/**
 * etwctl_output_free - frees what etwctl_output_setup() allocated
 * @out: the output
 */
void etwctl_output_free(struct etwctl_output *out)
{
	size_t i;

	for (i = 0; i < out->ncols; i++)
		free(out->cols[i].lead);
	free(out->cols);
	free(out->spec);
	if (out->spans) {
		if (out->spans->mem)
			fclose(out->spans->mem);
		free(out->spans->text);
		free(out->spans);
	}
	memset(out, 0, sizeof(*out));
}

/* @len more bytes in @fs->text; false (and @fs->oom) when out of memory. */
static bool etwctl_fields_room(struct etwctl_fields *fs, size_t len)
{
	size_t size = fs->size ? fs->size : 256;
	char *text;

	if (fs->used + len <= fs->size)
		return true;
	while (size < fs->used + len)
		size *= 2;
	text = realloc(fs->text, size);
	if (!text) {
		fs->oom = true;
		return false;
	}
	fs->text = text;
	fs->size = size;
	return true;
}

static void etwctl_field_add(void *ctx, const struct etwctl_field_text *f)
{
	size_t nlen = f->name_len + 1, vlen = f->value_len + 1;
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
	if (!etwctl_fields_room(fs, nlen + vlen))
		return;
	v = &fs->v[fs->n++];
	v->name_off = fs->used;
	v->name_len = nlen - 1;
	memcpy(fs->text + fs->used, f->name, nlen);
	fs->used += nlen;
	v->value_off = fs->used;
	v->value_len = vlen - 1;
	memcpy(fs->text + fs->used, f->value, vlen);
	fs->used += vlen;
	v->quoted = f->quoted;
	v->plain = f->plain;
}

/* The fields' pointers, once @fs->text has stopped moving. */
static void etwctl_fields_seal(struct etwctl_fields *fs)
{
	size_t i;

	for (i = 0; i < fs->n; i++) {
		fs->v[i].name = fs->text + fs->v[i].name_off;
		fs->v[i].value = fs->text + fs->v[i].value_off;
	}
}

/*
 * The buffers of the last event's fields, kept for the next: two mallocs
 * an event fewer.  They grow to what the largest event needs.
 */
static __thread struct etwctl_fields etwctl_fields_spare;

/* @fs empty, on the buffers the last event left. */
static void etwctl_fields_take(struct etwctl_fields *fs)
{
	*fs = etwctl_fields_spare;
	memset(&etwctl_fields_spare, 0, sizeof(etwctl_fields_spare));
	fs->n = 0;
	fs->used = 0;
	fs->oom = false;
}

/* @fs's buffers kept for the next event, or freed if some already are. */
static void etwctl_fields_free(struct etwctl_fields *fs)
{
	if (!etwctl_fields_spare.v && !etwctl_fields_spare.text) {
		etwctl_fields_spare = *fs;
	} else {
		free(fs->v);
		free(fs->text);
	}
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

/*
 * The provider GUID's text: the last one's, kept, when it is the same
 * provider again, as it mostly is.
 */
static void etwctl_row_provider(const struct etw_guid *g,
				char out[ETWCTL_GUID_LEN])
{
	static __thread struct etw_guid last;
	static __thread char text[ETWCTL_GUID_LEN];

	if (!*text || memcmp(g, &last, sizeof(last))) {
		etwctl_row_guid(g, text);
		last = *g;
	}
	memcpy(out, text, ETWCTL_GUID_LEN);
}

/*
 * The schema's names and, when @fields, its fields; row->decoded says
 * whether they are all there (else the payload is shown as text).
 */
static void etwctl_row_decode(struct etwctl_row *row, bool fields)
{
	int ret = etwctl_decode_names(row->ev, &row->names,
				      fields ? etwctl_field_add : NULL,
				      &row->fields);

	row->decoded = !ret && !row->fields.oom;
	if (row->decoded)
		etwctl_fields_seal(&row->fields);
	else
		etwctl_fields_free(&row->fields);
}

/*
 * The text of undecoded rows: one buffer for every row of the thread,
 * which a row's text lasts as long as, not a malloc a row.  It grows to
 * the longest.
 */
static __thread char *etwctl_row_buf;
static __thread size_t etwctl_row_buf_cap;

/*
 * An undecoded row's fields column: a string-only event's string, else
 * its payload in hex, which JSON keeps as it is (@row->text_plain).
 */
static int etwctl_row_text(struct etwctl_row *row,
			   const struct etw_etl_event *ev)
{
	const uint8_t *p = ev->user_data;
	bool string = ev->kind == ETW_ETL_KIND_EVENT &&
		      (ev->flags & ETW_EVENT_FLAG_STRING_ONLY);
	size_t n = string ? 3 * (ev->user_data_len / 2) + 1 :
			    2 * (size_t)ev->user_data_len + 1;
	char *t;

	if (n > etwctl_row_buf_cap) {
		t = realloc(etwctl_row_buf, n);
		if (!t)
			return -ENOMEM;
		etwctl_row_buf = t;
		etwctl_row_buf_cap = n;
	}
	/* A local pointer, as a store through row->text may alias row. */
	t = etwctl_row_buf;
	if (string) {
		row->text_len = etw_etl_utf16_utf8(p, ev->user_data_len / 2, t);
	} else {
		etwctl_hex_text(p, ev->user_data_len, false, t);
		row->text_len = 2 * (size_t)ev->user_data_len;
		t[row->text_len] = 0;
	}
	row->text_plain = !string;
	row->text = t;
	return 0;
}

static int etwctl_row_fill(struct etwctl_row *row,
			   const struct etwctl_output *out,
			   const struct etw_etl_event *ev)
{
	const struct etw_etl_ext *x;

	/* Not the whole row: its names are 1.5 KiB that decoding sets. */
	row->ev = ev;
	row->activity[0] = 0;
	row->related[0] = 0;
	etwctl_fields_take(&row->fields);
	row->decoded = false;
	row->text = NULL;
	etwctl_filetime_format(ev->timestamp, row->time, sizeof(row->time));
	etwctl_row_provider(&ev->provider_id, row->provider_guid);
	if (!etwctl_guid_is_zero(&ev->activity_id))
		etwctl_row_guid(&ev->activity_id, row->activity);
	x = etwctl_ext(ev, ETW_EXT_RELATED_ACTIVITYID);
	if (x && x->size >= sizeof(struct etw_guid))
		etwctl_row_guid(x->data, row->related);
	etwctl_row_decode(row, out->need_fields);
	row->keyed = row->names->schema != ETWCTL_NAMES_OWN;
	/* Events without a schema may still carry their provider's name. */
	x = etwctl_ext(ev, ETW_EXT_PROV_TRAITS);
	if (x && !*row->names->provider) {
		row->own = *row->names;
		etwctl_traits_name(x->data, x->size, row->own.provider,
				   sizeof(row->own.provider));
		row->names = &row->own;
		row->keyed = false;
	}
	if (out->need_fields && !row->decoded)
		return etwctl_row_text(row, ev);
	return 0;
}

static void etwctl_row_free(struct etwctl_row *row)
{
	etwctl_fields_free(&row->fields);
}

static struct etwctl_cell etwctl_text(const char *s)
{
	return (struct etwctl_cell){ .kind = *s ? ETWCTL_CELL_TEXT :
						  ETWCTL_CELL_NONE, .s = s };
}

static struct etwctl_cell etwctl_plain(const char *s, size_t len)
{
	return (struct etwctl_cell){ .kind = len ? ETWCTL_CELL_PLAIN :
						   ETWCTL_CELL_NONE,
				     .s = s, .len = len };
}

/* A GUID of the row: "" when the event has none. */
static struct etwctl_cell etwctl_guid_cell(const char *s)
{
	return etwctl_plain(s, *s ? ETWCTL_GUID_LEN - 1 : 0);
}

static struct etwctl_cell etwctl_uint(uint64_t u)
{
	return (struct etwctl_cell){ .kind = ETWCTL_CELL_UINT, .u = u };
}

/* The schema's name for a descriptor field, or its number. */
static struct etwctl_cell etwctl_named(const char *name, uint64_t u)
{
	return *name ? etwctl_text(name) : etwctl_uint(u);
}

static struct etwctl_cell etwctl_property(const struct etwctl_row *row,
					  const char *name)
{
	size_t i;

	for (i = 0; i < row->fields.n; i++)
		if (!strcmp(row->fields.v[i].name, name))
			return (struct etwctl_cell){
				.kind = ETWCTL_CELL_VALUE,
				.s = row->fields.v[i].value,
				.len = row->fields.v[i].value_len,
				.quoted = row->fields.v[i].quoted,
				.plain = row->fields.v[i].plain,
			};
	return (struct etwctl_cell){ .kind = ETWCTL_CELL_NONE };
}

/*
 * Column @col of @row; ETWCTL_COL_FIELDS is printed on its own.  Inline:
 * a row's dozen cells are then built where they are written, not copied.
 */
static __always_inline struct etwctl_cell
etwctl_cell(const struct etwctl_row *row, const struct etwctl_column *col)
{
	const struct etw_etl_event *ev = row->ev;
	const struct etwctl_names *n = row->names;

	switch (col->id) {
	case ETWCTL_COL_TIME:
		return etwctl_plain(row->time, strlen(row->time));
	case ETWCTL_COL_CPU:
		return etwctl_uint(ev->processor_index);
	case ETWCTL_COL_PID:
		return etwctl_uint(ev->process_id);
	case ETWCTL_COL_TID:
		return etwctl_uint(ev->thread_id);
	case ETWCTL_COL_PROVIDER:
		if (*n->provider)
			return etwctl_text(n->provider);
		return etwctl_guid_cell(row->provider_guid);
	case ETWCTL_COL_PROVIDER_GUID:
		return etwctl_guid_cell(row->provider_guid);
	case ETWCTL_COL_EVENT:
		return etwctl_text(n->event);
	case ETWCTL_COL_ID:
		return etwctl_uint(ev->descriptor.id);
	case ETWCTL_COL_VERSION:
		return etwctl_uint(ev->descriptor.version);
	case ETWCTL_COL_CHANNEL:
		return etwctl_named(n->channel, ev->descriptor.channel);
	case ETWCTL_COL_LEVEL:
		return etwctl_named(n->level, ev->descriptor.level);
	case ETWCTL_COL_OPCODE:
		return etwctl_named(n->opcode, ev->descriptor.opcode);
	case ETWCTL_COL_TASK:
		return etwctl_named(n->task, ev->descriptor.task);
	case ETWCTL_COL_KEYWORDS:
		if (*n->keywords)
			return etwctl_text(n->keywords);
		return (struct etwctl_cell){ .kind = ETWCTL_CELL_HEX,
					     .u = ev->descriptor.keyword };
	case ETWCTL_COL_ACTIVITY:
		return etwctl_guid_cell(row->activity);
	case ETWCTL_COL_RELATED_ACTIVITY:
		return etwctl_guid_cell(row->related);
	case ETWCTL_COL_PROPERTY:
		return etwctl_property(row, col->prop);
	case ETWCTL_COL_FIELDS:
		break;
	}
	return (struct etwctl_cell){ .kind = ETWCTL_CELL_NONE };
}

/*
 * A field's value of @len bytes: strings JSON-quoted (@plain: between
 * quotes as they are), literals as is.
 */
static void etwctl_value_text(FILE *f, const char *value, size_t len,
			      bool quoted, bool plain)
{
	char *p;

	if (!quoted) {
		etwctl_put(f, value, len);
	} else if (!plain) {
		etwctl_json_string(f, value);
	} else {
		p = etwctl_room(f, len + 2);
		if (!p) {
			putc_unlocked('"', f);
			etwctl_put(f, value, len);
			putc_unlocked('"', f);
			return;
		}
		*p = '"';
		memcpy(p + 1, value, len);
		p[len + 1] = '"';
		f->_IO_write_ptr = p + len + 2;
	}
}

/* Field @v's value. */
static void etwctl_field_value(FILE *f, const struct etwctl_field *v)
{
	etwctl_value_text(f, v->value, v->value_len, v->quoted, v->plain);
}

/* All fields as one text: "name=value ..." or the hex/string text. */
static void etwctl_fields_text(FILE *f, const struct etwctl_row *row)
{
	size_t i;

	if (!row->decoded) {
		etwctl_put(f, row->text, row->text_len);
		return;
	}
	for (i = 0; i < row->fields.n; i++) {
		if (i)
			putc_unlocked(' ', f);
		etwctl_put(f, row->fields.v[i].name, row->fields.v[i].name_len);
		putc_unlocked('=', f);
		etwctl_field_value(f, &row->fields.v[i]);
	}
}

/* What a cell shows in a table row: strings of fields JSON-quoted. */
static void etwctl_table_cell(FILE *f, const struct etwctl_cell *c, int width)
{
	switch (c->kind) {
	case ETWCTL_CELL_NONE:
		putc_unlocked('-', f);
		break;
	case ETWCTL_CELL_UINT:
		etwctl_put_u64(f, c->u, width);
		break;
	case ETWCTL_CELL_HEX:
		etwctl_put_hex(f, c->u);
		break;
	case ETWCTL_CELL_TEXT:
		etwctl_puts(f, c->s);
		break;
	case ETWCTL_CELL_PLAIN:
		etwctl_put(f, c->s, c->len);
		break;
	case ETWCTL_CELL_VALUE:
		etwctl_value_text(f, c->s, c->len, c->quoted, c->plain);
		break;
	}
}

/*
 * The most bytes etwctl_table_cell_at() writes for @c, or 0 for a cell it
 * leaves to etwctl_table_cell(): a field's value, of any length.
 */
static size_t etwctl_table_cell_max(const struct etwctl_cell *c)
{
	switch (c->kind) {
	case ETWCTL_CELL_NONE:
		return 1;
	case ETWCTL_CELL_UINT:
		return ETWCTL_PAD_MAX + ETWCTL_U64_LEN;
	case ETWCTL_CELL_HEX:
		return ETWCTL_HEX_LEN;
	case ETWCTL_CELL_TEXT:
		return strlen(c->s);
	case ETWCTL_CELL_PLAIN:
		return c->len;
	case ETWCTL_CELL_VALUE:
		break;
	}
	return 0;
}

/*
 * etwctl_table_cell() at @p, which has room for etwctl_table_cell_max()
 * bytes (@max); @width is at most ETWCTL_PAD_MAX.  Return: the end.
 */
static char *etwctl_table_cell_at(char *p, const struct etwctl_cell *c,
				  int width, size_t max)
{
	size_t n;

	switch (c->kind) {
	case ETWCTL_CELL_UINT:
		/* Most of a row's numbers (CPU, id, level...) are one digit. */
		n = c->u < 10 ? 1 : etwctl_u64_digits(c->u);
		memset(p, ' ', ETWCTL_PAD_MAX);
		p += width > (int)n ? (size_t)width - n : 0;
		if (c->u >= 10)
			return p + etwctl_u64_text(c->u, p);
		*p = (char)('0' + c->u);
		return p + 1;
	case ETWCTL_CELL_HEX:
		return p + etwctl_hex_u64_text(c->u, p);
	case ETWCTL_CELL_TEXT:
	case ETWCTL_CELL_PLAIN:
		memcpy(p, c->s, max);
		return p + max;
	case ETWCTL_CELL_NONE:
	case ETWCTL_CELL_VALUE:
		break;
	}
	*p = '-';
	return p + 1;
}

/*
 * A column other than the fields: its lead and its cell, in place in the
 * stream's buffer when it has room (no room check and copy per piece).
 */
static void etwctl_table_column(FILE *f, const struct etwctl_column *col,
				const struct etwctl_row *row)
{
	struct etwctl_cell c = etwctl_cell(row, col);
	size_t max = etwctl_table_cell_max(&c);
	char *p = max ? etwctl_room(f, ETWCTL_LEAD_COPY + col->lead_len + max) :
			NULL;

	if (!p) {
		etwctl_put(f, col->lead, col->lead_len);
		etwctl_table_cell(f, &c, etwctl_cols[col->id].width);
		return;
	}
	/* A short lead in one move: its padding lands in free buffer space. */
	if (col->lead_len <= ETWCTL_LEAD_COPY)
		memcpy(p, col->lead, ETWCTL_LEAD_COPY);
	else
		memcpy(p, col->lead, col->lead_len);
	f->_IO_write_ptr = etwctl_table_cell_at(p + col->lead_len, &c,
						etwctl_cols[col->id].width,
						max);
}

static void etwctl_print_run(FILE *f, const struct etwctl_output *out,
			     const struct etwctl_row *row, size_t i);

static void etwctl_print_table(FILE *f, const struct etwctl_output *out,
			       const struct etwctl_row *row)
{
	const struct etwctl_column *col;
	size_t i;

	for (i = 0; i < out->ncols; i++) {
		col = &out->cols[i];
		if (col->run) {
			etwctl_print_run(f, out, row, i);
			i += col->run - 1;
			continue;
		}
		if (col->id != ETWCTL_COL_FIELDS) {
			etwctl_table_column(f, col, row);
			continue;
		}
		etwctl_put(f, col->lead, col->lead_len);
		etwctl_print_ext(f, row->ev, false, out->symbols);
		etwctl_fields_text(f, row);
	}
	putc_unlocked('\n', f);
}

/* A CSV field (RFC 4180): quoted, quotes doubled, when it needs to be. */
static void etwctl_csv_field(FILE *f, const char *s, size_t len)
{
	size_t i;

	if (!memchr(s, ',', len) && !memchr(s, '"', len) &&
	    !memchr(s, '\n', len) && !memchr(s, '\r', len)) {
		etwctl_put(f, s, len);
		return;
	}
	putc_unlocked('"', f);
	for (i = 0; i < len; i++) {
		if (s[i] == '"')
			putc_unlocked('"', f);
		putc_unlocked(s[i], f);
	}
	putc_unlocked('"', f);
}

static void etwctl_csv_cell(FILE *f, const struct etwctl_cell *c)
{
	switch (c->kind) {
	case ETWCTL_CELL_NONE:
		break;
	case ETWCTL_CELL_UINT:
		etwctl_put_u64(f, c->u, 0);
		break;
	case ETWCTL_CELL_HEX:
		etwctl_put_hex(f, c->u);
		break;
	case ETWCTL_CELL_TEXT:
		etwctl_csv_field(f, c->s, strlen(c->s));
		break;
	case ETWCTL_CELL_PLAIN:
		etwctl_put(f, c->s, c->len);
		break;
	case ETWCTL_CELL_VALUE:
		etwctl_csv_field(f, c->s, c->len);
		break;
	}
}

/*
 * The fields column's text, which CSV quotes as one field, in one memory
 * stream for every event of the thread, rewound for each: a stream
 * opened per event cleared a buffer of BUFSIZ each time.  Its buffer
 * grows to the longest event's text.
 */
static __thread FILE *etwctl_csv_mem;
static __thread char *etwctl_csv_text;
static __thread size_t etwctl_csv_len;

/* The fields column: their text, then quoted as one CSV field. */
static int etwctl_csv_fields(FILE *f, const struct etwctl_row *row)
{
	if (!etwctl_csv_mem) {
		etwctl_csv_mem = open_memstream(&etwctl_csv_text,
						&etwctl_csv_len);
		if (!etwctl_csv_mem)
			return -ENOMEM;
	}
	rewind(etwctl_csv_mem);
	etwctl_fields_text(etwctl_csv_mem, row);
	/* Flushed, the length is the position: a longer text may follow. */
	if (fflush(etwctl_csv_mem)) {
		fclose(etwctl_csv_mem);
		free(etwctl_csv_text);
		etwctl_csv_mem = NULL;
		etwctl_csv_text = NULL;
		return -ENOMEM;
	}
	etwctl_csv_field(f, etwctl_csv_text, etwctl_csv_len);
	return 0;
}

static int etwctl_print_csv(FILE *f, const struct etwctl_output *out,
			    const struct etwctl_row *row)
{
	struct etwctl_cell c;
	size_t i;

	for (i = 0; i < out->ncols; i++) {
		if (out->cols[i].run) {
			etwctl_print_run(f, out, row, i);
			i += out->cols[i].run - 1;
			continue;
		}
		etwctl_put(f, out->cols[i].lead, out->cols[i].lead_len);
		if (out->cols[i].id != ETWCTL_COL_FIELDS) {
			c = etwctl_cell(row, &out->cols[i]);
			etwctl_csv_cell(f, &c);
		} else if (etwctl_csv_fields(f, row)) {
			return -ENOMEM;
		}
	}
	putc_unlocked('\n', f);
	return 0;
}

static void etwctl_json_cell(FILE *f, const struct etwctl_cell *c)
{
	switch (c->kind) {
	case ETWCTL_CELL_NONE:
		etwctl_puts(f, "null");
		break;
	case ETWCTL_CELL_UINT:
		etwctl_put_u64(f, c->u, 0);
		break;
	case ETWCTL_CELL_HEX:
		putc_unlocked('"', f);
		etwctl_put_hex(f, c->u);
		putc_unlocked('"', f);
		break;
	case ETWCTL_CELL_TEXT:
		etwctl_json_string(f, c->s);
		break;
	case ETWCTL_CELL_PLAIN:
		putc_unlocked('"', f);
		etwctl_put(f, c->s, c->len);
		putc_unlocked('"', f);
		break;
	case ETWCTL_CELL_VALUE:
		etwctl_value_text(f, c->s, c->len, c->quoted, c->plain);
		break;
	}
}

/* The fields as an object, or their hex/string text as a string. */
static void etwctl_json_fields(FILE *f, const struct etwctl_row *row)
{
	size_t i;

	if (!row->decoded) {
		etwctl_value_text(f, row->text, row->text_len, true,
				  row->text_plain);
		return;
	}
	putc_unlocked('{', f);
	for (i = 0; i < row->fields.n; i++) {
		if (i)
			putc_unlocked(',', f);
		etwctl_json_string(f, row->fields.v[i].name);
		putc_unlocked(':', f);
		etwctl_field_value(f, &row->fields.v[i]);
	}
	putc_unlocked('}', f);
}

static void etwctl_print_json(FILE *f, const struct etwctl_output *out,
			      const struct etwctl_row *row)
{
	const struct etwctl_column *col;
	struct etwctl_cell c;
	size_t i;

	for (i = 0; i < out->ncols; i++) {
		col = &out->cols[i];
		if (col->run) {
			etwctl_print_run(f, out, row, i);
			i += col->run - 1;
			continue;
		}
		etwctl_put(f, col->lead, col->lead_len);
		if (col->id == ETWCTL_COL_FIELDS) {
			etwctl_json_fields(f, row);
			etwctl_print_ext(f, row->ev, true, out->symbols);
			continue;
		}
		c = etwctl_cell(row, col);
		etwctl_json_cell(f, &c);
	}
	etwctl_puts(f, "}\n");
}

/* Columns @from to @to - 1, none the fields, as the format writes them. */
static void etwctl_print_cols(FILE *f, const struct etwctl_output *out,
			      const struct etwctl_row *row, size_t from,
			      size_t to)
{
	const struct etwctl_column *col;
	struct etwctl_cell c;

	for (; from < to; from++) {
		col = &out->cols[from];
		if (out->format == ETWCTL_FORMAT_TABLE) {
			etwctl_table_column(f, col, row);
			continue;
		}
		etwctl_put(f, col->lead, col->lead_len);
		c = etwctl_cell(row, col);
		if (out->format == ETWCTL_FORMAT_CSV)
			etwctl_csv_cell(f, &c);
		else
			etwctl_json_cell(f, &c);
	}
}

/* The kind of @row, as the words of a key. */
static void etwctl_span_key(const struct etwctl_row *row,
			    uint64_t key[ETWCTL_SPAN_KEY])
{
	_Static_assert(sizeof(row->ev->descriptor) +
		       sizeof(row->ev->provider_id) ==
		       (ETWCTL_SPAN_KEY - 1) * sizeof(*key),
		       "a descriptor and a GUID are four words");
	key[0] = row->names->schema;
	memcpy(key + 1, &row->ev->descriptor, sizeof(row->ev->descriptor));
	memcpy(key + 3, &row->ev->provider_id, sizeof(row->ev->provider_id));
}

static size_t etwctl_span_slot(const uint64_t key[ETWCTL_SPAN_KEY],
			       size_t col)
{
	uint64_t h = (key[0] ^ key[1] ^ key[2] * 31 ^ key[3] ^ key[4] * 7 ^
		      col) * 0x9e3779b97f4a7c15ull;

	return (size_t)(h >> 32) % ETWCTL_SPAN_SLOTS;
}

static bool etwctl_span_is(const struct etwctl_span *s,
			   const uint64_t key[ETWCTL_SPAN_KEY], size_t col)
{
	return s->len && s->col == col && s->key[0] == key[0] &&
	       s->key[1] == key[1] && s->key[2] == key[2] &&
	       s->key[3] == key[3] && s->key[4] == key[4];
}

/*
 * The run of fixed columns at @i: its text for the row's kind, copied
 * when written before (the same functions wrote it into spans->mem),
 * else written and kept.
 */
static void etwctl_print_run(FILE *f, const struct etwctl_output *out,
			     const struct etwctl_row *row, size_t i)
{
	struct etwctl_spans *sp = out->spans;
	size_t end = i + out->cols[i].run;
	uint64_t key[ETWCTL_SPAN_KEY];
	struct etwctl_span *s;

	if (!row->keyed) {
		etwctl_print_cols(f, out, row, i, end);
		return;
	}
	etwctl_span_key(row, key);
	s = &sp->slot[etwctl_span_slot(key, i)];
	if (etwctl_span_is(s, key, i)) {
		etwctl_put(f, s->text, s->len);
		return;
	}
	if (!sp->mem)
		sp->mem = open_memstream(&sp->text, &sp->len);
	if (sp->mem) {
		rewind(sp->mem);
		etwctl_print_cols(sp->mem, out, row, i, end);
	}
	/* Flushed, the length is the position: a longer text may follow. */
	if (!sp->mem || fflush(sp->mem) || sp->len > ETWCTL_SPAN_MAX) {
		etwctl_print_cols(f, out, row, i, end);
		return;
	}
	memcpy(s->key, key, sizeof(s->key));
	s->col = i;
	s->len = sp->len;
	memcpy(s->text, sp->text, sp->len);
	etwctl_put(f, s->text, s->len);
}

/**
 * etwctl_print_begin - what comes before the first event: CSV's header
 * @f: the stream
 * @out: the output
 */
void etwctl_print_begin(FILE *f, const struct etwctl_output *out)
{
	size_t i;

	if (out->format != ETWCTL_FORMAT_CSV)
		return;
	for (i = 0; i < out->ncols; i++) {
		if (i)
			putc_unlocked(',', f);
		etwctl_csv_field(f, out->cols[i].name,
				 strlen(out->cols[i].name));
	}
	putc_unlocked('\n', f);
}

/**
 * etwctl_event_visit - an event's columns, one-line message and fields
 * @ev: the event
 * @fn: called once per decoded field, as dump prints them; for an event
 *	that does not decode, once with the name "" and the fields column as
 *	dump prints it (the string of a string-only event, else hex)
 * @ctx: passed to @fn
 * @text: out: the text columns as dump prints them, and a message: the
 *	provider, event name, id and fields on one line, as the table shows
 *	them (malloc'ed; free it with free(@text->message))
 *
 * Return: 0, or -ENOMEM.
 */
int etwctl_event_visit(const struct etw_etl_event *ev, etwctl_field_fn fn,
		       void *ctx, struct etwctl_event_text *text)
{
	static const struct etwctl_output all = { .need_fields = true };
	struct etwctl_field_text f;
	struct etwctl_row row;
	size_t len, i;
	FILE *mem;
	int ret;

	text->message = NULL;
	ret = etwctl_row_fill(&row, &all, ev);
	mem = ret ? NULL : open_memstream(&text->message, &len);
	if (!mem) {
		etwctl_row_free(&row);
		return -ENOMEM;
	}
	fprintf(mem, "%s %s id=%u ",
		*row.names->provider ? row.names->provider : row.provider_guid,
		*row.names->event ? row.names->event : "-", ev->descriptor.id);
	etwctl_fields_text(mem, &row);
	if (fclose(mem)) {
		free(text->message);
		text->message = NULL;
		etwctl_row_free(&row);
		return -ENOMEM;
	}
	text->names = *row.names;
	memcpy(text->provider_guid, row.provider_guid,
	       sizeof(text->provider_guid));
	memcpy(text->activity, row.activity, sizeof(text->activity));
	memcpy(text->related, row.related, sizeof(text->related));
	for (i = 0; i < row.fields.n; i++) {
		f = (struct etwctl_field_text){
			.name = row.fields.v[i].name,
			.name_len = row.fields.v[i].name_len,
			.value = row.fields.v[i].value,
			.value_len = row.fields.v[i].value_len,
			.quoted = row.fields.v[i].quoted,
			.plain = row.fields.v[i].plain,
		};
		fn(ctx, &f);
	}
	if (!row.decoded) {
		f = (struct etwctl_field_text){
			.name = "",
			.value = row.text,
			.value_len = row.text_len,
			.quoted = true,
			.plain = row.text_plain,
		};
		fn(ctx, &f);
	}
	etwctl_row_free(&row);
	return 0;
}

/**
 * etwctl_print_event - print one event
 * @f: the stream
 * @out: the output
 * @ev: the event
 *
 * Return: 0, or -ENOMEM.
 */
int etwctl_print_event(FILE *f, const struct etwctl_output *out,
		       const struct etw_etl_event *ev)
{
	struct etwctl_row row;
	int ret;

	ret = etwctl_row_fill(&row, out, ev);
	if (!ret && out->format == ETWCTL_FORMAT_TABLE)
		etwctl_print_table(f, out, &row);
	else if (!ret && out->format == ETWCTL_FORMAT_CSV)
		ret = etwctl_print_csv(f, out, &row);
	else if (!ret)
		etwctl_print_json(f, out, &row);
	etwctl_row_free(&row);
	return ret;
}
