// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * etw_tdh_manifest.c: instrumentation manifests (the Windows event
 * manifest schema) read with libxml2 into the model of
 * etw_tdh_manifest.h.
 *
 * Elements are matched by local name, so the default namespace and a
 * "win:" or "ev:" prefix both work.  Level, opcode and keyword names of
 * winmeta.xml ("win:Informational", "win:Start", "win:AuditSuccess") are
 * built in.  message
 * attributes of the form $(string.ID) take their text from the first
 * stringTable.  Any error (XML syntax, a missing attribute, a reference
 * to nothing, a bad number or type) is reported as "libetw: FILE:LINE:
 * what" on the caller's stream (stderr for TdhLoadManifest) and the whole
 * manifest is rejected with ERROR_XML_PARSE_ERROR.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libxml/parser.h>
#include <libxml/tree.h>

#include "etw_tdh_manifest.h"

/* Every string of a manifest, freed with it. */
struct etw_mf_str {
	struct etw_mf_str *next;
	char s[];
};

struct etw_mf_ctx {
	struct etw_manifest *m;
	const char *file;
	FILE *diag;		/* where errors are told, or NULL */
	xmlNode *strings;	/* the stringTable, or NULL */
};

/* A winmeta.xml item: its display text is its description too. */
#define ETW_MF_WINMETA(name, text, value) \
	{ name, text, value, 0, name, text, NULL }

static const struct etw_mf_item etw_mf_winmeta_levels[] = {
	ETW_MF_WINMETA("win:LogAlways", "Log Always", 0),
	ETW_MF_WINMETA("win:Critical", "Critical", 1),
	ETW_MF_WINMETA("win:Error", "Error", 2),
	ETW_MF_WINMETA("win:Warning", "Warning", 3),
	ETW_MF_WINMETA("win:Informational", "Information", 4),
	ETW_MF_WINMETA("win:Verbose", "Verbose", 5),
};

static const struct etw_mf_item etw_mf_winmeta_opcodes[] = {
	ETW_MF_WINMETA("win:Info", "Info", 0),
	ETW_MF_WINMETA("win:Start", "Start", 1),
	ETW_MF_WINMETA("win:Stop", "Stop", 2),
	ETW_MF_WINMETA("win:DC_Start", "DC_Start", 3),
	ETW_MF_WINMETA("win:DC_Stop", "DC_Stop", 4),
	ETW_MF_WINMETA("win:Extension", "Extension", 5),
	ETW_MF_WINMETA("win:Reply", "Reply", 6),
	ETW_MF_WINMETA("win:Resume", "Resume", 7),
	ETW_MF_WINMETA("win:Suspend", "Suspend", 8),
	ETW_MF_WINMETA("win:Send", "Send", 9),
	ETW_MF_WINMETA("win:Receive", "Receive", 240),
};

/*
 * winmeta.xml's keywords, the top 16 bits (winmeta.h's
 * WINEVENT_KEYWORD_*).  win:CorrelationHint is bit 54 as winmeta.h has
 * it; .NET's StandardEventKeywords.CorrelationHint gives bit 52 and is
 * documented as the incorrect value (use CorrelationHint2, bit 54).
 */
static const struct etw_mf_item etw_mf_winmeta_keywords[] = {
	ETW_MF_WINMETA("win:ResponseTime", "Response Time", 1ULL << 48),
	ETW_MF_WINMETA("win:WDIContext", "WDI Context", 1ULL << 49),
	ETW_MF_WINMETA("win:WDIDiag", "WDI Diag", 1ULL << 50),
	ETW_MF_WINMETA("win:SQM", "SQM", 1ULL << 51),
	ETW_MF_WINMETA("win:AuditFailure", "Audit Failure", 1ULL << 52),
	ETW_MF_WINMETA("win:AuditSuccess", "Audit Success", 1ULL << 53),
	ETW_MF_WINMETA("win:CorrelationHint", "Correlation Hint", 1ULL << 54),
	ETW_MF_WINMETA("win:EventlogClassic", "Classic", 1ULL << 55),
};

/* Index = TDH_INTYPE_*. */
static const char *const etw_mf_in_types[] = {
	[TDH_INTYPE_UNICODESTRING] = "UnicodeString",
	[TDH_INTYPE_ANSISTRING] = "AnsiString",
	[TDH_INTYPE_INT8] = "Int8", [TDH_INTYPE_UINT8] = "UInt8",
	[TDH_INTYPE_INT16] = "Int16", [TDH_INTYPE_UINT16] = "UInt16",
	[TDH_INTYPE_INT32] = "Int32", [TDH_INTYPE_UINT32] = "UInt32",
	[TDH_INTYPE_INT64] = "Int64", [TDH_INTYPE_UINT64] = "UInt64",
	[TDH_INTYPE_FLOAT] = "Float", [TDH_INTYPE_DOUBLE] = "Double",
	[TDH_INTYPE_BOOLEAN] = "Boolean", [TDH_INTYPE_BINARY] = "Binary",
	[TDH_INTYPE_GUID] = "GUID", [TDH_INTYPE_POINTER] = "Pointer",
	[TDH_INTYPE_FILETIME] = "FILETIME",
	[TDH_INTYPE_SYSTEMTIME] = "SYSTEMTIME", [TDH_INTYPE_SID] = "SID",
	[TDH_INTYPE_HEXINT32] = "HexInt32", [TDH_INTYPE_HEXINT64] = "HexInt64",
	[TDH_INTYPE_MANIFEST_COUNTEDSTRING] = "CountedUnicodeString",
	[TDH_INTYPE_MANIFEST_COUNTEDANSISTRING] = "CountedAnsiString",
	[TDH_INTYPE_MANIFEST_COUNTEDBINARY] = "CountedBinary",
};

