// SPDX-License-Identifier: GPL-2.0
/*
 * "etwctl export --format chrome-json": the output of files written here
 * (TraceLogging events, activity start/stop, kernel Process and Thread
 * records, undecodable events) and of the Windows sample, checked
 * element by element against the Trace Event Format's rules: the keys
 * each phase needs, ts not going back on a thread, every async begin
 * ended once by the same cat and id, args typed as the fields are.
 * Large traces are written in constant memory.
 */
#include <ctype.h>
#include <stdarg.h>
#include <sys/resource.h>
#include <time.h>

#include "ctl_test.h"
#include "etl_test.h"
#include "kselftest_harness.h"

/* --- JSON values, enough to check one trace element at a time ---------- */

enum jtype { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ };

/*
 * @str: J_STR's text (unescaped, \u escapes of ASCII only) or J_NUM's
 * @num: J_NUM's value, J_BOOL's 0 or 1
 * @keys, @vals, @n: J_OBJ's members, J_ARR's elements (@keys NULL)
 */
struct jv {
	enum jtype type;
	char *str;
	double num;
	char **keys;
	struct jv *vals;
	size_t n;
};

static const char *jws(const char *p)
{
	while (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t')
		p++;
	return p;
}

static void jfree(struct jv *v)
{
	size_t i;

	for (i = 0; i < v->n; i++) {
		if (v->keys)
			free(v->keys[i]);
		jfree(&v->vals[i]);
	}
	free(v->keys);
	free(v->vals);
	free(v->str);
	memset(v, 0, sizeof(*v));
}

static const char *jparse(const char *p, struct jv *v, int depth);

static const char *jstring(const char *p, char **out)
{
	char *s = malloc(strlen(p) + 1), *o = s;
	unsigned int cp;

	if (*p++ != '"')
		goto bad;
	for (; *p != '"'; p++) {
		if (!*p || (unsigned char)*p < 0x20)
			goto bad;
		if (*p != '\\') {
			*o++ = *p;
			continue;
		}
		p++;
		if (*p == 'u') {
			if (sscanf(p + 1, "%4x", &cp) != 1 ||
			    !isxdigit(p[1]) || !isxdigit(p[4]))
				goto bad;
			*o++ = cp < 0x80 ? (char)cp : '?';
			p += 4;
		} else if (strchr("\"\\/", *p) && *p) {
			*o++ = *p;
		} else if (strchr("bfnrt", *p) && *p) {
			*o++ = "\b\f\n\r\t"[strchr("bfnrt", *p) - "bfnrt"];
		} else {
			goto bad;
		}
	}
	*o = 0;
	*out = s;
	return p + 1;
bad:
	free(s);
	return NULL;
}

static const char *jnumber(const char *p, struct jv *v)
{
	const char *s = p;

	p += *p == '-';
	if (!isdigit(*p) || (*p == '0' && isdigit(p[1])))
		return NULL;
	while (isdigit(*p))
		p++;
	if (*p == '.') {
		if (!isdigit(*++p))
			return NULL;
		while (isdigit(*p))
			p++;
	}
	if (*p == 'e' || *p == 'E') {
		p += 1 + (p[1] == '+' || p[1] == '-');
		if (!isdigit(*p))
			return NULL;
		while (isdigit(*p))
			p++;
	}
	v->type = J_NUM;
	v->str = strndup(s, (size_t)(p - s));
	v->num = strtod(v->str, NULL);
	return p;
}

static const char *jmembers(const char *p, struct jv *v, int depth)
{
	bool obj = *p == '{';
	char close = obj ? '}' : ']';
	size_t k;

	v->type = obj ? J_OBJ : J_ARR;
	p = jws(p + 1);
	if (*p == close)
		return p + 1;
	for (;;) {
		/* Every slot is valid before it is filled, for jfree(). */
		k = v->n++;
		v->vals = realloc(v->vals, v->n * sizeof(*v->vals));
		memset(&v->vals[k], 0, sizeof(*v->vals));
		if (obj) {
			v->keys = realloc(v->keys, v->n * sizeof(char *));
			v->keys[k] = NULL;
			p = jstring(jws(p), &v->keys[k]);
			p = p ? jws(p) : NULL;
			if (!p || *p++ != ':')
				return NULL;
		}
		p = jparse(p, &v->vals[k], depth + 1);
		if (!p)
			return NULL;
		p = jws(p);
		if (*p == close)
			return p + 1;
		if (*p++ != ',')
			return NULL;
	}
}

static const char *jparse(const char *p, struct jv *v, int depth)
{
	memset(v, 0, sizeof(*v));
	p = jws(p);
	if (depth > 32)
		return NULL;
	if (*p == '{' || *p == '[')
		return jmembers(p, v, depth);
	if (*p == '"') {
		v->type = J_STR;
		return jstring(p, &v->str);
	}
	if (!strncmp(p, "true", 4) || !strncmp(p, "false", 5)) {
		v->type = J_BOOL;
		v->num = *p == 't';
		return p + (*p == 't' ? 4 : 5);
	}
	if (!strncmp(p, "null", 4))
		return p + 4;
	return jnumber(p, v);
}

static const struct jv *jget(const struct jv *o, const char *key)
{
	size_t i;

	for (i = 0; o->type == J_OBJ && i < o->n; i++)
		if (!strcmp(o->keys[i], key))
			return &o->vals[i];
	return NULL;
}

static bool jis(const struct jv *o, const char *key, enum jtype t)
{
	const struct jv *v = jget(o, key);

	return v && v->type == t;
}

/* --- the Trace Event Format's rules, element by element ----------------- */

#define MAX_THREADS	64
#define MAX_OPEN	64

/*
 * What a check saw: events per phase, the last ts of each thread, the
 * async slices still open (cat and id), and the first rule broken.
 */
struct trace {
	int i, x, b, e, m, B, E;
	struct { double pid, tid, ts; int depth; } threads[MAX_THREADS];
	int nthreads;
	struct { char *cat, *id; } open[MAX_OPEN];
	int nopen;
	char err[256];
	bool (*visit)(void *ctx, const struct jv *ev);
	void *ctx;
};

static bool trace_fail(struct trace *t, const char *what, const struct jv *ev)
{
	const struct jv *name = jget(ev, "name");

	if (!*t->err)
		snprintf(t->err, sizeof(t->err), "%s (event %s)", what,
			 name && name->type == J_STR ? name->str : "?");
	return false;
}

/* ts may not go back on a thread; the viewers sort nothing for us. */
static bool trace_ts(struct trace *t, const struct jv *ev)
{
	double pid = jget(ev, "pid")->num, tid = jget(ev, "tid")->num;
	double ts = jget(ev, "ts")->num;
	int k;

	for (k = 0; k < t->nthreads; k++) {
		if (t->threads[k].pid != pid || t->threads[k].tid != tid)
			continue;
		if (ts < t->threads[k].ts)
			return trace_fail(t, "ts goes back on a thread", ev);
		t->threads[k].ts = ts;
		return true;
	}
	if (t->nthreads == MAX_THREADS)
		return trace_fail(t, "too many threads for the checker", ev);
	t->threads[t->nthreads].pid = pid;
	t->threads[t->nthreads].tid = tid;
	t->threads[t->nthreads++].ts = ts;
	return true;
}

/* A "B" opens a slice on its thread; an "E" must close one open there. */
static bool trace_slice(struct trace *t, const struct jv *ev, bool begin)
{
	double pid = jget(ev, "pid")->num, tid = jget(ev, "tid")->num;
	int k;

	if (!trace_ts(t, ev))
		return false;
	for (k = 0; k < t->nthreads; k++)
		if (t->threads[k].pid == pid && t->threads[k].tid == tid)
			break;
	if (!begin && !t->threads[k].depth)
		return trace_fail(t, "slice end without begin", ev);
	t->threads[k].depth += begin ? 1 : -1;
	return true;
}

/* A "b" opens (cat, id); an "e" must close an open one. */
static bool trace_async(struct trace *t, const struct jv *ev, bool begin)
{
	const char *cat = jget(ev, "cat")->str, *id = jget(ev, "id")->str;
	int k;

	for (k = 0; k < t->nopen; k++)
		if (!strcmp(t->open[k].cat, cat) && !strcmp(t->open[k].id, id))
			break;
	if (begin) {
		if (k < t->nopen)
			return trace_fail(t, "async begin while open", ev);
		if (t->nopen == MAX_OPEN)
			return trace_fail(t, "too many open slices", ev);
		t->open[t->nopen].cat = strdup(cat);
		t->open[t->nopen++].id = strdup(id);
		return true;
	}
	if (k == t->nopen)
		return trace_fail(t, "async end without begin", ev);
	free(t->open[k].cat);
	free(t->open[k].id);
	t->open[k] = t->open[--t->nopen];
	return true;
}

static bool trace_meta(struct trace *t, const struct jv *ev)
{
	const struct jv *name = jget(ev, "name"), *args = jget(ev, "args");

	if (!name || name->type != J_STR ||
	    (strcmp(name->str, "process_name") &&
	     strcmp(name->str, "thread_name")))
		return trace_fail(t, "metadata event of no known name", ev);
	if (!args || !jis(args, "name", J_STR) || !jis(ev, "pid", J_NUM))
		return trace_fail(t, "metadata event without args.name", ev);
	if (!strcmp(name->str, "thread_name") && !jis(ev, "tid", J_NUM))
		return trace_fail(t, "thread_name without tid", ev);
	t->m++;
	return true;
}

/* The keys every phase needs, then the phase's own. */
static bool trace_event(struct trace *t, const struct jv *ev)
{
	const struct jv *ph = jget(ev, "ph"), *s;

	if (ev->type != J_OBJ || !ph || ph->type != J_STR || strlen(ph->str) != 1)
		return trace_fail(t, "element without a one-letter ph", ev);
	if (*ph->str == 'M')
		return trace_meta(t, ev);
	if (!jis(ev, "name", J_STR) || !jis(ev, "cat", J_STR) ||
	    !jis(ev, "ts", J_NUM) || !jis(ev, "pid", J_NUM) ||
	    !jis(ev, "tid", J_NUM) || !jis(ev, "args", J_OBJ))
		return trace_fail(t, "event without name, cat, ts, pid, tid "
				  "or args", ev);
	switch (*ph->str) {
	case 'i':
		s = jget(ev, "s");
		if (!s || s->type != J_STR || !strchr("gpt", *s->str) ||
		    strlen(s->str) != 1)
			return trace_fail(t, "instant event of no scope", ev);
		t->i++;
		break;
	case 'X':
		if (!jis(ev, "dur", J_NUM) || jget(ev, "dur")->num < 0)
			return trace_fail(t, "complete event without dur", ev);
		t->x++;
		break;
	case 'B':
	case 'E':
		if (!trace_slice(t, ev, *ph->str == 'B'))
			return false;
		*ph->str == 'B' ? t->B++ : t->E++;
		return !t->visit || t->visit(t->ctx, ev);
	case 'b':
	case 'e':
		if (!jis(ev, "id", J_STR))
			return trace_fail(t, "async event without id", ev);
		if (!trace_async(t, ev, *ph->str == 'b'))
			return false;
		*ph->str == 'b' ? t->b++ : t->e++;
		break;
	default:
		return trace_fail(t, "phase export does not write", ev);
	}
	return trace_ts(t, ev) && (!t->visit || t->visit(t->ctx, ev));
}

/*
 * The whole output: one object whose "traceEvents" is an array of
 * events, each parsed and checked on its own.  Returns false with
 * t->err set when a rule is broken.
 */
static bool trace_check(const char *s, struct trace *t)
{
	const char *p = jws(s);
	bool events = false;
	struct jv v;
	char *key = NULL;

	if (*p++ != '{')
		return trace_fail(t, "not an object", &(struct jv){ 0 });
	for (p = jws(p); *p != '}'; p = jws(p)) {
		key = NULL;
		p = jstring(p, &key);
		p = p ? jws(p) : NULL;
		if (!p || *p++ != ':') {
			free(key);
			return trace_fail(t, "bad member", &(struct jv){ 0 });
		}
		p = jws(p);
		if (strcmp(key, "traceEvents")) {
			p = jparse(p, &v, 0);
			jfree(&v);
		} else if (*p++ == '[') {
			events = true;
			for (p = jws(p); p && *p != ']'; p = jws(p)) {
				p = jparse(p, &v, 0);
				if (p && !trace_event(t, &v)) {
					jfree(&v);
					free(key);
					return false;
				}
				jfree(&v);
				p = p ? jws(p) : NULL;
				if (p && *p == ',')
					p++;
			}
			p = p ? p + 1 : NULL;
		} else {
			p = NULL;
		}
		free(key);
		if (!p)
			return trace_fail(t, "not JSON", &(struct jv){ 0 });
		p = jws(p);
		if (*p == ',')
			p = jws(p + 1);
	}
	if (*jws(p + 1))
		return trace_fail(t, "text after the object", &(struct jv){ 0 });
	if (!events)
		return trace_fail(t, "no traceEvents", &(struct jv){ 0 });
	if (t->nopen)
		return trace_fail(t, "async slice never ended",
				  &(struct jv){ 0 });
	return true;
}

static void trace_free(struct trace *t)
{
	while (t->nopen--) {
		free(t->open[t->nopen].cat);
		free(t->open[t->nopen].id);
	}
}

static void jcopy(struct jv *dst, const struct jv *src)
{
	size_t i;

	*dst = *src;
	dst->str = src->str ? strdup(src->str) : NULL;
	dst->vals = src->n ? calloc(src->n, sizeof(*dst->vals)) : NULL;
	dst->keys = src->keys ? calloc(src->n, sizeof(char *)) : NULL;
	for (i = 0; i < src->n; i++) {
		if (src->keys)
			dst->keys[i] = strdup(src->keys[i]);
		jcopy(&dst->vals[i], &src->vals[i]);
	}
}

/*
 * Events to look into after the check: the first of each @name (and
 * @ph, when set), kept in @found; a chain through @next.
 */
struct find {
	const char *name;
	const char *ph;
	struct jv found;
	bool seen;
	struct find *next;
};

static bool find_visit(void *ctx, const struct jv *ev)
{
	const char *name = jget(ev, "name")->str, *ph = jget(ev, "ph")->str;
	struct find *f;

	for (f = ctx; f; f = f->next) {
		if (f->seen || strcmp(name, f->name) ||
		    (f->ph && strcmp(ph, f->ph)))
			continue;
		f->seen = true;
		jcopy(&f->found, ev);
	}
	return true;
}

static void find_free(struct find *f)
{
	for (; f; f = f->next)
		jfree(&f->found);
}

/* --- writing the inputs ---------------------------------------------------- */

#define PID		4242
#define TID		4243
#define BIG_BS		65536

static const struct etw_guid activity = {
	0xa1b2c3d4, 0x1111, 0x2222,
	{ 0x33, 0x33, 0x44, 0x44, 0x55, 0x55, 0x66, 0x66 }
};
#define ACTIVITY_TEXT	"a1b2c3d4-1111-2222-3333-444455556666"

/* TlgIn types the events use; 0x80 would announce an OutType. */
enum { TLG_ANSI = 2, TLG_INT32 = 7, TLG_UINT32 = 8, TLG_BOOL32 = 13 };

/* A growing byte string: TraceLogging metadata or a payload. */
struct bytes {
	uint8_t b[512];
	uint16_t n;
};

static void put(struct bytes *s, const void *p, size_t n)
{
	memcpy(s->b + s->n, p, n);
	s->n += (uint16_t)n;
}

static void put_str(struct bytes *s, const char *str)
{
	put(s, str, strlen(str) + 1);
}

/* Event metadata: size, no tags, the name, then name and type per field. */
static void tl_meta(struct bytes *m, const char *event, ...)
{
	va_list ap;
	const char *f;
	uint8_t zero = 0, type;

	m->n = 2;
	put(m, &zero, 1);
	put_str(m, event);
	va_start(ap, event);
	while ((f = va_arg(ap, const char *)) != NULL) {
		type = (uint8_t)va_arg(ap, int);
		put_str(m, f);
		put(m, &type, 1);
	}
	va_end(ap);
	memcpy(m->b, &m->n, 2);
}

/* Provider traits: size, then the name. */
static void tl_traits(struct bytes *t, const char *provider)
{
	t->n = 2;
	put_str(t, provider);
	memcpy(t->b, &t->n, 2);
}

/*
 * An EVENT_HEADER64 record with these ext items (NULL: none) and
 * payload; returns false when the buffer is full.
 */
static bool add_event(void *buf, uint64_t ns, uint16_t id, uint8_t opcode,
		      const struct etw_guid *act, const struct bytes *traits,
		      const struct bytes *meta, const struct bytes *data)
{
	struct etw_buffer_header *bh = buf;
	const struct bytes *items[2] = { traits, meta };
	static const uint16_t types[2] = { ETW_EXT_PROV_TRAITS,
					   ETW_EXT_EVENT_SCHEMA_TL };
	struct etw_event_header eh = {
		.header_type = ETW_EVENT_HEADER_TYPE_64,
		.thread_id = TID,
		.process_id = PID,
		.timestamp = ETL_TEST_START_RAW + ns,
		.provider_id = etl_test_guid,
		.descriptor = { .id = id, .version = 1, .level = 4,
				.opcode = opcode },
	};
	uint8_t *p = (uint8_t *)buf + bh->offset;
	struct etw_ext_item x;
	uint32_t size = sizeof(eh), k, pad;

	for (k = 0; k < 2; k++)
		if (items[k])
			size += sizeof(x) + ((items[k]->n + 7u) & ~7u);
	size += data ? data->n : 0;
	pad = ((size + 7) & ~7u) - size;
	if (bh->offset + size + pad > bh->buffer_size)
		return false;
	memset(p, 0, size + pad);
	eh.size = (uint16_t)size;
	if (act)
		eh.activity_id = *act;
	if (traits || meta)
		eh.flags = ETW_EVENT_FLAG_EXTENDED_INFO;
	memcpy(p, &eh, sizeof(eh));
	p += sizeof(eh);
	for (k = 0; k < 2; k++) {
		if (!items[k])
			continue;
		x.item_size = sizeof(x) + ((items[k]->n + 7u) & ~7u);
		x.ext_type = types[k];
		x.linkage = !k && meta ? ETW_EXT_LINKAGE : 0;
		x.data_size = items[k]->n;
		memcpy(p, &x, sizeof(x));
		memcpy(p + sizeof(x), items[k]->b, items[k]->n);
		p += x.item_size;
	}
	if (data)
		memcpy(p, data->b, data->n);
	bh->offset += size + pad;
	bh->saved_offset = bh->current_offset = bh->offset;
	bh->events++;
	bh->timestamp = eh.timestamp;
	return true;
}

/* A SYSTEM_TRACE_HEADER (64-bit) record of a kernel event class. */
static void add_system_as(void *buf, uint64_t ns, uint8_t group, uint8_t type,
			  uint8_t version, uint32_t tid, uint32_t pid,
			  const struct bytes *data)
{
	struct etw_buffer_header *bh = buf;
	uint8_t *p = (uint8_t *)buf + bh->offset;
	uint32_t marker = 0xc002u << 16 | version;
	uint16_t size = (uint16_t)(32 + data->n);
	uint16_t hook = (uint16_t)(group << 8 | type);
	uint64_t ts = ETL_TEST_START_RAW + ns;

	memset(p, 0, (size + 7u) & ~7u);
	memcpy(p, &marker, 4);
	memcpy(p + 4, &size, 2);
	memcpy(p + 6, &hook, 2);
	memcpy(p + 8, &tid, 4);
	memcpy(p + 12, &pid, 4);
	memcpy(p + 16, &ts, 8);
	memcpy(p + 32, data->b, data->n);
	bh->offset += (size + 7u) & ~7u;
	bh->saved_offset = bh->current_offset = bh->offset;
	bh->events++;
	bh->timestamp = ts;
}

static void add_system(void *buf, uint64_t ns, uint8_t group, uint8_t type,
		       uint8_t version, const struct bytes *data)
{
	add_system_as(buf, ns, group, type, version, TID, PID, data);
}

static void put_u32(struct bytes *s, uint32_t v)
{
	put(s, &v, 4);
}

static void put_u64(struct bytes *s, uint64_t v)
{
	put(s, &v, 8);
}

static void put_wide(struct bytes *s, const char *ascii)
{
	uint16_t c;

	do {
		c = (uint8_t)*ascii;
		put(s, &c, 2);
	} while (*ascii++);
}

/*
 * Process_V4_TypeGroup1 Start: UniqueProcessKey, ProcessId, ParentId,
 * SessionId, ExitStatus, DirectoryTableBase, Flags, UserSID (TOKEN_USER
 * and S-1-5-18), ImageFileName, CommandLine, PackageFullName,
 * ApplicationId.
 */
static void process_start(void *buf, uint64_t ns, uint32_t pid,
			  const char *image)
{
	static const uint8_t sid[12] = { 1, 1, 0, 0, 0, 0, 0, 5, 18 };
	struct bytes d = { .n = 0 };

	put_u64(&d, 0xffffa00012340000ull);
	put_u32(&d, pid);
	put_u32(&d, 4);
	put_u32(&d, 1);
	put_u32(&d, 0);
	put_u64(&d, 0x1aa000);
	put_u32(&d, 0);
	put_u64(&d, 0xffffa00056780000ull);
	put_u64(&d, 0);
	put(&d, sid, sizeof(sid));
	put_str(&d, image);
	put_wide(&d, "demo --run");
	put_wide(&d, "");
	put_wide(&d, "");
	add_system(buf, ns, 0x03, 1, 4, &d);
}

/* Thread SetName (type 72): ProcessId, ThreadId, ThreadName. */
static void thread_set_name(void *buf, uint64_t ns, const char *name)
{
	struct bytes d = { .n = 0 };

	put_u32(&d, PID);
	put_u32(&d, TID);
	put_wide(&d, name);
	add_system(buf, ns, 0x05, 72, 2, &d);
}

static int write_file(const char *path, const void *buf, uint32_t bs)
{
	struct etw_etl_writer_params p = etl_test_params();
	struct etw_etl_writer *w;
	int ret;

	p.buffer_size = bs;
	ret = etw_etl_writer_open(path, ETW_ETL_MODE_SEQUENTIAL, &p, &w);
	if (ret)
		return ret;
	ret = etw_etl_writer_append(w, buf);
	if (etw_etl_writer_close(w, NULL) && !ret)
		ret = -EIO;
	return ret;
}

/*
 * The synthetic trace: the kernel names process and thread, an event
 * with fields of each kind, an activity's start and stop, a start with
 * no activity and two events without TraceLogging metadata, the second
 * event 2 of userlib/tests/tdh_manifest_sample.man (whose provider is
 * etl_test_guid).
 */
static int write_synthetic(const char *path)
{
	uint8_t buf[ETL_TEST_BS];
	struct bytes traits, hello, work, data = { .n = 0 }, raw = { .n = 0 };
	int32_t neg = -5;

	etl_buf_init(buf, ETL_TEST_BS, 0);
	tl_traits(&traits, "MyProvider");
	tl_meta(&hello, "Hello", "count", TLG_UINT32, "text", TLG_ANSI,
		"neg", TLG_INT32, "flag", TLG_BOOL32, NULL);
	tl_meta(&work, "Work", NULL);
	put_u32(&data, 7);
	put_str(&data, "say \"hi\"");
	put(&data, &neg, 4);
	put_u32(&data, 1);
	put(&raw, "\x01\x02\x03", 3);
	process_start(buf, 1000, PID, "demo.exe");
	thread_set_name(buf, 1200, "worker");
	if (!add_event(buf, 1500, 1, 0, NULL, &traits, &hello, &data) ||
	    !add_event(buf, 2000, 2, 1, &activity, &traits, &work, NULL) ||
	    !add_event(buf, 5000, 3, 2, &activity, &traits, &work, NULL) ||
	    !add_event(buf, 5500, 4, 1, NULL, &traits, &work, NULL) ||
	    !add_event(buf, 6000, 9, 0, NULL, NULL, NULL, &raw) ||
	    !add_event(buf, 6500, 2, 11, NULL, NULL, NULL, NULL))
		return -ENOSPC;
	return write_file(path, buf, ETL_TEST_BS);
}

/* CSwitch (version 2): NewThreadId, OldThreadId, then 16 bytes of 0. */
static void cswitch(void *buf, uint64_t ns, uint32_t tid, uint32_t pid,
		    uint32_t new_tid, uint32_t old_tid)
{
	struct bytes d = { .n = 0 };

	put_u32(&d, new_tid);
	put_u32(&d, old_tid);
	put_u64(&d, 0);
	put_u64(&d, 0);
	put_u32(&d, 0);
	add_system_as(buf, ns, 0x05, 36, 2, tid, pid, &d);
}

/* Thread_V3 DCStart of @tid: ProcessId, TThreadId, the rest 0. */
static void thread_dc_start(void *buf, uint64_t ns, uint32_t tid)
{
	struct bytes d = { .n = 0 };
	int i;

	put_u32(&d, PID);
	put_u32(&d, tid);
	for (i = 0; i < 8; i++)
		put_u64(&d, 0);
	add_system_as(buf, ns, 0x05, 3, 3, 0, 0, &d);
}

/*
 * One CPU's switches: TID runs 1-2 us, TID + 1 2-3 us, the idle thread
 * (0) 3-4 us, TID 4-5 us, then thread 777, of no known process, until
 * TID runs again from 6 us to the trace's end, 7 us.  The Thread DCStart
 * records (written by thread 0) name their threads' process.
 */
static int write_cswitches(const char *path)
{
	uint8_t buf[ETL_TEST_BS];
	struct bytes none = { .n = 0 };

	etl_buf_init(buf, ETL_TEST_BS, 0);
	thread_dc_start(buf, 900, TID);
	thread_dc_start(buf, 950, TID + 1);
	cswitch(buf, 1000, 0, 0, TID, 0);
	cswitch(buf, 2000, TID, PID, TID + 1, TID);
	cswitch(buf, 3000, TID + 1, PID, 0, TID + 1);
	cswitch(buf, 4000, 0, 0, TID, 0);
	cswitch(buf, 5000, TID, PID, 777, TID);
	cswitch(buf, 6000, 777, 99, TID, 777);
	add_system_as(buf, 7000, 0x05, 72, 2, TID, PID, &none);
	return write_file(path, buf, ETL_TEST_BS);
}

/* @n Hello events, 1 us apart, in 64 KiB buffers. */
static int write_big(const char *path, unsigned int n)
{
	struct etw_etl_writer_params p = etl_test_params();
	struct bytes traits, hello, data = { .n = 0 };
	struct etw_etl_writer *w;
	unsigned int i = 0;
	uint8_t *buf = malloc(BIG_BS);
	int ret;

	tl_traits(&traits, "MyProvider");
	tl_meta(&hello, "Hello", "count", TLG_UINT32, "text", TLG_ANSI,
		"neg", TLG_INT32, "flag", TLG_BOOL32, NULL);
	put_u32(&data, 7);
	put_str(&data, "big");
	put_u32(&data, 0);
	put_u32(&data, 0);
	p.buffer_size = BIG_BS;
	ret = buf ? etw_etl_writer_open(path, ETW_ETL_MODE_SEQUENTIAL, &p, &w) :
		-ENOMEM;
	while (!ret && i < n) {
		etl_buf_init(buf, BIG_BS, 0);
		while (i < n && add_event(buf, 1000ull * (i + 1), 1, 0, NULL,
					  &traits, &hello, &data))
			i++;
		ret = etw_etl_writer_append(w, buf);
	}
	if (buf && etw_etl_writer_close(w, NULL) && !ret)
		ret = -EIO;
	free(buf);
	return ret;
}

/* --- the tests ------------------------------------------------------------- */

FIXTURE(export) {
	char *dir;
	char *etl;
	char *out;
	struct ctl_run run;
	struct trace t;
	struct find *finds;
};

FIXTURE_SETUP(export)
{
	memset(&self->t, 0, sizeof(self->t));
	memset(&self->run, 0, sizeof(self->run));
	self->dir = etl_mkdtemp();
	ASSERT_NE(NULL, self->dir);
	self->etl = etl_path(self->dir, "in.etl");
	self->out = etl_path(self->dir, "out.json");
	ASSERT_EQ(0, write_synthetic(self->etl));
}

FIXTURE_TEARDOWN(export)
{
	ctl_run_free(&self->run);
	trace_free(&self->t);
	find_free(self->finds);
	free(self->etl);
	free(self->out);
	etl_rmdir(self->dir);
}

static struct ctl_run export(const char *file, const char *flag)
{
	return ctl_run(etwctl_cmd_export, flag ?
		       CTL_ARGV("export", "-f", "chrome-json", (char *)flag,
				(char *)file) :
		       CTL_ARGV("export", "-f", "chrome-json", (char *)file));
}

/* Export the synthetic trace, check it, and find event @name of @ph. */
static bool check_find(struct __test_metadata *_metadata,
		       FIXTURE_DATA(export) *self, const char *flag,
		       struct find *f)
{
	self->run = export(self->etl, flag);
	EXPECT_EQ(0, self->run.status) TH_LOG("%s", self->run.err);
	self->t.visit = f ? find_visit : NULL;
	self->t.ctx = f;
	self->finds = f;
	EXPECT_TRUE(trace_check(self->run.out, &self->t))
		TH_LOG("%s\n%s", self->t.err, self->run.out);
	return !self->run.status && !*self->t.err;
}

TEST_F(export, synthetic_follows_the_format)
{
	ASSERT_TRUE(check_find(_metadata, self, NULL, NULL));
	/* Process, SetName, Hello, a start without activity, ids 9 and 2. */
	EXPECT_EQ(6, self->t.i);
	EXPECT_EQ(1, self->t.b);
	EXPECT_EQ(1, self->t.e);
	EXPECT_EQ(2, self->t.m);
	EXPECT_EQ(0, self->t.x);
}

TEST_F(export, names_from_the_kernel_records)
{
	ASSERT_TRUE(check_find(_metadata, self, NULL, NULL));
	EXPECT_NE(NULL, strstr(self->run.out,
		"{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":4242,"
		"\"tid\":0,\"ts\":0,\"args\":{\"name\":\"demo.exe\"}}"));
	EXPECT_NE(NULL, strstr(self->run.out,
		"{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":4242,"
		"\"tid\":4243,\"ts\":0,\"args\":{\"name\":\"worker\"}}"));
}

/* The fields keep their JSON types: numbers, strings, Booleans. */
TEST_F(export, args_are_typed)
{
	struct find f = { .name = "Hello" };
	const struct jv *args;

	ASSERT_TRUE(check_find(_metadata, self, NULL, &f));
	ASSERT_TRUE(f.seen);
	args = jget(&f.found, "args");
	ASSERT_NE(NULL, args);
	ASSERT_TRUE(jis(args, "count", J_NUM));
	EXPECT_EQ(7, jget(args, "count")->num);
	ASSERT_TRUE(jis(args, "text", J_STR));
	EXPECT_STREQ("say \"hi\"", jget(args, "text")->str);
	ASSERT_TRUE(jis(args, "neg", J_NUM));
	EXPECT_EQ(-5, jget(args, "neg")->num);
	ASSERT_TRUE(jis(args, "flag", J_BOOL));
	EXPECT_EQ(1, jget(args, "flag")->num);
	EXPECT_STREQ("MyProvider", jget(&f.found, "cat")->str);
	EXPECT_STREQ("i", jget(&f.found, "ph")->str);
	EXPECT_STREQ("t", jget(&f.found, "s")->str);
}

/* 1500 ns after the start: 1.5 us, the 100 ns tick kept. */
TEST_F(export, ts_in_microseconds_with_ticks)
{
	struct find f = { .name = "Hello" };

	ASSERT_TRUE(check_find(_metadata, self, NULL, &f));
	ASSERT_TRUE(f.seen);
	EXPECT_STREQ("1.5", jget(&f.found, "ts")->str);
	EXPECT_EQ(PID, jget(&f.found, "pid")->num);
	EXPECT_EQ(TID, jget(&f.found, "tid")->num);
}

TEST_F(export, activity_is_an_async_pair)
{
	struct find e = { .name = "Work", .ph = "e" };
	struct find b = { .name = "Work", .ph = "b", .next = &e };

	ASSERT_TRUE(check_find(_metadata, self, NULL, &b));
	ASSERT_TRUE(b.seen && e.seen);
	EXPECT_STREQ(ACTIVITY_TEXT, jget(&b.found, "id")->str);
	EXPECT_STREQ(ACTIVITY_TEXT, jget(&e.found, "id")->str);
	EXPECT_STREQ("MyProvider", jget(&b.found, "cat")->str);
	EXPECT_STREQ("MyProvider", jget(&e.found, "cat")->str);
	EXPECT_STREQ("2.0", jget(&b.found, "ts")->str);
	EXPECT_STREQ("5.0", jget(&e.found, "ts")->str);
}

/* A start event without an activity id stays an instant. */
TEST_F(export, start_without_activity_is_instant)
{
	struct find f = { .name = "Work", .ph = "i" };

	ASSERT_TRUE(check_find(_metadata, self, NULL, &f));
	ASSERT_TRUE(f.seen);
	EXPECT_STREQ("5.5", jget(&f.found, "ts")->str);
}

/* No TraceLogging metadata: "provider/id" and the bytes as hex. */
TEST_F(export, undecodable_event_named_by_provider_and_id)
{
	struct find f = { .name = "12345678-9abc-def0-0123-456789abcdef/9" };

	ASSERT_TRUE(check_find(_metadata, self, NULL, &f));
	ASSERT_TRUE(f.seen);
	ASSERT_TRUE(jis(jget(&f.found, "args"), "data", J_STR));
	EXPECT_STREQ("010203", jget(jget(&f.found, "args"), "data")->str);
}

/* With its manifest loaded, TDH names the event by task and opcode. */
TEST_F(export, manifest_event_named_by_task_and_opcode)
{
	struct find f = { .name = "Connecting/Retrying" };

	ASSERT_TRUE(check_find(_metadata, self, "--manifest=" SRC_DIR
			       "/userlib/tests/tdh_manifest_sample.man", &f));
	ASSERT_TRUE(f.seen);
	EXPECT_STREQ("6.5", jget(&f.found, "ts")->str);
	EXPECT_EQ(0, jget(&f.found, "args")->n);
}

TEST_F(export, without_its_manifest_named_by_provider_and_id)
{
	struct find f = { .name = "12345678-9abc-def0-0123-456789abcdef/2" };

	ASSERT_TRUE(check_find(_metadata, self, NULL, &f));
	ASSERT_TRUE(f.seen);
}

TEST_F(export, slices_are_complete_events_of_no_duration)
{
	struct find f = { .name = "Hello" };

	ASSERT_TRUE(check_find(_metadata, self, "--slices", &f));
	EXPECT_EQ(0, self->t.i);
	EXPECT_EQ(6, self->t.x);
	EXPECT_EQ(1, self->t.b);
	ASSERT_TRUE(f.seen);
	EXPECT_STREQ("X", jget(&f.found, "ph")->str);
	EXPECT_EQ(0, jget(&f.found, "dur")->num);
}

/*
 * CSwitch records give each thread's running slices, "B" at its switch in
 * and "E" at its switch out on its own pid and tid, the idle thread's and
 * those of threads of no known process left out, the last one ended with
 * the trace.
 */
TEST_F(export, running_slices_from_cswitch)
{
	static const char *const want[] = {
		"\"ph\":\"B\",\"ts\":1.0,\"pid\":4242,\"tid\":4243,"
		"\"args\":{\"cpu\":0}}",
		"\"ph\":\"E\",\"ts\":2.0,\"pid\":4242,\"tid\":4243,"
		"\"args\":{}}",
		"\"ph\":\"B\",\"ts\":2.0,\"pid\":4242,\"tid\":4244,"
		"\"args\":{\"cpu\":0}}",
		"\"ph\":\"E\",\"ts\":3.0,\"pid\":4242,\"tid\":4244,"
		"\"args\":{}}",
		"\"ph\":\"B\",\"ts\":4.0,\"pid\":4242,\"tid\":4243,"
		"\"args\":{\"cpu\":0}}",
		"\"ph\":\"E\",\"ts\":5.0,\"pid\":4242,\"tid\":4243,"
		"\"args\":{}}",
		"\"ph\":\"B\",\"ts\":6.0,\"pid\":4242,\"tid\":4243,"
		"\"args\":{\"cpu\":0}}",
		"\"ph\":\"E\",\"ts\":7.0,\"pid\":4242,\"tid\":4243,"
		"\"args\":{}}",
	};
	static const char slice[] = "{\"name\":\"Running\",\"cat\":\"CSwitch\",";
	const char *at;
	size_t i;

	ASSERT_EQ(0, write_cswitches(self->etl));
	self->run = export(self->etl, NULL);
	ASSERT_EQ(0, self->run.status) TH_LOG("%s", self->run.err);
	ASSERT_TRUE(trace_check(self->run.out, &self->t))
		TH_LOG("%s\n%s", self->t.err, self->run.out);
	EXPECT_EQ(4, self->t.B);
	EXPECT_EQ(4, self->t.E);
	/* Two DCStart, six CSwitch and the SetName: instant events. */
	EXPECT_EQ(9, self->t.i);
	at = self->run.out;
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		at = strstr(at, want[i]);
		ASSERT_NE(NULL, at) TH_LOG("%s\n%s", want[i], self->run.out);
		EXPECT_EQ(0, strncmp(at - strlen(slice), slice,
				     strlen(slice)));
		at += strlen(want[i]);
	}
}

