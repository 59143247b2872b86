// SPDX-License-Identifier: GPL-2.0
/*
 * journal_export.c: events as entries of the systemd Journal Export
 * Format, what systemd-journal-remote reads on /upload.
 *
 * A field is "NAME=value\n"; a value with a control character (a newline,
 * say) is written binary-safe as "NAME\n", its length as a little-endian
 * 64-bit number, the bytes and "\n".  An empty line ends an entry.
 * Journal field names are A-Z, 0-9 and '_', start with a letter here and
 * are at most 64 bytes: decoded property names are mapped onto that.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "etwctl.h"

#define ETWCTL_FT_UNIX_EPOCH	116444736000000000ll
#define ETWCTL_JOURNAL_NAME_MAX	64

/* @oom: an allocation failed; the entry is not complete */
struct etwctl_journal_ctx {
	struct etwctl_jbuf *b;
	bool oom;
};

static int etwctl_jbuf_grow(struct etwctl_jbuf *b, size_t more)
{
	size_t cap = b->cap ? b->cap : 4096;
	char *p;

	if (b->len + more <= b->cap)
		return 0;
	while (cap < b->len + more)
		cap *= 2;
	p = realloc(b->data, cap);
	if (!p)
		return -ENOMEM;
	b->data = p;
	b->cap = cap;
	return 0;
}

static int etwctl_jbuf_put(struct etwctl_jbuf *b, const void *p, size_t n)
{
	if (etwctl_jbuf_grow(b, n))
		return -ENOMEM;
	memcpy(b->data + b->len, p, n);
	b->len += n;
	return 0;
}

/**
 * etwctl_jbuf_free - free a buffer's memory
 * @b: the buffer; empty afterwards, and usable again
 */
void etwctl_jbuf_free(struct etwctl_jbuf *b)
{
	free(b->data);
	memset(b, 0, sizeof(*b));
}

static bool etwctl_journal_is_text(const char *v, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if ((unsigned char)v[i] < 0x20 || v[i] == 0x7f)
			return false;
	return true;
}

/**
 * etwctl_journal_field - append one field of an entry
 * @b: the buffer
 * @name: a valid journal field name
 * @value: the value's bytes
 * @len: bytes at @value
 *
 * Text values are written as "NAME=value"; values with control
 * characters binary-safe.
 *
 * Return: 0, or -ENOMEM.
 */
int etwctl_journal_field(struct etwctl_jbuf *b, const char *name,
			 const char *value, size_t len)
{
	size_t nlen = strlen(name);
	uint8_t size[8];
	int i, ret;

	ret = etwctl_jbuf_put(b, name, nlen);
	if (ret)
		return ret;
	if (etwctl_journal_is_text(value, len)) {
		ret = etwctl_jbuf_put(b, "=", 1);
	} else {
		for (i = 0; i < 8; i++)
			size[i] = (uint8_t)((uint64_t)len >> (8 * i));
		ret = etwctl_jbuf_put(b, "\n", 1) ?:
		      etwctl_jbuf_put(b, size, sizeof(size));
	}
	return ret ?: etwctl_jbuf_put(b, value, len) ?:
		      etwctl_jbuf_put(b, "\n", 1);
}

static int etwctl_journal_str(struct etwctl_jbuf *b, const char *name,
			      const char *value)
{
	return etwctl_journal_field(b, name, value, strlen(value));
}

static int etwctl_journal_u64(struct etwctl_jbuf *b, const char *name,
			      uint64_t v)
{
	char s[24];

	snprintf(s, sizeof(s), "%" PRIu64, v);
	return etwctl_journal_str(b, name, s);
}

/**
 * etwctl_journal_field_name - a journal field name for a decoded property
 * @name: the property name as dump prints it ("" for the raw payload)
 * @out: out: "ETW_F_" and @name in upper case, every byte other than a
 *	letter or digit replaced by '_', cut to 64 bytes; "ETW_PAYLOAD"
 *	for ""
 * @size: bytes at @out, at least 65
 */
void etwctl_journal_field_name(const char *name, char *out, size_t size)
{
	size_t n, max = size - 1;
	unsigned char c;

	if (!*name) {
		snprintf(out, size, "ETW_PAYLOAD");
		return;
	}
	if (max > ETWCTL_JOURNAL_NAME_MAX)
		max = ETWCTL_JOURNAL_NAME_MAX;
	n = (size_t)snprintf(out, size, "ETW_F_");
	for (; *name && n < max; name++, n++) {
		c = (unsigned char)*name;
		if (c >= 'a' && c <= 'z')
			out[n] = (char)(c - 'a' + 'A');
		else if ((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))
			out[n] = (char)c;
		else
			out[n] = '_';
	}
	out[n] = 0;
}

/**
 * etwctl_journal_priority - the syslog priority of an ETW level
 * @level: TRACE_LEVEL_* (0 none, 1 critical ... 5 verbose)
 *
 * Critical is crit (2), error err (3), warning warning (4), information
 * and none info (6), verbose and the levels above it debug (7).
 *
 * Return: the PRIORITY value.
 */