/* Index = TDH_OUTTYPE_*; "xs:" types first, then "win:" ones. */
static const char *const etw_mf_out_types[] = {
	[TDH_OUTTYPE_STRING] = "xs:string",
	[TDH_OUTTYPE_DATETIME] = "xs:dateTime",
	[TDH_OUTTYPE_BYTE] = "xs:byte",
	[TDH_OUTTYPE_UNSIGNEDBYTE] = "xs:unsignedByte",
	[TDH_OUTTYPE_SHORT] = "xs:short",
	[TDH_OUTTYPE_UNSIGNEDSHORT] = "xs:unsignedShort",
	[TDH_OUTTYPE_INT] = "xs:int",
	[TDH_OUTTYPE_UNSIGNEDINT] = "xs:unsignedInt",
	[TDH_OUTTYPE_LONG] = "xs:long",
	[TDH_OUTTYPE_UNSIGNEDLONG] = "xs:unsignedLong",
	[TDH_OUTTYPE_FLOAT] = "xs:float",
	[TDH_OUTTYPE_DOUBLE] = "xs:double",
	[TDH_OUTTYPE_BOOLEAN] = "xs:boolean",
	[TDH_OUTTYPE_GUID] = "xs:GUID",
	[TDH_OUTTYPE_HEXBINARY] = "xs:hexBinary",
	[TDH_OUTTYPE_HEXINT8] = "win:HexInt8",
	[TDH_OUTTYPE_HEXINT16] = "win:HexInt16",
	[TDH_OUTTYPE_HEXINT32] = "win:HexInt32",
	[TDH_OUTTYPE_HEXINT64] = "win:HexInt64",
	[TDH_OUTTYPE_PID] = "win:PID", [TDH_OUTTYPE_TID] = "win:TID",
	[TDH_OUTTYPE_PORT] = "win:Port", [TDH_OUTTYPE_IPV4] = "win:IPv4",
	[TDH_OUTTYPE_IPV6] = "win:IPv6",
	[TDH_OUTTYPE_SOCKETADDRESS] = "win:SocketAddress",
	[TDH_OUTTYPE_CIMDATETIME] = "win:CIMDateTime",
	[TDH_OUTTYPE_ETWTIME] = "win:ETWTIME",
	[TDH_OUTTYPE_XML] = "win:Xml",
	[TDH_OUTTYPE_ERRORCODE] = "win:ErrorCode",
	[TDH_OUTTYPE_WIN32ERROR] = "win:Win32Error",
	[TDH_OUTTYPE_NTSTATUS] = "win:NTSTATUS",
	[TDH_OUTTYPE_HRESULT] = "win:HResult",
	[TDH_OUTTYPE_CULTURE_INSENSITIVE_DATETIME] =
		"win:DateTimeCultureInsensitive",
	[TDH_OUTTYPE_JSON] = "win:Json",
	[TDH_OUTTYPE_UTF8] = "win:Utf8",
	[TDH_OUTTYPE_PKCS7_WITH_TYPE_INFO] = "win:Pkcs7WithTypeInfo",
	[TDH_OUTTYPE_CODE_POINTER] = "win:CodePointer",
	[TDH_OUTTYPE_DATETIME_UTC] = "win:DateTimeUtc",
};

#define ETW_MF_ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/**
 * etw_mf_in_type_known - whether an InType is one a manifest may name
 * @in: a TDH_INTYPE_* value
 *
 * Return: true for the types of etw_mf_in_types, the manifest's own.
 */
bool etw_mf_in_type_known(USHORT in)
{
	return in < ETW_MF_ARRAY_SIZE(etw_mf_in_types) && etw_mf_in_types[in];
}

/**
 * etw_mf_out_type_known - whether an OutType is one a manifest may name
 * @out: a TDH_OUTTYPE_* value, 0 for none
 *
 * Return: true for none and the types of etw_mf_out_types.
 */
bool etw_mf_out_type_known(USHORT out)
{
	return !out || (out < ETW_MF_ARRAY_SIZE(etw_mf_out_types) &&
			etw_mf_out_types[out]);
}

static const struct etw_mf_item *
etw_mf_winmeta_find(const struct etw_mf_item *v, size_t n, uint64_t value)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (v[i].value == value)
			return &v[i];
	return NULL;
}

/**
 * etw_mf_winmeta_level - winmeta.xml's level of a value
 * @value: the level
 *
 * Return: the built-in item ("win:Informational" for 4), or NULL.
 */
const struct etw_mf_item *etw_mf_winmeta_level(uint64_t value)
{
	return etw_mf_winmeta_find(etw_mf_winmeta_levels,
				   ETW_MF_ARRAY_SIZE(etw_mf_winmeta_levels),
				   value);
}

/**
 * etw_mf_winmeta_keyword - winmeta.xml's keyword of one bit
 * @bit: the keyword's mask, a single bit
 *
 * Return: the built-in item ("win:AuditSuccess" for bit 53), or NULL.
 */
const struct etw_mf_item *etw_mf_winmeta_keyword(uint64_t bit)
{
	return etw_mf_winmeta_find(etw_mf_winmeta_keywords,
				   ETW_MF_ARRAY_SIZE(etw_mf_winmeta_keywords),
				   bit);
}

/**
 * etw_mf_winmeta_opcode - winmeta.xml's opcode of a value
 * @value: the opcode
 *
 * Return: the built-in item ("win:Start" for 1), or NULL.
 */
const struct etw_mf_item *etw_mf_winmeta_opcode(uint64_t value)
{
	return etw_mf_winmeta_find(etw_mf_winmeta_opcodes,
				   ETW_MF_ARRAY_SIZE(etw_mf_winmeta_opcodes),
				   value);
}

static ULONG __attribute__((format(printf, 3, 4)))
etw_mf_fail(const struct etw_mf_ctx *c, const xmlNode *n, const char *fmt,
	    ...)
{
	va_list ap;

	if (!c->diag)
		return ERROR_XML_PARSE_ERROR;
	fprintf(c->diag, "libetw: %s:%ld: ", c->file,
		n ? xmlGetLineNo(n) : 0);
	va_start(ap, fmt);
	vfprintf(c->diag, fmt, ap);
	va_end(ap);
	fputc('\n', c->diag);
	return ERROR_XML_PARSE_ERROR;
}