TEST_F(export, output_file)
{
	FILE *f;
	char *text;

	self->run = ctl_run(etwctl_cmd_export,
			    CTL_ARGV("export", "--format", "chrome-json", "-o",
				     self->out, self->etl));
	ASSERT_EQ(0, self->run.status) TH_LOG("%s", self->run.err);
	EXPECT_STREQ("", self->run.out);
	f = fopen(self->out, "r");
	ASSERT_NE(NULL, f);
	fseek(f, 0, SEEK_END);
	text = ctl_slurp(f);
	fclose(f);
	EXPECT_TRUE(trace_check(text, &self->t)) TH_LOG("%s", self->t.err);
	EXPECT_EQ(1, self->t.b);
	free(text);
}

/* The sample Windows wrote: five TraceLogging events of one thread. */
TEST_F(export, windows_sample)
{
	struct find f = { .name = "PrimitiveTypesTest" };
	const struct jv *args;

	REQUIRE_TESTDATA();
	self->run = export(PRIMITIVE, NULL);
	ASSERT_EQ(0, self->run.status) TH_LOG("%s", self->run.err);
	self->t.visit = find_visit;
	self->t.ctx = &f;
	self->finds = &f;
	ASSERT_TRUE(trace_check(self->run.out, &self->t))
		TH_LOG("%s", self->t.err);
	EXPECT_EQ(5, self->t.i);
	EXPECT_EQ(0, self->t.m);
	ASSERT_TRUE(f.seen);
	EXPECT_STREQ("solar_system", jget(&f.found, "cat")->str);
	args = jget(&f.found, "args");
	EXPECT_TRUE(jis(args, "string_type", J_STR));
	EXPECT_STREQ("Mercury", jget(args, "string_type")->str);
	EXPECT_TRUE(jis(args, "int16_type", J_NUM));
	EXPECT_EQ(-51, jget(args, "int16_type")->num);
	EXPECT_TRUE(jis(args, "boolean_type", J_BOOL));
	EXPECT_TRUE(jis(args, "guid_type", J_STR));
}