int etwctl_journal_priority(uint8_t level)
{
	static const int prio[] = { 6, 2, 3, 4, 6, 7 };

	return level < sizeof(prio) / sizeof(prio[0]) ? prio[level] : 7;
}

static void etwctl_journal_prop(void *ctx, const struct etwctl_field_text *f)
{
	struct etwctl_journal_ctx *jc = ctx;
	char field[ETWCTL_JOURNAL_NAME_MAX + 1];

	etwctl_journal_field_name(f->name, field, sizeof(field));
	if (!jc->oom && etwctl_journal_str(jc->b, field, f->value))
		jc->oom = true;
}

/* The text fields an event has only when it has the value. */
static int etwctl_journal_optional(struct etwctl_jbuf *b,
				   const struct etwctl_event_text *t)
{
	const struct etwctl_names *n = &t->names;
	const struct {
		const char *field;
		const char *value;
	} opt[] = {
		{ "ETW_PROVIDER_NAME", n->provider },
		{ "ETW_EVENT_NAME", n->event },
		{ "ETW_CHANNEL_NAME", n->channel },
		{ "ETW_LEVEL_NAME", n->level },
		{ "ETW_TASK_NAME", n->task },
		{ "ETW_OPCODE_NAME", n->opcode },
		{ "ETW_KEYWORDS_NAME", n->keywords },
		{ "ETW_ACTIVITY_ID", t->activity },
		{ "ETW_RELATED_ACTIVITY_ID", t->related },
	};
	size_t i;
	int ret;

	for (i = 0; i < sizeof(opt) / sizeof(opt[0]); i++) {
		if (!*opt[i].value)
			continue;
		ret = etwctl_journal_str(b, opt[i].field, opt[i].value);
		if (ret)
			return ret;
	}
	return 0;
}

static int etwctl_journal_header(struct etwctl_jbuf *b,
				 const struct etw_etl_event *ev,
				 const struct etwctl_event_text *t)
{
	const struct etw_event_descriptor *d = &ev->descriptor;
	char kw[24];

	snprintf(kw, sizeof(kw), "0x%" PRIx64, (uint64_t)d->keyword);
	return etwctl_journal_str(b, "MESSAGE", t->message) ?:
	       etwctl_journal_u64(b, "PRIORITY",
				  (uint64_t)etwctl_journal_priority(d->level)) ?:
	       etwctl_journal_str(b, "ETW_PROVIDER_GUID", t->provider_guid) ?:
	       etwctl_journal_u64(b, "ETW_EVENT_ID", d->id) ?:
	       etwctl_journal_u64(b, "ETW_VERSION", d->version) ?:
	       etwctl_journal_u64(b, "ETW_CHANNEL", d->channel) ?:
	       etwctl_journal_u64(b, "ETW_LEVEL", d->level) ?:
	       etwctl_journal_u64(b, "ETW_TASK", d->task) ?:
	       etwctl_journal_u64(b, "ETW_OPCODE", d->opcode) ?:
	       etwctl_journal_str(b, "ETW_KEYWORDS", kw) ?:
	       etwctl_journal_u64(b, "ETW_PID", ev->process_id) ?:
	       etwctl_journal_u64(b, "ETW_TID", ev->thread_id) ?:
	       etwctl_journal_u64(b, "ETW_CPU", ev->processor_index) ?:
	       etwctl_journal_u64(b, "ETW_TIMESTAMP", (uint64_t)ev->timestamp) ?:
	       etwctl_journal_optional(b, t);
}

/**
 * etwctl_journal_entry - append one event as a journal entry
 * @b: the buffer
 * @ev: the event
 * @session: the session (or the file's logger name) for ETW_SESSION
 *
 * The entry's time (__REALTIME_TIMESTAMP) is the event's, when it is
 * after 1970; otherwise the receiver stamps it.  On error @b is as it
 * was before the call.
 *
 * Return: 0, or -ENOMEM.
 */
int etwctl_journal_entry(struct etwctl_jbuf *b,
			 const struct etw_etl_event *ev, const char *session)
{
	struct etwctl_journal_ctx jc = { .b = b };
	struct etwctl_event_text t;
	size_t start = b->len;
	int ret = 0;

	if (ev->timestamp >= ETWCTL_FT_UNIX_EPOCH)
		ret = etwctl_journal_u64(b, "__REALTIME_TIMESTAMP",
					 (uint64_t)(ev->timestamp -
						    ETWCTL_FT_UNIX_EPOCH) / 10);
	if (!ret)
		ret = etwctl_event_visit(ev, etwctl_journal_prop, &jc, &t);
	if (ret) {
		b->len = start;
		return ret;
	}
	ret = jc.oom ? -ENOMEM : etwctl_journal_header(b, ev, &t) ?:
	      etwctl_journal_str(b, "ETW_SESSION", session) ?:
	      etwctl_jbuf_put(b, "\n", 1);
	free(t.message);
	if (ret)
		b->len = start;
	return ret;
}