/**
 * etw_manifest_strdup - a copy of a string that lives as long as @m
 * @m: the manifest being built
 * @s: the string
 *
 * Return: the copy, freed by etw_manifest_free(); NULL when out of memory.
 */
char *etw_manifest_strdup(struct etw_manifest *m, const char *s)
{
	size_t n = strlen(s) + 1;
	struct etw_mf_str *p = malloc(sizeof(*p) + n);

	if (!p)
		return NULL;
	memcpy(p->s, s, n);
	p->next = m->strs;
	m->strs = p;
	return p->s;
}

static char *etw_mf_strdup(struct etw_mf_ctx *c, const char *s)
{
	return etw_manifest_strdup(c->m, s);
}

static bool etw_mf_is(const xmlNode *n, const char *name)
{
	return n->type == XML_ELEMENT_NODE &&
	       !strcmp((const char *)n->name, name);
}

/* Attribute @name of @n copied into the manifest; NULL when absent. */
static ULONG etw_mf_attr(struct etw_mf_ctx *c, xmlNode *n, const char *name,
			 bool required, char **out)
{
	xmlChar *v = xmlGetProp(n, (const xmlChar *)name);

	*out = NULL;
	if (!v)
		return required ? etw_mf_fail(c, n, "<%s> needs %s=",
					      (const char *)n->name, name) :
				  ERROR_SUCCESS;
	*out = etw_mf_strdup(c, (const char *)v);
	xmlFree(v);
	return *out ? ERROR_SUCCESS : ERROR_OUTOFMEMORY;
}

static bool etw_mf_parse_u64(const char *s, uint64_t *v)
{
	char *end;

	if (!*s || *s == '-' || *s == ' ')
		return false;
	errno = 0;
	*v = strtoull(s, &end, 0);
	return !errno && !*end;
}

static ULONG etw_mf_number(struct etw_mf_ctx *c, xmlNode *n, const char *name,
			   uint64_t max, bool required, uint64_t *v)
{
	char *s;
	ULONG ret = etw_mf_attr(c, n, name, required, &s);

	*v = 0;
	if (ret || !s)
		return ret;
	if (!etw_mf_parse_u64(s, v) || *v > max)
		return etw_mf_fail(c, n, "%s=\"%s\" is not a number up to %llu",
				   name, s, (unsigned long long)max);
	return ERROR_SUCCESS;
}

/* The text of a message attribute: $(string.ID) from the stringTable. */
static ULONG etw_mf_message(struct etw_mf_ctx *c, xmlNode *n, char **out)
{
	size_t len;
	xmlNode *s;
	xmlChar *id;
	char *m;
	ULONG ret = etw_mf_attr(c, n, "message", false, &m);
	bool hit;

	*out = m;
	if (ret || !m || strncmp(m, "$(string.", 9))
		return ret;
	len = strlen(m);
	if (m[len - 1] != ')')
		return etw_mf_fail(c, n, "bad message reference \"%s\"", m);
	m[len - 1] = 0;
	for (s = c->strings ? c->strings->children : NULL; s; s = s->next) {
		if (!etw_mf_is(s, "string"))
			continue;
		id = xmlGetProp(s, (const xmlChar *)"id");
		hit = id && !strcmp((const char *)id, m + 9);
		xmlFree(id);
		if (hit)
			return etw_mf_attr(c, s, "value", true, out);
	}
	return etw_mf_fail(c, n, "no string \"%s\" in the stringTable", m + 9);
}

static void *etw_mf_grow(void *v, uint32_t n, size_t size)
{
	return realloc(v, (n + 1) * size);
}

static ULONG etw_mf_add_item(struct etw_mf_list *l, struct etw_mf_item **it)
{
	struct etw_mf_item *v = etw_mf_grow(l->v, l->n, sizeof(*v));

	if (!v)
		return ERROR_OUTOFMEMORY;
	l->v = v;
	*it = &v[l->n++];
	memset(*it, 0, sizeof(**it));
	return ERROR_SUCCESS;
}

/*
 * A <keyword>, <level>, <opcode>, <task> or <channel>: name, value (the
 * @vattr attribute, up to @max) and display text (message, else name).
 */
static ULONG etw_mf_item(struct etw_mf_ctx *c, xmlNode *n, const char *vattr,
			 uint64_t max, struct etw_mf_list *l, uint16_t task)
{
	struct etw_mf_item *it;
	char *chid;
	uint32_t i;
	ULONG ret = etw_mf_add_item(l, &it);

	if (ret)
		return ret;
	it->task = task;
	ret = etw_mf_attr(c, n, "name", true, &it->name);
	if (!ret)
		ret = etw_mf_number(c, n, vattr, max, !etw_mf_is(n, "channel"),
				    &it->value);
	if (!ret)
		ret = etw_mf_attr(c, n, "symbol", false, &it->symbol);
	if (!ret)
		ret = etw_mf_message(c, n, &it->text);
	if (ret)
		return ret;
	it->label = it->name;
	it->desc = it->text;
	if (!it->text)
		it->text = it->name;
	/* Events name a channel by its chid when it has one. */
	if (etw_mf_is(n, "channel")) {
		ret = etw_mf_attr(c, n, "chid", false, &chid);
		if (ret)
			return ret;
		if (chid)
			it->name = chid;
	}
	for (i = 0; i + 1 < l->n; i++)
		if (l->v[i].task == task && !strcmp(l->v[i].name, it->name))
			return etw_mf_fail(c, n, "\"%s\" defined twice",
					   it->name);
	return ERROR_SUCCESS;
}

/* The channels Windows defines, which a manifest imports by name. */
static const struct etw_mf_item etw_mf_winmeta_channels[] = {
	ETW_MF_WINMETA("System", "System", 8),
	ETW_MF_WINMETA("Application", "Application", 9),
	ETW_MF_WINMETA("Security", "Security", 10),
};