/* The first event's ts is its time after the file's start, in us. */
TEST_F(export, windows_sample_ts_from_the_header)
{
	struct find f = { .name = "PrimitiveTypesTest" };
	struct etw_etl_reader *r;
	struct etw_etl_merge *m;
	struct etw_etl_event ev;
	int64_t start, first = 0;
	char want[32];

	REQUIRE_TESTDATA();
	ASSERT_EQ(0, etw_etl_reader_open(PRIMITIVE, &r));
	start = (int64_t)etw_etl_reader_header(r)->start_time;
	ASSERT_EQ(0, etw_etl_merge_open(&r, 1, &m));
	while (!first && etw_etl_merge_next(m, &ev, NULL) > 0)
		if (ev.kind == ETW_ETL_KIND_EVENT && ev.ext_count)
			first = ev.timestamp;
	etw_etl_merge_close(m);
	etw_etl_reader_close(r);
	snprintf(want, sizeof(want), "%lld.%lld",
		 (long long)(first - start) / 10,
		 (long long)(first - start) % 10);
	self->run = export(PRIMITIVE, NULL);
	self->t.visit = find_visit;
	self->t.ctx = &f;
	self->finds = &f;
	ASSERT_TRUE(trace_check(self->run.out, &self->t))
		TH_LOG("%s", self->t.err);
	ASSERT_TRUE(f.seen);
	EXPECT_STREQ(want, jget(&f.found, "ts")->str);
}