/* An <importChannel>: a Windows channel under the manifest's chid. */
static ULONG etw_mf_import_channel(struct etw_mf_ctx *c, xmlNode *n,
				   struct etw_mf_list *l)
{
	const struct etw_mf_item *w = NULL;
	struct etw_mf_item *it;
	char *name;
	size_t i;
	ULONG ret = etw_mf_attr(c, n, "name", true, &name);

	if (ret)
		return ret;
	for (i = 0; i < ETW_MF_ARRAY_SIZE(etw_mf_winmeta_channels); i++)
		if (!strcmp(etw_mf_winmeta_channels[i].name, name))
			w = &etw_mf_winmeta_channels[i];
	if (!w)
		return etw_mf_fail(c, n, "importChannel \"%s\" is not %s",
				   name, "System, Application or Security");
	ret = etw_mf_add_item(l, &it);
	if (!ret)
		ret = etw_mf_attr(c, n, "chid", true, &it->name);
	if (!ret)
		ret = etw_mf_attr(c, n, "symbol", false, &it->symbol);
	if (ret)
		return ret;
	it->value = w->value;
	it->label = name;
	it->text = name;
	return ERROR_SUCCESS;
}

/*
 * <channels>, defined and imported, in order.  A defined channel without
 * a value takes the next free one from 16, as mc.exe numbers them.
 */
static ULONG etw_mf_channels(struct etw_mf_ctx *c, xmlNode *list,
			     struct etw_mf_list *l)
{
	xmlChar *v;
	xmlNode *n;
	uint64_t next = 16;
	uint32_t i, j;
	ULONG ret;

	for (n = list ? list->children : NULL; n; n = n->next) {
		if (etw_mf_is(n, "importChannel"))
			ret = etw_mf_import_channel(c, n, l);
		else if (etw_mf_is(n, "channel"))
			ret = etw_mf_item(c, n, "value", 0xff, l, 0);
		else
			continue;
		if (ret)
			return ret;
		v = xmlGetProp(n, (const xmlChar *)"value");
		if (!v && etw_mf_is(n, "channel"))
			l->v[l->n - 1].value = UINT64_MAX;
		xmlFree(v);
	}
	for (i = 0; i < l->n; i++) {
		if (l->v[i].value != UINT64_MAX)
			continue;
		for (j = 0; j < l->n; j++)
			if (l->v[j].value == next) {
				next++;
				j = UINT32_MAX;
			}
		if (next > 0xff)
			return etw_mf_fail(c, list, "too many channels");
		l->v[i].value = next++;
	}
	return ERROR_SUCCESS;
}

/* Children <@elem> of @list (when present) into @l. */
static ULONG etw_mf_items(struct etw_mf_ctx *c, xmlNode *list,
			  const char *elem, const char *vattr, uint64_t max,
			  struct etw_mf_list *l)
{
	xmlNode *n;
	ULONG ret;

	for (n = list ? list->children : NULL; n; n = n->next) {
		if (!etw_mf_is(n, elem))
			continue;
		ret = etw_mf_item(c, n, vattr, max, l, 0);
		if (ret)
			return ret;
	}
	return ERROR_SUCCESS;
}

/* Tasks, and each task's own <opcodes> (into the provider's opcodes). */
static ULONG etw_mf_tasks(struct etw_mf_ctx *c, xmlNode *list,
			  struct etw_mf_provider *p)
{
	xmlNode *n, *o, *op;
	uint16_t task;
	ULONG ret;

	for (n = list ? list->children : NULL; n; n = n->next) {
		if (!etw_mf_is(n, "task"))
			continue;
		ret = etw_mf_item(c, n, "value", 0xffff, &p->tasks, 0);
		if (ret)
			return ret;
		task = (uint16_t)p->tasks.v[p->tasks.n - 1].value;
		for (o = n->children; o; o = o->next) {
			if (!etw_mf_is(o, "opcodes"))
				continue;
			for (op = o->children; op; op = op->next) {
				if (!etw_mf_is(op, "opcode"))
					continue;
				ret = etw_mf_item(c, op, "value", 0xff,
						  &p->opcodes, task);
				if (ret)
					return ret;
			}
		}
	}
	return ERROR_SUCCESS;
}

static ULONG etw_mf_map(struct etw_mf_ctx *c, xmlNode *n,
			struct etw_mf_provider *p, MAP_FLAGS flag)
{
	struct etw_mf_map *m = etw_mf_grow(p->maps, p->nmaps, sizeof(*m));
	struct etw_mf_entry *e;
	uint64_t v;
	xmlNode *k;
	ULONG ret;

	if (!m)
		return ERROR_OUTOFMEMORY;
	p->maps = m;
	m = &m[p->nmaps++];
	memset(m, 0, sizeof(*m));
	m->flag = flag;
	ret = etw_mf_attr(c, n, "name", true, &m->name);
	if (!ret)
		ret = etw_mf_attr(c, n, "symbol", false, &m->symbol);
	for (k = n->children; k && !ret; k = k->next) {
		if (!etw_mf_is(k, "map"))
			continue;
		e = etw_mf_grow(m->e, m->n, sizeof(*e));
		if (!e)
			return ERROR_OUTOFMEMORY;
		m->e = e;
		e = &e[m->n++];
		memset(e, 0, sizeof(*e));
		ret = etw_mf_number(c, k, "value", 0xffffffff, true, &v);
		if (!ret)
			ret = etw_mf_message(c, k, &e->text);
		if (!ret && !e->text)
			ret = etw_mf_fail(c, k, "<map> needs message=");
		if (!ret)
			ret = etw_mf_attr(c, k, "symbol", false, &e->symbol);
		e->value = (uint32_t)v;
	}
	return ret;
}

static ULONG etw_mf_maps(struct etw_mf_ctx *c, xmlNode *list,
			 struct etw_mf_provider *p)
{
	xmlNode *n;
	ULONG ret = ERROR_SUCCESS;

	for (n = list ? list->children : NULL; n && !ret; n = n->next) {
		if (etw_mf_is(n, "valueMap"))
			ret = etw_mf_map(c, n, p,
					 EVENTMAP_INFO_FLAG_MANIFEST_VALUEMAP);
		else if (etw_mf_is(n, "bitMap"))
			ret = etw_mf_map(c, n, p,
					 EVENTMAP_INFO_FLAG_MANIFEST_BITMAP);
	}
	return ret;
}

/* @s without a "win:" prefix in @table; 0 when absent. */
static USHORT etw_mf_type(const char *const *table, size_t n, const char *s,
			  bool strip)
{
	size_t i;

	if (strip && !strncmp(s, "win:", 4))
		s += 4;
	for (i = 1; i < n; i++)
		if (table[i] && !strcmp(table[i], s))
			return (USHORT)i;
	return 0;
}

/* Template-building state: declaration order and TDH's order. */
struct etw_mf_tbuild {
	struct etw_mf_template *t;
	xmlNode **node;		/* each property's element, TDH order */
	uint32_t *parent;	/* its struct's index, or UINT32_MAX */
};

static ULONG etw_mf_add_prop(struct etw_mf_ctx *c, struct etw_mf_tbuild *b,
			     xmlNode *n, uint32_t parent)
{
	struct etw_mf_template *t = b->t;
	void *v;

	if (t->n >= 0xffff)
		return etw_mf_fail(c, n, "too many properties");
	v = etw_mf_grow(t->p, t->n, sizeof(*t->p));
	if (!v)
		return ERROR_OUTOFMEMORY;
	t->p = v;
	v = etw_mf_grow(b->node, t->n, sizeof(*b->node));
	if (!v)
		return ERROR_OUTOFMEMORY;
	b->node = v;
	v = etw_mf_grow(b->parent, t->n, sizeof(*b->parent));
	if (!v)
		return ERROR_OUTOFMEMORY;
	b->parent = v;
	memset(&t->p[t->n], 0, sizeof(t->p[0]));
	b->node[t->n] = n;
	b->parent[t->n++] = parent;
	return ERROR_SUCCESS;
}

/*
 * A count or length attribute: a number, or the name of an integer
 * property before this one at the same level.
 */
static ULONG etw_mf_param(struct etw_mf_ctx *c, struct etw_mf_tbuild *b,
			  uint32_t i, const char *attr, USHORT *val,
			  bool *named, bool *present)
{
	const struct etw_mf_template *t = b->t;
	uint64_t v;
	uint32_t j;
	USHORT in;
	char *s;
	ULONG ret = etw_mf_attr(c, b->node[i], attr, false, &s);

	*named = false;
	*present = s;
	if (ret || !s)
		return ret;
	if (etw_mf_parse_u64(s, &v)) {
		if (v > 0xffff)
			return etw_mf_fail(c, b->node[i], "%s=%s too big",
					   attr, s);
		*val = (USHORT)v;
		return ERROR_SUCCESS;
	}
	for (j = 0; j < t->n; j++) {
		if (b->parent[j] != b->parent[i] ||
		    b->node[j] == b->node[i] || strcmp(t->p[j].name, s))
			continue;
		in = t->p[j].epi.nonStructType.InType;
		/* Siblings' indexes follow their order in the template. */
		if (j > i || (t->p[j].epi.Flags & PropertyStruct) ||
		    (in != TDH_INTYPE_UINT8 && in != TDH_INTYPE_UINT16 &&
		     in != TDH_INTYPE_UINT32))
			break;
		*val = (USHORT)j;
		*named = true;
		return ERROR_SUCCESS;
	}
	return etw_mf_fail(c, b->node[i],
			   "%s=\"%s\" names no unsigned integer before it",
			   attr, s);
}

static ULONG etw_mf_data_types(struct etw_mf_ctx *c, xmlNode *n,
			       const struct etw_mf_provider *p,
			       struct etw_mf_prop *pr)
{
	char *in, *out, *map;
	uint32_t k;
	ULONG ret = etw_mf_attr(c, n, "inType", true, &in);

	if (!ret)
		ret = etw_mf_attr(c, n, "outType", false, &out);
	if (!ret)
		ret = etw_mf_attr(c, n, "map", false, &map);
	if (ret)
		return ret;
	pr->epi.nonStructType.InType =
		etw_mf_type(etw_mf_in_types, ETW_MF_ARRAY_SIZE(etw_mf_in_types),
			    in, true);
	if (!pr->epi.nonStructType.InType)
		return etw_mf_fail(c, n, "unknown inType \"%s\"", in);
	if (out) {
		pr->epi.nonStructType.OutType =
			etw_mf_type(etw_mf_out_types,
				    ETW_MF_ARRAY_SIZE(etw_mf_out_types), out,
				    false);
		if (!pr->epi.nonStructType.OutType)
			return etw_mf_fail(c, n, "unknown outType \"%s\"", out);
	}
	for (k = 0; map && k < p->nmaps; k++)
		if (!strcmp(p->maps[k].name, map))
			pr->map = &p->maps[k];
	if (map && !pr->map)
		return etw_mf_fail(c, n, "no map \"%s\"", map);
	return ERROR_SUCCESS;
}