/* Counts the events named "provider/id": those nothing decoded. */
static bool count_undecoded(void *ctx, const struct jv *ev)
{
	const char *name = jget(ev, "name")->str;

	*(int *)ctx += !strncmp(name, jget(ev, "cat")->str,
				strlen(jget(ev, "cat")->str));
	return true;
}

/*
 * The CLR sample with its manifest: every one of its 69 events named by
 * the manifest's name of the event (the runtime's symbol for it) in the
 * runtime's category, mapped values as names.
 */
TEST_F(export, windows_clr_sample_named_by_its_manifest)
{
	struct find f = { .name = "GCCreateSegment" };
	int undecoded = 0;

	REQUIRE_TESTDATA();
	self->run = ctl_run(etwctl_cmd_export,
			    CTL_ARGV("export", "-f", "chrome-json", "--manifest",
				     SRC_DIR "/userlib/manifests/clr.man", CLR));
	ASSERT_EQ(0, self->run.status) TH_LOG("%s", self->run.err);
	self->t.visit = count_undecoded;
	self->t.ctx = &undecoded;
	ASSERT_TRUE(trace_check(self->run.out, &self->t))
		TH_LOG("%s", self->t.err);
	EXPECT_EQ(69, self->t.i);
	EXPECT_EQ(0, undecoded);
	trace_free(&self->t);
	memset(&self->t, 0, sizeof(self->t));
	self->t.visit = find_visit;
	self->t.ctx = &f;
	self->finds = &f;
	ASSERT_TRUE(trace_check(self->run.out, &self->t));
	ASSERT_TRUE(f.seen);
	EXPECT_STREQ("Microsoft-Windows-DotNETRuntime",
		     jget(&f.found, "cat")->str);
	ASSERT_TRUE(jis(jget(&f.found, "args"), "Type", J_STR));
	EXPECT_STREQ("PinnedObjectHeap",
		     jget(jget(&f.found, "args"), "Type")->str);
}