/* Flags, count and length of property @i once all names are known. */
static ULONG etw_mf_prop_params(struct etw_mf_ctx *c, struct etw_mf_tbuild *b,
				uint32_t i)
{
	EVENT_PROPERTY_INFO *epi = &b->t->p[i].epi;
	USHORT count = 1, length = 0;
	bool named, present;
	ULONG ret = etw_mf_param(c, b, i, "count", &count, &named, &present);

	if (ret)
		return ret;
	epi->count = count;
	if (named)
		epi->Flags |= PropertyParamCount;
	else if (present)
		epi->Flags |= PropertyParamFixedCount;
	if (epi->Flags & PropertyStruct)
		return ERROR_SUCCESS;
	ret = etw_mf_param(c, b, i, "length", &length, &named, &present);
	if (ret)
		return ret;
	epi->length = length;
	if (named)
		epi->Flags |= PropertyParamLength;
	else if (present)
		epi->Flags |= PropertyParamFixedLength;
	if (epi->nonStructType.InType == TDH_INTYPE_BINARY && !present)
		return etw_mf_fail(c, b->node[i], "win:Binary needs length=");
	return ERROR_SUCCESS;
}

/* The <data> and <struct> children of @parent_node, one level. */
static ULONG etw_mf_level(struct etw_mf_ctx *c, struct etw_mf_tbuild *b,
			  const struct etw_mf_provider *p, xmlNode *parent_node,
			  uint32_t parent)
{
	struct etw_mf_prop *pr;
	xmlNode *n;
	ULONG ret;

	for (n = parent_node->children; n; n = n->next) {
		if (!etw_mf_is(n, "data") && !etw_mf_is(n, "struct"))
			continue;
		if (etw_mf_is(n, "struct") && parent != UINT32_MAX)
			return etw_mf_fail(c, n, "a struct inside a struct");
		ret = etw_mf_add_prop(c, b, n, parent);
		pr = &b->t->p[b->t->n - 1];
		if (!ret)
			ret = etw_mf_attr(c, n, "name", true, &pr->name);
		if (ret)
			return ret;
		if (etw_mf_is(n, "struct"))
			pr->epi.Flags = PropertyStruct;
		else
			ret = etw_mf_data_types(c, n, p, pr);
		if (ret)
			return ret;
	}
	return ERROR_SUCCESS;
}

static ULONG etw_mf_template(struct etw_mf_ctx *c, xmlNode *n,
			     struct etw_mf_provider *p)
{
	struct etw_mf_tbuild b = { 0 };
	struct etw_mf_template *t;
	EVENT_PROPERTY_INFO *epi;
	uint32_t i, start;
	ULONG ret;

	t = etw_mf_grow(p->tmpls, p->ntmpls, sizeof(*t));
	if (!t)
		return ERROR_OUTOFMEMORY;
	p->tmpls = t;
	t = &t[p->ntmpls++];
	b.t = t;
	memset(t, 0, sizeof(*t));
	ret = etw_mf_attr(c, n, "tid", true, &t->tid);
	if (!ret)
		ret = etw_mf_level(c, &b, p, n, UINT32_MAX);
	t->top = t->n;
	/* Each struct's members after the top level, in order. */
	for (i = 0; i < t->top && !ret; i++) {
		if (!(t->p[i].epi.Flags & PropertyStruct))
			continue;
		start = t->n;
		ret = etw_mf_level(c, &b, p, b.node[i], i);
		epi = &t->p[i].epi;
		epi->structType.StructStartIndex = (USHORT)start;
		epi->structType.NumOfStructMembers = (USHORT)(t->n - start);
		if (!ret && t->n == start)
			ret = etw_mf_fail(c, b.node[i], "an empty struct");
	}
	for (i = 0; i < t->n && !ret; i++)
		ret = etw_mf_prop_params(c, &b, i);
	free(b.node);
	free(b.parent);
	return ret;
}

static ULONG etw_mf_templates(struct etw_mf_ctx *c, xmlNode *list,
			      struct etw_mf_provider *p)
{
	xmlNode *n;
	uint32_t i;
	ULONG ret;

	for (n = list ? list->children : NULL; n; n = n->next) {
		if (!etw_mf_is(n, "template"))
			continue;
		ret = etw_mf_template(c, n, p);
		if (ret)
			return ret;
		for (i = 0; i + 1 < p->ntmpls; i++)
			if (!strcmp(p->tmpls[i].tid,
				    p->tmpls[p->ntmpls - 1].tid))
				return etw_mf_fail(c, n, "tid \"%s\" twice",
						   p->tmpls[i].tid);
	}
	return ERROR_SUCCESS;
}

/* Item @name of @l (for opcodes: of @task, then global), else built in. */
static const struct etw_mf_item *
etw_mf_find(const struct etw_mf_list *l, const char *name, uint16_t task,
	    const struct etw_mf_item *builtin, size_t nbuiltin)
{
	uint32_t i;
	int pass;

	for (pass = task ? 0 : 1; pass < 2; pass++)
		for (i = 0; i < l->n; i++)
			if (l->v[i].task == (pass ? 0 : task) &&
			    !strcmp(l->v[i].name, name))
				return &l->v[i];
	for (i = 0; i < nbuiltin; i++)
		if (!strcmp(builtin[i].name, name))
			return &builtin[i];
	return NULL;
}

/* Attribute @attr of event @n as an item of @l; NULL when absent. */
static ULONG etw_mf_ref(struct etw_mf_ctx *c, xmlNode *n, const char *attr,
			const struct etw_mf_list *l, uint16_t task,
			const struct etw_mf_item *builtin, size_t nbuiltin,
			const struct etw_mf_item **out)
{
	char *s;
	ULONG ret = etw_mf_attr(c, n, attr, false, &s);

	*out = NULL;
	if (ret || !s)
		return ret;
	*out = etw_mf_find(l, s, task, builtin, nbuiltin);
	return *out ? ERROR_SUCCESS :
		      etw_mf_fail(c, n, "%s=\"%s\" is not defined", attr, s);
}

static ULONG etw_mf_keywords(struct etw_mf_ctx *c, xmlNode *n,
			     const struct etw_mf_provider *p, uint64_t *mask)
{
	const struct etw_mf_item *k;
	char *s, *tok, *save;
	ULONG ret = etw_mf_attr(c, n, "keywords", false, &s);

	*mask = 0;
	if (ret || !s)
		return ret;
	for (tok = strtok_r(s, " \t\n", &save); tok;
	     tok = strtok_r(NULL, " \t\n", &save)) {
		k = etw_mf_find(&p->keywords, tok, 0, etw_mf_winmeta_keywords,
				ETW_MF_ARRAY_SIZE(etw_mf_winmeta_keywords));
		if (!k)
			return etw_mf_fail(c, n, "keyword \"%s\" not defined",
					   tok);
		*mask |= k->value;
	}
	return ERROR_SUCCESS;
}

static ULONG etw_mf_event_refs(struct etw_mf_ctx *c, xmlNode *n,
			       const struct etw_mf_provider *p,
			       struct etw_mf_event *e)
{
	uint32_t i;
	char *tid;
	ULONG ret;

	ret = etw_mf_ref(c, n, "level", &p->levels, 0, etw_mf_winmeta_levels,
			 ETW_MF_ARRAY_SIZE(etw_mf_winmeta_levels), &e->level);
	if (!ret)
		ret = etw_mf_ref(c, n, "task", &p->tasks, 0, NULL, 0, &e->task);
	if (!ret)
		ret = etw_mf_ref(c, n, "opcode", &p->opcodes,
				 e->task ? (uint16_t)e->task->value : 0,
				 etw_mf_winmeta_opcodes,
				 ETW_MF_ARRAY_SIZE(etw_mf_winmeta_opcodes),
				 &e->opcode);
	if (!ret)
		ret = etw_mf_ref(c, n, "channel", &p->channels, 0, NULL, 0,
				 &e->channel);
	if (!ret)
		ret = etw_mf_keywords(c, n, p, &e->desc.Keyword);
	if (!ret)
		ret = etw_mf_attr(c, n, "template", false, &tid);
	if (ret || !tid)
		return ret;
	for (i = 0; i < p->ntmpls; i++)
		if (!strcmp(p->tmpls[i].tid, tid))
			e->tmpl = &p->tmpls[i];
	return e->tmpl ? ERROR_SUCCESS :
			 etw_mf_fail(c, n, "no template \"%s\"", tid);
}

static ULONG etw_mf_event(struct etw_mf_ctx *c, xmlNode *n,
			  struct etw_mf_provider *p)
{
	struct etw_mf_event *e = etw_mf_grow(p->events, p->nevents, sizeof(*e));
	uint64_t id, version;
	uint32_t i;
	ULONG ret;

	if (!e)
		return ERROR_OUTOFMEMORY;
	p->events = e;
	e = &e[p->nevents++];
	memset(e, 0, sizeof(*e));
	ret = etw_mf_number(c, n, "value", 0xffff, true, &id);
	if (!ret)
		ret = etw_mf_number(c, n, "version", 0xff, false, &version);
	if (!ret)
		ret = etw_mf_attr(c, n, "name", false, &e->name);
	if (!ret)
		ret = etw_mf_attr(c, n, "symbol", false, &e->symbol);
	if (!ret)
		ret = etw_mf_message(c, n, &e->message);
	if (!ret)
		ret = etw_mf_event_refs(c, n, p, e);
	if (ret)
		return ret;
	e->desc.Id = (USHORT)id;
	e->desc.Version = (UCHAR)version;
	e->desc.Level = e->level ? (UCHAR)e->level->value : 0;
	e->desc.Task = e->task ? (USHORT)e->task->value : 0;
	e->desc.Opcode = e->opcode ? (UCHAR)e->opcode->value : 0;
	e->desc.Channel = e->channel ? (UCHAR)e->channel->value : 0;
	for (i = 0; i + 1 < p->nevents; i++)
		if (p->events[i].desc.Id == e->desc.Id &&
		    p->events[i].desc.Version == e->desc.Version)
			return etw_mf_fail(c, n, "event %u version %u twice",
					   e->desc.Id, e->desc.Version);
	return ERROR_SUCCESS;
}

static bool etw_mf_guid(const char *s, GUID *g)
{
	unsigned int d[11];
	int used = 0, i;

	if (sscanf(s, "{%8x-%4x-%4x-%2x%2x-%2x%2x%2x%2x%2x%2x}%n", &d[0],
		   &d[1], &d[2], &d[3], &d[4], &d[5], &d[6], &d[7], &d[8],
		   &d[9], &d[10], &used) != 11 || used != 38 || s[used])
		return false;
	g->Data1 = d[0];
	g->Data2 = (USHORT)d[1];
	g->Data3 = (USHORT)d[2];
	for (i = 0; i < 8; i++)
		g->Data4[i] = (UCHAR)d[3 + i];
	return true;
}

static xmlNode *etw_mf_child(xmlNode *n, const char *name)
{
	for (n = n ? n->children : NULL; n; n = n->next)
		if (etw_mf_is(n, name))
			return n;
	return NULL;
}

/* A provider's lists in the order later ones refer to earlier ones. */
static ULONG etw_mf_provider_body(struct etw_mf_ctx *c, xmlNode *n,
				  struct etw_mf_provider *p)
{
	xmlNode *ev;
	ULONG ret;

	ret = etw_mf_items(c, etw_mf_child(n, "keywords"), "keyword", "mask",
			   UINT64_MAX, &p->keywords);
	if (!ret)
		ret = etw_mf_items(c, etw_mf_child(n, "levels"), "level",
				   "value", 0xff, &p->levels);
	if (!ret)
		ret = etw_mf_items(c, etw_mf_child(n, "opcodes"), "opcode",
				   "value", 0xff, &p->opcodes);
	if (!ret)
		ret = etw_mf_channels(c, etw_mf_child(n, "channels"),
				      &p->channels);
	if (!ret)
		ret = etw_mf_tasks(c, etw_mf_child(n, "tasks"), p);
	if (!ret)
		ret = etw_mf_maps(c, etw_mf_child(n, "maps"), p);
	if (!ret)
		ret = etw_mf_templates(c, etw_mf_child(n, "templates"), p);
	for (ev = etw_mf_child(etw_mf_child(n, "events"), "event"); ev && !ret;
	     ev = ev->next)
		if (etw_mf_is(ev, "event"))
			ret = etw_mf_event(c, ev, p);
	return ret;
}