/* The peak memory of an export of @n events; its rate on the log. */
static long export_rss_kb(const char *dir, unsigned int n)
{
	char *etl = etl_path(dir, "big.etl"), *out = etl_path(dir, "big.json");
	struct timespec t0, t1;
	struct ctl_run r;
	struct rusage ru;
	long kb = -1;
	double s;

	if (!etl || !out || write_big(etl, n))
		goto out;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	r = ctl_run(etwctl_cmd_export, CTL_ARGV("export", "-f", "chrome-json",
						"-o", out, etl));
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ctl_run_free(&r);
	if (r.status || getrusage(RUSAGE_CHILDREN, &ru))
		goto out;
	s = (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	ksft_print_msg("%u events, %lld bytes of JSON in %.3f s: %.0f events/s, "
		       "peak RSS %ld KiB\n", n, (long long)etl_file_size(out),
		       s, n / s, ru.ru_maxrss);
	kb = ru.ru_maxrss;
	unlink(etl);
	unlink(out);
out:
	free(etl);
	free(out);
	return kb;
}

/*
 * Eight times the events need no more memory: nothing is kept per
 * event.  (The peak of all children so far is the small run's until the
 * big one passes it.)
 */
TEST_F(export, constant_memory)
{
	long small = export_rss_kb(self->dir, 20000);
	long big;

	ASSERT_LT(0, small);
	big = export_rss_kb(self->dir, 160000);
	ASSERT_LT(0, big);
	EXPECT_LT(big, small + 1024);
}

/* Bad arguments: usage (2); what cannot be read or written: 1. */
TEST_F(export, errors)
{
	static const struct {
		const char *argv[8];
		int status;
		const char *err;
	} cases[] = {
		{ { "export", "IN" }, 2,
		  "etwctl export: no --format (see 'etwctl export --help')\n" },
		{ { "export", "-f", "json", "IN" }, 2,
		  "etwctl export: bad value 'json' for '--format' "
		  "(see 'etwctl export --help')\n" },
		{ { "export", "-f", "chrome-json" }, 2,
		  "etwctl export: no input file "
		  "(see 'etwctl export --help')\n" },
		{ { "export", "-f", "chrome-json", "--bogus", "IN" }, 2,
		  "etwctl export: unknown option '--bogus'" },
		{ { "export", "-f", "chrome-json", "/nonexistent/x.etl" }, 1,
		  "etwctl export: /nonexistent/x.etl: " },
		{ { "export", "-f", "chrome-json", "-o", "/nonexistent/o.json",
		    "IN" }, 1,
		  "etwctl export: /nonexistent/o.json: No such file or "
		  "directory\n" },
		{ { "export", "--manifest", "/nonexistent/m.man", "IN" }, 1,
		  "etwctl export: /nonexistent/m.man: " },
	};
	struct ctl_run r;
	char *argv[8];
	size_t i, k;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		for (k = 0; k < 8; k++)
			argv[k] = cases[i].argv[k] &&
				  !strcmp(cases[i].argv[k], "IN") ?
				  self->etl : (char *)cases[i].argv[k];
		r = ctl_run(etwctl_cmd_export, argv);
		EXPECT_EQ(cases[i].status, r.status) TH_LOG("case %zu", i);
		EXPECT_EQ(0, strncmp(cases[i].err, r.err,
				     strlen(cases[i].err)))
			TH_LOG("case %zu: %s", i, r.err);
		EXPECT_STREQ("", r.out);
		ctl_run_free(&r);
	}
}

TEST_HARNESS_MAIN