static ULONG etw_mf_provider(struct etw_mf_ctx *c, xmlNode *n)
{
	struct etw_manifest *m = c->m;
	struct etw_mf_provider *p = etw_mf_grow(m->prov, m->nprov, sizeof(*p));
	char *guid;
	uint32_t i;
	ULONG ret;

	if (!p)
		return ERROR_OUTOFMEMORY;
	m->prov = p;
	p = &p[m->nprov++];
	memset(p, 0, sizeof(*p));
	ret = etw_mf_attr(c, n, "name", true, &p->name);
	if (!ret)
		ret = etw_mf_attr(c, n, "symbol", false, &p->symbol);
	if (!ret)
		ret = etw_mf_attr(c, n, "guid", true, &guid);
	if (!ret && !etw_mf_guid(guid, &p->guid))
		ret = etw_mf_fail(c, n, "bad guid \"%s\"", guid);
	if (!ret)
		ret = etw_mf_message(c, n, &p->message);
	if (ret)
		return ret;
	for (i = 0; i + 1 < m->nprov; i++)
		if (!memcmp(&m->prov[i].guid, &p->guid, sizeof(GUID)))
			return etw_mf_fail(c, n, "provider %s twice", guid);
	return etw_mf_provider_body(c, n, p);
}

static ULONG etw_mf_document(struct etw_mf_ctx *c, xmlNode *root)
{
	xmlNode *ev, *n;
	ULONG ret = ERROR_SUCCESS;

	if (!root || !etw_mf_is(root, "instrumentationManifest"))
		return etw_mf_fail(c, root,
				   "not an instrumentationManifest");
	c->strings = etw_mf_child(etw_mf_child(etw_mf_child(root,
		"localization"), "resources"), "stringTable");
	ev = etw_mf_child(etw_mf_child(root, "instrumentation"), "events");
	for (n = ev ? ev->children : NULL; n && !ret; n = n->next)
		if (etw_mf_is(n, "provider"))
			ret = etw_mf_provider(c, n);
	if (!ret && !c->m->nprov)
		ret = etw_mf_fail(c, root, "no provider");
	return ret;
}

static void etw_mf_provider_free(struct etw_mf_provider *p)
{
	uint32_t i;

	free(p->keywords.v);
	free(p->levels.v);
	free(p->opcodes.v);
	free(p->tasks.v);
	free(p->channels.v);
	for (i = 0; i < p->nmaps; i++)
		free(p->maps[i].e);
	free(p->maps);
	for (i = 0; i < p->ntmpls; i++)
		free(p->tmpls[i].p);
	free(p->tmpls);
	free(p->events);
}

/**
 * etw_manifest_free - frees a manifest etw_manifest_parse made
 * @m: the manifest, or NULL
 *
 * Context: any thread; @m must be unreachable by other threads.
 */
void etw_manifest_free(struct etw_manifest *m)
{
	struct etw_mf_str *s, *next;
	uint32_t i;

	if (!m)
		return;
	for (i = 0; i < m->nprov; i++)
		etw_mf_provider_free(&m->prov[i]);
	free(m->prov);
	for (s = m->strs; s; s = next) {
		next = s->next;
		free(s);
	}
	free(m->path);
	free(m->blob);
	free(m);
}

/**
 * etw_manifest_parse - reads an instrumentation manifest
 * @path: its file, or NULL to read @blob
 * @blob: the XML when @path is NULL
 * @len: bytes at @blob
 * @diag: where to tell what is wrong with a bad manifest, or NULL
 * @out: out: the manifest, to etw_manifest_free()
 *
 * Context: any thread (libxml2 parser contexts are per call).
 * Return: ERROR_SUCCESS; ERROR_FILE_NOT_FOUND when @path does not exist;
 * ERROR_XML_PARSE_ERROR, with "libetw: FILE:LINE: what" on @diag, for
 * XML that is not a well-formed and consistent manifest;
 * ERROR_OUTOFMEMORY.
 */
ULONG etw_manifest_parse(const char *path, const void *blob, size_t len,
			 FILE *diag, struct etw_manifest **out)
{
	struct etw_mf_ctx c = { .file = path ? path : "(memory)",
				.diag = diag };
	const xmlError *err;
	xmlParserCtxt *px;
	xmlDoc *doc;
	ULONG ret;

	*out = NULL;
	if (path && access(path, F_OK))
		return ERROR_FILE_NOT_FOUND;
	if (!path && len > INT32_MAX)
		return ERROR_INVALID_PARAMETER;
	c.m = calloc(1, sizeof(*c.m));
	px = xmlNewParserCtxt();
	if (!c.m || !px) {
		free(c.m);
		xmlFreeParserCtxt(px);
		return ERROR_OUTOFMEMORY;
	}
	/* No network, no external entities: the file is data, not code. */
	doc = path ? xmlCtxtReadFile(px, path, NULL, XML_PARSE_NONET |
				     XML_PARSE_NOERROR | XML_PARSE_NOWARNING) :
		     xmlCtxtReadMemory(px, blob, (int)len, NULL, NULL,
				       XML_PARSE_NONET | XML_PARSE_NOERROR |
				       XML_PARSE_NOWARNING);
	if (!doc) {
		err = xmlCtxtGetLastError(px);
		if (diag)
			fprintf(diag, "libetw: %s:%d: %s", c.file,
				err ? err->line : 0,
				err && err->message ? err->message :
						      "bad XML\n");
		ret = ERROR_XML_PARSE_ERROR;
	} else {
		ret = etw_mf_document(&c, xmlDocGetRootElement(doc));
	}
	xmlFreeDoc(doc);
	xmlFreeParserCtxt(px);
	if (ret)
		etw_manifest_free(c.m);
	else
		*out = c.m;
	return ret;
}
