// SPDX-License-Identifier: GPL-2.0
/*
 * cmd_mc.c: "etwctl mc [-um] [-h DIR] [-z NAME] MANIFEST": the header
 * Windows' message compiler (mc.exe -um) writes for an instrumentation
 * manifest, from libetw's manifest parser (the one TDH decodes with).
 *
 * The header has the provider's GUID, traits and context, its channel,
 * level, opcode, task and keyword symbols, an EVENT_DESCRIPTOR and the
 * EventEnabled<Symbol>() and EventWrite<Symbol>() macros per event with a
 * symbol, EventRegister<Provider>() and EventUnregister<Provider>(), and
 * one McTemplate function per payload shape, named and typed as mc.exe
 * names and types them.  The code common to every header is
 * mc_prologue.txt's.
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "etwctl.h"
#include "etw_tdh_manifest.h"

static const char etwctl_mc_usage[] =
"usage: etwctl mc [-um] [-h DIR] [-z NAME] MANIFEST\n"
"Write the C/C++ header mc.exe writes for the instrumentation manifest\n"
"MANIFEST: DIR/NAME.h (DIR '.', NAME MANIFEST's base name without its\n"
"extension by default).\n"
"  -um       EventWrite macros without an Activity parameter (mc.exe's\n"
"            user-mode macros); without it, the Activity GUID comes first\n"
"  -h DIR    the directory of the header\n"
"  -z NAME   the header's base name\n"
"      --help\n";

static const char etwctl_mc_prologue[] =
#include "mc_prologue.inc"
;

/* How mc.exe declares every object, one per program. */
#define ETWCTL_MC_SEL	"EXTERN_C __declspec(selectany) "
#define ETWCTL_MC_PRIVATE \
	"// This macro is for use by MC-generated code and should not be used directly.\n"

#define ETWCTL_MC_RULE \
	"+++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++"

/* The most EVENT_DATA_DESCRIPTORs EventWrite takes, the traits' too. */
#define ETWCTL_MC_MAX_DATA	128

/* How a field is passed and measured. */
enum etwctl_mc_kind {
	ETWCTL_MC_SCALAR,	/* by value, or a pointer to an array */
	ETWCTL_MC_RECORD,	/* by pointer: GUID, FILETIME, SYSTEMTIME */
	ETWCTL_MC_POINTER,	/* a pointer's value */
	ETWCTL_MC_STRING,
	ETWCTL_MC_BINARY,
	ETWCTL_MC_SID,
};

/* mc.exe's letter, argument type and size of each InType. */
struct etwctl_mc_type {
	char letter;
	enum etwctl_mc_kind kind;
	const char *ctype;	/* the argument's type */
	const char *size;	/* the size of one, or the character type */
};

static const struct etwctl_mc_type etwctl_mc_types[] = {
	[TDH_INTYPE_UNICODESTRING] = { 'z', ETWCTL_MC_STRING, "PCWSTR", "WCHAR" },
	[TDH_INTYPE_ANSISTRING] = { 's', ETWCTL_MC_STRING, "LPCSTR", "char" },
	[TDH_INTYPE_INT8] = { 'c', ETWCTL_MC_SCALAR, "const char", NULL },
	[TDH_INTYPE_UINT8] = { 'u', ETWCTL_MC_SCALAR, "const UCHAR", NULL },
	[TDH_INTYPE_INT16] = { 'l', ETWCTL_MC_SCALAR, "const signed short",
			       NULL },
	[TDH_INTYPE_UINT16] = { 'h', ETWCTL_MC_SCALAR, "const unsigned short",
				NULL },
	[TDH_INTYPE_INT32] = { 'd', ETWCTL_MC_SCALAR, "const signed int",
			       NULL },
	[TDH_INTYPE_UINT32] = { 'q', ETWCTL_MC_SCALAR, "const unsigned int",
				NULL },
	[TDH_INTYPE_INT64] = { 'i', ETWCTL_MC_SCALAR, "const signed __int64",
			       NULL },
	[TDH_INTYPE_UINT64] = { 'x', ETWCTL_MC_SCALAR,
				"const unsigned __int64", NULL },
	[TDH_INTYPE_FLOAT] = { 'f', ETWCTL_MC_SCALAR, "const float", NULL },
	[TDH_INTYPE_DOUBLE] = { 'g', ETWCTL_MC_SCALAR, "const double", NULL },
	[TDH_INTYPE_BOOLEAN] = { 't', ETWCTL_MC_SCALAR, "const BOOL", NULL },
	[TDH_INTYPE_BINARY] = { 'b', ETWCTL_MC_BINARY, "const BYTE*", NULL },
	[TDH_INTYPE_GUID] = { 'j', ETWCTL_MC_RECORD, "LPCGUID", "GUID" },
	[TDH_INTYPE_POINTER] = { 'p', ETWCTL_MC_POINTER, "const void *",
				 NULL },
	[TDH_INTYPE_FILETIME] = { 'm', ETWCTL_MC_RECORD, "const FILETIME*",
				  "FILETIME" },
	[TDH_INTYPE_SYSTEMTIME] = { 'y', ETWCTL_MC_RECORD,
				    "const SYSTEMTIME*", "SYSTEMTIME" },
	[TDH_INTYPE_SID] = { 'k', ETWCTL_MC_SID, "const SID *", NULL },
	[TDH_INTYPE_HEXINT32] = { 'd', ETWCTL_MC_SCALAR, "const signed int",
				  NULL },
	[TDH_INTYPE_HEXINT64] = { 'i', ETWCTL_MC_SCALAR,
				  "const signed __int64", NULL },
};

/* One McTemplate function: its name's letters and a template using it. */
struct etwctl_mc_tmpl {
	char *mangled;
	const struct etw_mf_template *t;	/* NULL: no payload */
};

struct etwctl_mc {
	FILE *f;
	const char *path;
	bool activity;
	struct etwctl_mc_tmpl *tmpls;
	size_t ntmpls;
	char *err;		/* the first error, one line */
};

static void __attribute__((format(printf, 2, 3)))
etwctl_mc_error(struct etwctl_mc *m, const char *fmt, ...)
{
	va_list ap;

	if (m->err)
		return;
	va_start(ap, fmt);
	if (vasprintf(&m->err, fmt, ap) < 0)
		m->err = NULL;
	va_end(ap);
	if (!m->err)
		m->err = strdup("out of memory");
}

/* A C identifier from @s: mc.exe's, each other character an underscore. */
static char *etwctl_mc_ident(const char *s)
{
	char *id = strdup(s), *p;

	for (p = id; p && *p; p++)
		if (!(*p >= 'a' && *p <= 'z') && !(*p >= 'A' && *p <= 'Z') &&
		    !(*p >= '0' && *p <= '9'))
			*p = '_';
	return id;
}

static const struct etwctl_mc_type *
etwctl_mc_type_of(const EVENT_PROPERTY_INFO *epi)
{
	USHORT in = epi->nonStructType.InType;

	if (in >= sizeof(etwctl_mc_types) / sizeof(etwctl_mc_types[0]) ||
	    !etwctl_mc_types[in].letter)
		return NULL;
	return &etwctl_mc_types[in];
}

static bool etwctl_mc_is_struct(const EVENT_PROPERTY_INFO *epi)
{
	return epi->Flags & PropertyStruct;
}

static bool etwctl_mc_has_count(const EVENT_PROPERTY_INFO *epi)
{
	return epi->Flags & (PropertyParamCount | PropertyParamFixedCount);
}

static bool etwctl_mc_has_length(const EVENT_PROPERTY_INFO *epi)
{
	return !etwctl_mc_is_struct(epi) &&
	       (epi->Flags & (PropertyParamLength | PropertyParamFixedLength));
}

/* A string array without a length, or a struct: a byte count comes first. */
static bool etwctl_mc_extra_len(const EVENT_PROPERTY_INFO *epi)
{
	const struct etwctl_mc_type *ty;

	if (etwctl_mc_is_struct(epi))
		return true;
	ty = etwctl_mc_type_of(epi);
	return ty->kind == ETWCTL_MC_STRING && etwctl_mc_has_count(epi) &&
	       !etwctl_mc_has_length(epi);
}

/* "_ArgN", a count, or "" for none, after @prefix. */
static void etwctl_mc_number(FILE *f, const char *prefix, bool named,
			     USHORT v)
{
	if (named)
		fprintf(f, "%s_Arg%u", prefix, v);
	else
		fprintf(f, "%s%u", prefix, v);
}

static void etwctl_mc_count(FILE *f, const EVENT_PROPERTY_INFO *epi,
			    const char *prefix)
{
	if (etwctl_mc_has_count(epi))
		etwctl_mc_number(f, prefix, epi->Flags & PropertyParamCount,
				 epi->count);
}

static void etwctl_mc_length(FILE *f, const EVENT_PROPERTY_INFO *epi,
			     const char *prefix)
{
	if (etwctl_mc_has_length(epi))
		etwctl_mc_number(f, prefix, epi->Flags & PropertyParamLength,
				 epi->length);
}

/* mc.exe's letters for one field: its type, then its count and length. */
static void etwctl_mc_mangle_one(FILE *f, const EVENT_PROPERTY_INFO *epi)
{
	bool cnt = etwctl_mc_has_count(epi), len = etwctl_mc_has_length(epi);
	bool vcnt = epi->Flags & PropertyParamCount;
	bool vlen = epi->Flags & PropertyParamLength;
	const struct etwctl_mc_type *ty;
	char c;

	if (etwctl_mc_is_struct(epi)) {
		fputc(cnt ? 'N' : 'n', f);
		if (cnt)
			fprintf(f, "%s%u", vcnt ? "R" : "", epi->count);
		return;
	}
	ty = etwctl_mc_type_of(epi);
	c = cnt ? (char)(ty->letter - 'a' + 'A') : ty->letter;
	fputc(c, f);
	if (ty->kind != ETWCTL_MC_STRING && ty->kind != ETWCTL_MC_BINARY) {
		if (cnt)
			fprintf(f, "%s%u", vcnt ? "R" : "", epi->count);
		return;
	}
	if (cnt && len && !vcnt && !vlen)
		fprintf(f, "%u", (unsigned int)epi->count * epi->length);
	else if (vcnt && vlen)
		fprintf(f, "r%uR%u", epi->length, epi->count);
	else if (cnt && vlen)
		fprintf(f, "%ur%u", epi->count, epi->length);
	else if (len && vcnt)
		fprintf(f, "%ur%u", epi->length, epi->count);
	else if (cnt)
		fputc('R', f);
	else if (len)
		fprintf(f, "%s%u", vlen ? "r" : "", epi->length);
}

/* Whether the fields of @t are ones this generator writes. */
static bool etwctl_mc_check(struct etwctl_mc *m,
			    const struct etw_mf_template *t)
{
	const EVENT_PROPERTY_INFO *epi;
	const struct etwctl_mc_type *ty;
	uint32_t i;

	if (t->top + 1 > ETWCTL_MC_MAX_DATA) {
		etwctl_mc_error(m, "template \"%s\": more than %u fields",
				t->tid, ETWCTL_MC_MAX_DATA - 1);
		return false;
	}
	for (i = 0; i < t->top; i++) {
		epi = &t->p[i].epi;
		if (etwctl_mc_is_struct(epi))
			continue;
		ty = etwctl_mc_type_of(epi);
		if (!ty) {
			etwctl_mc_error(m, "template \"%s\": %s: mc.exe %s",
					t->tid, t->p[i].name,
					"writes no Counted types");
			return false;
		}
		if (ty->kind == ETWCTL_MC_SID && etwctl_mc_has_count(epi)) {
			etwctl_mc_error(m, "template \"%s\": %s: %s", t->tid,
					t->p[i].name, "an array of SIDs");
			return false;
		}
	}
	return true;
}

/* The McTemplate letters of @t (NULL: no payload), or NULL on error. */
static char *etwctl_mc_mangle(struct etwctl_mc *m,
			      const struct etw_mf_template *t)
{
	char *s = NULL;
	size_t n = 0;
	uint32_t i;
	FILE *f;

	if (t && !etwctl_mc_check(m, t))
		return NULL;
	f = open_memstream(&s, &n);
	if (!f)
		goto oom;
	for (i = 0; t && i < t->top; i++)
		etwctl_mc_mangle_one(f, &t->p[i].epi);
	if (fclose(f))
		goto oom;
	return s;
oom:
	free(s);
	etwctl_mc_error(m, "out of memory");
	return NULL;
}

/* The template function of @t, added once; NULL on error. */
static const char *etwctl_mc_use(struct etwctl_mc *m,
				 const struct etw_mf_template *t)
{
	struct etwctl_mc_tmpl *v;
	char *s = etwctl_mc_mangle(m, t);
	size_t i;

	if (!s)
		return NULL;
	for (i = 0; i < m->ntmpls; i++)
		if (!strcmp(m->tmpls[i].mangled, s)) {
			free(s);
			return m->tmpls[i].mangled;
		}
	v = realloc(m->tmpls, (m->ntmpls + 1) * sizeof(*v));
	if (!v) {
		free(s);
		etwctl_mc_error(m, "out of memory");
		return NULL;
	}
	m->tmpls = v;
	v[m->ntmpls].mangled = s;
	v[m->ntmpls].t = t;
	return v[m->ntmpls++].mangled;
}

static void etwctl_mc_guid(FILE *f, const GUID *g)
{
	int i;

	fprintf(f, "{0x%08x, 0x%04x, 0x%04x, {", g->Data1, g->Data2, g->Data3);
	for (i = 0; i < 8; i++)
		fprintf(f, "%s0x%02x", i ? ", " : "", g->Data4[i]);
	fputs("}}", f);
}

/* The provider's name as a C string literal's bytes. */
static void etwctl_mc_cstr(FILE *f, const char *s)
{
	for (; *s; s++)
		if (*s == '"' || *s == '\\' || *s == '?' ||
		    (unsigned char)*s < 0x20)
			fprintf(f, "\\%03o", (unsigned char)*s);
		else
			fputc(*s, f);
}

/* "#define SYMBOL 0xVALUE" for the items of @l with a symbol. */
static void etwctl_mc_items(FILE *f, const char *title,
			    const struct etw_mf_list *l)
{
	bool any = false;
	uint32_t i;

	for (i = 0; i < l->n; i++) {
		if (!l->v[i].symbol)
			continue;
		if (!any)
			fprintf(f, "//\n// %s\n//\n", title);
		any = true;
		fprintf(f, "#define %s 0x%llx\n", l->v[i].symbol,
			(unsigned long long)l->v[i].value);
	}
	if (any)
		fputc('\n', f);
}

/*
 * An event's keyword: the manifest's, and the bit mc.exe gives its
 * channel, 63 less the channel's place in <channels>.
 */
static uint64_t etwctl_mc_keyword(const struct etw_mf_provider *p,
				  const struct etw_mf_event *e)
{
	uint64_t k = e->desc.Keyword;

	if (e->channel)
		k |= 1ull << (63 - (e->channel - p->channels.v));
	return k;
}

/* Enable bit of each event with a symbol: one per (level, keyword). */
struct etwctl_mc_bits {
	uint32_t *bit;		/* per event */
	uint64_t *kw;
	UCHAR *level;
	uint32_t n;
};

static int etwctl_mc_bits(const struct etw_mf_provider *p,
			  struct etwctl_mc_bits *b)
{
	uint32_t i, j;
	uint64_t k;

	b->n = 0;
	b->bit = calloc(p->nevents + 1, sizeof(*b->bit));
	b->kw = calloc(p->nevents + 1, sizeof(*b->kw));
	b->level = calloc(p->nevents + 1, 1);
	if (!b->bit || !b->kw || !b->level)
		return -ENOMEM;
	for (i = 0; i < p->nevents; i++) {
		if (!p->events[i].symbol)
			continue;
		k = etwctl_mc_keyword(p, &p->events[i]);
		for (j = 0; j < b->n; j++)
			if (b->kw[j] == k &&
			    b->level[j] == p->events[i].desc.Level)
				break;
		if (j == b->n) {
			b->kw[j] = k;
			b->level[j] = p->events[i].desc.Level;
			b->n++;
		}
		b->bit[i] = j;
	}
	return 0;
}

static void etwctl_mc_bits_free(struct etwctl_mc_bits *b)
{
	free(b->bit);
	free(b->kw);
	free(b->level);
}

static void etwctl_mc_descriptors(FILE *f, const struct etw_mf_provider *p)
{
	const struct etw_mf_event *e;
	uint32_t i;

	fputs("//\n// Event Descriptors\n//\n", f);
	for (i = 0; i < p->nevents; i++) {
		e = &p->events[i];
		if (!e->symbol)
			continue;
		fprintf(f, ETWCTL_MC_SEL "const EVENT_DESCRIPTOR %s = ",
			e->symbol);
		fprintf(f, "{0x%x, 0x%x, 0x%x, 0x%x, 0x%x, 0x%x, 0x%llx};\n",
			e->desc.Id, e->desc.Version,
			e->desc.Channel, e->desc.Level, e->desc.Opcode,
			e->desc.Task,
			(unsigned long long)etwctl_mc_keyword(p, e));
		fprintf(f, "#define %s_value 0x%x\n", e->symbol, e->desc.Id);
	}
	fputc('\n', f);
}

/*
 * An enum of the symbols of each map's entries, as mc.exe writes it for
 * a map with a symbol: bit maps first, then value maps, each entry named
 * the map's symbol then its own.
 */
static void etwctl_mc_maps(FILE *f, const struct etw_mf_provider *p)
{
	static const MAP_FLAGS kinds[] = { EVENTMAP_INFO_FLAG_MANIFEST_BITMAP,
					   EVENTMAP_INFO_FLAG_MANIFEST_VALUEMAP };
	const struct etw_mf_map *m;
	uint32_t i, j, k;

	for (k = 0; k < 2; k++)
		for (i = 0; i < p->nmaps; i++) {
			m = &p->maps[i];
			if (m->flag != kinds[k] || !m->symbol || !m->n)
				continue;
			fprintf(f, "#ifndef _%s_def\n#define _%s_def\n"
				"typedef enum _%s\n{\n", m->symbol, m->symbol,
				m->symbol);
			for (j = 0; j < m->n; j++)
				if (m->e[j].symbol)
					fprintf(f, "    %s%s = %d,\n", m->symbol,
						m->e[j].symbol,
						(int)m->e[j].value);
			fprintf(f, "} %s;\n#endif // _%s_def\n\n", m->symbol,
				m->symbol);
		}
}

static void etwctl_mc_context(FILE *f, const char *sym,
			      const struct etwctl_mc_bits *b)
{
	uint32_t i;

	fputs("//\n// Event Enablement Bits\n"
	      "// These variables are for use by MC-generated code and should not be used directly.\n//\n",
	      f);
	if (b->n) {
		fprintf(f, ETWCTL_MC_SEL "DECLSPEC_CACHEALIGN ULONG %sEnableBits[%u];\n",
			sym, (b->n + 31) / 32);
		fprintf(f, ETWCTL_MC_SEL "const ULONGLONG %s_Keywords[%u] = {",
			sym, b->n);
		for (i = 0; i < b->n; i++)
			fprintf(f, "%s0x%llx", i ? ", " : "",
				(unsigned long long)b->kw[i]);
		fprintf(f, "};\n" ETWCTL_MC_SEL "const unsigned char %s_Level[%u] = {",
			sym, b->n);
		for (i = 0; i < b->n; i++)
			fprintf(f, "%s%u", i ? ", " : "", b->level[i]);
		fputs("};\n", f);
	}
	fputs("\n//\n// Provider context\n//\n", f);
	fprintf(f, ETWCTL_MC_SEL "MCGEN_TRACE_CONTEXT %s_Context = ", sym);
	fprintf(f, "{0, (ULONG_PTR)%s_Traits, 0, 0, 0, 0, 0, 0, ", sym);
	if (b->n)
		fprintf(f, "%u, %sEnableBits, %s_Keywords, %s_Level};\n\n",
			b->n, sym, sym, sym);
	else
		fputs("0, NULL, NULL, NULL};\n\n", f);
}

static void etwctl_mc_register(struct etwctl_mc *m, const char *sym,
			       const char *id)
{
	FILE *f = m->f;

	fputs("//\n// Provider REGHANDLE\n//\n", f);
	fprintf(f, "#define %sHandle (%s_Context.RegistrationHandle)\n\n",
		id, sym);
	fprintf(f, "//\n// This macro is set to %d, indicating that the EventWrite[Name] macros\n"
		"// %s an Activity parameter. This is controlled by the -km and -um options.\n//\n"
		"#define %s_EventWriteActivity %d\n\n", m->activity,
		m->activity ? "have" : "do not have", sym, m->activity);
	fprintf(f, "//\n// Register with ETW using the control GUID specified in the manifest.\n"
		"// Invoke this macro during module initialization (i.e. program startup,\n"
		"// DLL process attach, or driver load) to initialize the provider.\n"
		"// If it fails, the EventWrite and EventUnregister macros are no-ops.\n//\n"
		"#ifndef EventRegister%s\n"
		"#define EventRegister%s() McGenEventRegisterContext(&%s, McGenControlCallbackV2, &%s_Context, &%s_Context)\n"
		"#endif\n\n", id, id, sym, sym, sym);
	fprintf(f, "//\n// Register with ETW using a specific control GUID (i.e. a GUID\n"
		"// other than what is specified in the manifest). Advanced scenarios only.\n//\n"
		"#ifndef EventRegisterByGuid%s\n"
		"#define EventRegisterByGuid%s(Guid) McGenEventRegisterContext(&(Guid), McGenControlCallbackV2, &%s_Context, &%s_Context)\n"
		"#endif\n\n", id, id, sym, sym);
	fprintf(f, "//\n// Unregister with ETW and close the provider.\n"
		"// Invoke this macro during module shutdown (i.e. program exit, DLL process\n"
		"// detach, or driver unload) to unregister the provider.\n//\n"
		"#ifndef EventUnregister%s\n"
		"#define EventUnregister%s() McGenEventUnregister(&%sHandle)\n"
		"#endif\n\n", id, id, id);
}

/*
 * The EventWrite macro's parameters, the fields' names (a byte count's
 * with "_Len_"), each after ", " unless first without @lead.
 */
static int etwctl_mc_params(FILE *f, const struct etw_mf_template *t,
			    bool lead)
{
	const char *sep = lead ? ", " : "";
	uint32_t i;
	char *id;

	for (i = 0; t && i < t->top; i++) {
		id = etwctl_mc_ident(t->p[i].name);
		if (!id)
			return -ENOMEM;
		if (etwctl_mc_extra_len(&t->p[i].epi)) {
			fprintf(f, "%s%s_Len_", sep, id);
			sep = ", ";
		}
		fprintf(f, "%s%s", sep, id);
		sep = ", ";
		free(id);
	}
	return 0;
}

static int etwctl_mc_event(struct etwctl_mc *m, const char *sym,
			   const struct etw_mf_event *e, uint32_t bit)
{
	const char *tm = etwctl_mc_use(m, e->tmpl);
	FILE *f = m->f;
	int ret;

	if (!tm)
		return -EINVAL;
	fprintf(f, "//\n// Enablement check macro for event \"%s\"\n//\n"
		"#define EventEnabled%s() _mcgen_EVENT_BIT_SET(%sEnableBits, %u)\n\n",
		e->symbol, e->symbol, sym, bit);
	fprintf(f, "//\n// Event write macros for event \"%s\"\n//\n#define EventWrite%s(",
		e->symbol, e->symbol);
	if (m->activity)
		fputs("Activity", f);
	ret = etwctl_mc_params(f, e->tmpl, m->activity);
	fprintf(f, ") \\\n        MCGEN_EVENT_ENABLED(%s) \\\n", e->symbol);
	fprintf(f, "        ? _mcgen_TEMPLATE_FOR_%s(&%s_Context, &%s, %s",
		e->symbol, sym, e->symbol, m->activity ? "Activity" : "NULL");
	ret = ret ?: etwctl_mc_params(f, e->tmpl, true);
	fprintf(f, ") : 0\n#define EventWrite%s_AssumeEnabled(", e->symbol);
	ret = ret ?: etwctl_mc_params(f, e->tmpl, false);
	fprintf(f, ") \\\n        _mcgen_TEMPLATE_FOR_%s(&%s_Context, &%s, NULL",
		e->symbol, sym, e->symbol);
	ret = ret ?: etwctl_mc_params(f, e->tmpl, true);
	fputs(")\n\n" ETWCTL_MC_PRIVATE, f);
	fprintf(f, "#define _mcgen_TEMPLATE_FOR_%s ", e->symbol);
	fprintf(f, "_mcgen_PASTE2(McTemplateU0%s_, MCGEN_EVENTWRITETRANSFER)\n\n",
		tm);
	if (ret)
		etwctl_mc_error(m, "out of memory");
	return ret;
}

static int etwctl_mc_provider(struct etwctl_mc *m,
			      const struct etw_mf_provider *p)
{
	struct etwctl_mc_bits b = { 0 };
	char *id = etwctl_mc_ident(p->name);
	char *own = p->symbol ? NULL : etwctl_mc_ident(p->name);
	const char *sym = p->symbol ? p->symbol : own;
	size_t traits = 2 + strlen(p->name) + 1;
	FILE *f = m->f;
	uint32_t i, n = 0;
	int ret = 0;

	if (!id || !sym || etwctl_mc_bits(p, &b)) {
		etwctl_mc_error(m, "out of memory");
		ret = -ENOMEM;
		goto out;
	}
	if (traits > 0xffff) {
		etwctl_mc_error(m, "provider name longer than %u bytes",
				0xffff - 3);
		ret = -EINVAL;
		goto out;
	}
	for (i = 0; i < p->nevents; i++)
		n += !!p->events[i].symbol;
	fprintf(f, "//%s\n// Provider \"%s\" event count %u\n//%s\n\n",
		ETWCTL_MC_RULE, p->name, n, ETWCTL_MC_RULE);
	fprintf(f, "// Provider GUID = %08x-%04x-%04x-%02x%02x-%02x%02x%02x%02x%02x%02x\n",
		p->guid.Data1, p->guid.Data2, p->guid.Data3,
		p->guid.Data4[0], p->guid.Data4[1], p->guid.Data4[2],
		p->guid.Data4[3], p->guid.Data4[4], p->guid.Data4[5],
		p->guid.Data4[6], p->guid.Data4[7]);
	fprintf(f, "EXTERN_C __declspec(selectany) const GUID %s = ", sym);
	etwctl_mc_guid(f, &p->guid);
	fprintf(f, ";\n\n#ifndef %s_Traits\n#define %s_Traits ( \\\n"
		"    \"\\x%02x\\x%02x\" /* Total size of traits = %zu */ \\\n    \"",
		sym, sym, (unsigned int)(traits & 0xff),
		(unsigned int)(traits >> 8), traits);
	etwctl_mc_cstr(f, p->name);
	fprintf(f, "\\x00\" /* Provider name */ \\\n    )\n#endif // %s_Traits\n\n",
		sym);
	etwctl_mc_items(f, "Channel", &p->channels);
	etwctl_mc_items(f, "Levels", &p->levels);
	etwctl_mc_items(f, "Opcodes", &p->opcodes);
	etwctl_mc_items(f, "Tasks", &p->tasks);
	etwctl_mc_items(f, "Keyword", &p->keywords);
	etwctl_mc_descriptors(f, p);
	fputs("//\n// MCGEN_DISABLE_PROVIDER_CODE_GENERATION macro:\n"
	      "// Define this macro to have the compiler skip the generated functions in this\n"
	      "// header.\n//\n#ifndef MCGEN_DISABLE_PROVIDER_CODE_GENERATION\n\n",
	      f);
	etwctl_mc_maps(f, p);
	etwctl_mc_context(f, sym, &b);
	etwctl_mc_register(m, sym, id);
	for (i = 0; i < p->nevents && !ret; i++)
		if (p->events[i].symbol)
			ret = etwctl_mc_event(m, sym, &p->events[i],
					      b.bit[i]);
	fputs("#endif // MCGEN_DISABLE_PROVIDER_CODE_GENERATION\n\n", f);
out:
	etwctl_mc_bits_free(&b);
	free(id);
	free(own);
	return ret;
}

/* One argument of a template function. */
static void etwctl_mc_arg(FILE *f, const EVENT_PROPERTY_INFO *epi,
			  uint32_t i)
{
	const struct etwctl_mc_type *ty;

	if (etwctl_mc_extra_len(epi))
		fprintf(f, ",\n    _In_ ULONG _Arg%u_Len_", i);
	if (etwctl_mc_is_struct(epi)) {
		fprintf(f, ",\n    _In_ const void*  _Arg%u", i);
		return;
	}
	ty = etwctl_mc_type_of(epi);
	if (ty->kind == ETWCTL_MC_STRING && etwctl_mc_has_length(epi))
		fprintf(f, ",\n    _In_ %s  _Arg%u", ty->letter == 'z' ?
			"PCWCH" : "LPCCH", i);
	else if (ty->kind == ETWCTL_MC_STRING && !etwctl_mc_has_count(epi))
		fprintf(f, ",\n    _In_opt_ %s  _Arg%u", ty->ctype, i);
	else if ((ty->kind == ETWCTL_MC_SCALAR ||
		  ty->kind == ETWCTL_MC_POINTER) && etwctl_mc_has_count(epi))
		fprintf(f, ",\n    _In_ %s*  _Arg%u", ty->ctype, i);
	else
		fprintf(f, ",\n    _In_ %s  _Arg%u", ty->ctype, i);
}

/* A nul-terminated string: its nul included, "NULL" for NULL. */
static void etwctl_mc_string(FILE *f, const struct etwctl_mc_type *ty,
			     uint32_t i)
{
	const char *w = ty->letter == 'z' ? "L" : "";
	const char *len = ty->letter == 'z' ? "wcslen" : "strlen";

	fprintf(f, "\n                        (_Arg%u != NULL) ? _Arg%u : %s\"NULL\",\n",
		i, i, w);
	fprintf(f, "                        (_Arg%u != NULL) ? ", i);
	fprintf(f, "(ULONG)((%s(_Arg%u) + 1) * sizeof(%s)) : ", len, i,
		ty->size);
	fprintf(f, "(ULONG)sizeof(%s\"NULL\"));\n\n", w);
}

/* The EVENT_DATA_DESCRIPTOR of argument @i. */
static void etwctl_mc_data(FILE *f, const EVENT_PROPERTY_INFO *epi,
			   uint32_t i)
{
	const struct etwctl_mc_type *ty;
	bool cnt = etwctl_mc_has_count(epi);

	fprintf(f, "    EventDataDescCreate(&EventData[%u],", i + 1);
	if (etwctl_mc_is_struct(epi)) {
		fprintf(f, "_Arg%u, (ULONG)(_Arg%u_Len_", i, i);
		etwctl_mc_count(f, epi, " * ");
		fputs("));\n\n", f);
		return;
	}
	ty = etwctl_mc_type_of(epi);
	switch (ty->kind) {
	case ETWCTL_MC_STRING:
		if (!cnt && !etwctl_mc_has_length(epi)) {
			etwctl_mc_string(f, ty, i);
			return;
		}
		fprintf(f, "_Arg%u, (ULONG)(sizeof(%s)", i, ty->size);
		if (etwctl_mc_has_length(epi)) {
			etwctl_mc_count(f, epi, "*");
			etwctl_mc_length(f, epi, "*");
		} else {
			fprintf(f, "*_Arg%u_Len_", i);
		}
		fputs("));\n\n", f);
		return;
	case ETWCTL_MC_BINARY:
		fprintf(f, "_Arg%u, (ULONG)sizeof(char)", i);
		etwctl_mc_length(f, epi, "*");
		etwctl_mc_count(f, epi, "*");
		fputs(");\n\n", f);
		return;
	case ETWCTL_MC_SID:
		/* A SID's size: 8 bytes and 4 per sub-authority. */
		fprintf(f, "_Arg%u, (ULONG)(8 + 4 * ((const UCHAR*)_Arg%u)[1]));\n\n",
			i, i);
		return;
	case ETWCTL_MC_RECORD:
		fprintf(f, "_Arg%u, sizeof(%s)", i, ty->size);
		break;
	case ETWCTL_MC_POINTER:
		fprintf(f, "%s_Arg%u, sizeof(PVOID)", cnt ? "" : "&", i);
		break;
	case ETWCTL_MC_SCALAR:
		fprintf(f, "%s_Arg%u, sizeof(%s)", cnt ? "" : "&", i,
			ty->ctype);
		break;
	}
	etwctl_mc_count(f, epi, "*");
	fputs("  );\n\n", f);
}

static void etwctl_mc_template(FILE *f, const struct etwctl_mc_tmpl *tm)
{
	const struct etw_mf_template *t = tm->t;
	uint32_t i, n = t ? t->top : 0;
	const char *s = tm->mangled;

	fprintf(f, "//\n// Function for template \"%s\" (and possibly others).\n"
		"// This function is for use by MC-generated code and should not be used directly.\n//\n",
		t ? t->tid : "(null)");
	fprintf(f, "#ifndef McTemplateU0%s_def\n#define McTemplateU0%s_def\n"
		"ETW_INLINE\nULONG\n_mcgen_PASTE2(McTemplateU0%s_, MCGEN_EVENTWRITETRANSFER)(\n"
		"    _In_ PMCGEN_TRACE_CONTEXT Context,\n"
		"    _In_ PCEVENT_DESCRIPTOR Descriptor,\n"
		"    _In_opt_ const GUID* Activity", s, s, s);
	for (i = 0; i < n; i++)
		etwctl_mc_arg(f, &t->p[i].epi, i);
	fprintf(f, "\n    )\n{\n#define McTemplateU0%s_ARGCOUNT %u\n\n"
		"    EVENT_DATA_DESCRIPTOR EventData[McTemplateU0%s_ARGCOUNT + 1];\n\n",
		s, n, s);
	for (i = 0; i < n; i++)
		etwctl_mc_data(f, &t->p[i].epi, i);
	fputs("    return McGenEventWrite(Context, Descriptor, Activity, ", f);
	fprintf(f, "McTemplateU0%s_ARGCOUNT + 1, EventData);\n", s);
	fprintf(f, "}\n#endif // McTemplateU0%s_def\n\n", s);
}

static int etwctl_mc_tmpl_cmp(const void *a, const void *b)
{
	return strcmp(((const struct etwctl_mc_tmpl *)a)->mangled,
		      ((const struct etwctl_mc_tmpl *)b)->mangled);
}

static int etwctl_mc_write(struct etwctl_mc *m, const struct etw_manifest *mf)
{
	uint32_t i;
	size_t j;
	int ret = 0;

	fputs("//**********************************************************************`\n"
	      "//* This is an include file generated by etwctl mc, in the shape of   *`\n"
	      "//* Windows' Message Compiler (mc.exe) output.                        *`\n"
	      "//**********************************************************************`\n"
	      "#pragma once\n\n", m->f);
	fputs(etwctl_mc_prologue, m->f);
	fputc('\n', m->f);
	for (i = 0; i < mf->nprov && !ret; i++)
		ret = etwctl_mc_provider(m, &mf->prov[i]);
	if (ret)
		return ret;
	qsort(m->tmpls, m->ntmpls, sizeof(*m->tmpls), etwctl_mc_tmpl_cmp);
	fputs("//\n// MCGEN_DISABLE_PROVIDER_CODE_GENERATION macro:\n"
	      "// Define this macro to have the compiler skip the generated functions in this\n"
	      "// header.\n//\n#ifndef MCGEN_DISABLE_PROVIDER_CODE_GENERATION\n\n"
	      "//\n// Template Functions\n//\n\n", m->f);
	for (j = 0; j < m->ntmpls; j++)
		etwctl_mc_template(m->f, &m->tmpls[j]);
	fputs("#endif // MCGEN_DISABLE_PROVIDER_CODE_GENERATION\n\n"
	      "#if defined(__cplusplus)\n}\n#endif\n", m->f);
	return 0;
}

/* The manifest parser's one-line message, without its "libetw: ". */
static int etwctl_mc_parse(const char *path, struct etw_manifest **out)
{
	char *msg = NULL, *s;
	size_t n = 0;
	FILE *diag = open_memstream(&msg, &n);
	ULONG err;
	int ret;

	if (!diag)
		return etwctl_fail("mc", "out of memory");
	err = etw_manifest_parse(path, NULL, 0, diag, out);
	fclose(diag);
	if (!err) {
		free(msg);
		return 0;
	}
	s = msg && !strncmp(msg, "libetw: ", 8) ? msg + 8 : msg;
	if (s && s[0] && s[strlen(s) - 1] == '\n')
		s[strlen(s) - 1] = 0;
	if (s && s[0])
		ret = etwctl_fail("mc", "%s", s);
	else
		ret = etwctl_fail("mc", "%s: %s", path,
				  err == ERROR_OUTOFMEMORY ? "out of memory" :
				  "cannot read the manifest");
	free(msg);
	return ret;
}

/* DIR/NAME.h, NAME from the manifest's file name when not given. */
static char *etwctl_mc_out_path(const char *dir, const char *name,
				const char *manifest)
{
	const char *base = strrchr(manifest, '/');
	char *out = NULL, *dot;
	char *own = NULL;

	base = base ? base + 1 : manifest;
	if (!name) {
		own = strdup(base);
		if (!own)
			return NULL;
		dot = strrchr(own, '.');
		if (dot && dot != own)
			*dot = 0;
		name = own;
	}
	if (asprintf(&out, "%s/%s.h", dir, name) < 0)
		out = NULL;
	free(own);
	return out;
}

static int etwctl_mc_save(const char *path, const char *text, size_t len)
{
	FILE *f = fopen(path, "w");
	int bad;

	if (!f)
		return etwctl_fail("mc", "%s: %s", path, strerror(errno));
	bad = fwrite(text, 1, len, f) != len;
	bad |= fclose(f) != 0;
	if (bad) {
		remove(path);
		return etwctl_fail("mc", "%s: write failed", path);
	}
	return 0;
}

static int etwctl_mc_run(const char *manifest, const char *out, bool activity)
{
	struct etwctl_mc m = { .path = manifest, .activity = activity };
	struct etw_manifest *mf = NULL;
	char *text = NULL;
	size_t len = 0, i;
	int ret = etwctl_mc_parse(manifest, &mf);

	if (ret)
		return ret;
	m.f = open_memstream(&text, &len);
	if (!m.f) {
		ret = etwctl_fail("mc", "out of memory");
		goto out;
	}
	etwctl_mc_write(&m, mf);
	if (fclose(m.f) && !m.err)
		etwctl_mc_error(&m, "out of memory");
	if (m.err)
		ret = etwctl_fail("mc", "%s: %s", manifest, m.err);
	else
		ret = etwctl_mc_save(out, text, len);
out:
	for (i = 0; i < m.ntmpls; i++)
		free(m.tmpls[i].mangled);
	free(m.tmpls);
	free(m.err);
	free(text);
	etw_manifest_free(mf);
	return ret;
}

/**
 * etwctl_cmd_mc - "etwctl mc": an mc.exe header for a manifest
 * @argc: argument count, argv[0] == "mc"
 * @argv: the arguments
 *
 * "-um" and "-km" reach getopt as -u and -k with the argument "m".
 *
 * Return: 0 when the header is written, %ETWCTL_EXIT_RUNTIME when the
 * manifest is not one libetw parses or the header cannot be written,
 * %ETWCTL_EXIT_USAGE for bad arguments.
 */
int etwctl_cmd_mc(int argc, char **argv)
{
	static const struct option options[] = {
		{ "help", no_argument, NULL, 'H' },
		{ NULL, 0, NULL, 0 }
	};
	const char *dir = ".", *name = NULL;
	bool activity = true;
	char *out;
	int c, ret;

	etwctl_getopt_reset();
	while ((c = getopt_long(argc, argv, ":u:k:h:z:", options, NULL)) != -1) {
		if (c == 'H')
			return etwctl_help(etwctl_mc_usage);
		if (c == 'u' && !strcmp(optarg, "m"))
			activity = false;
		else if (c == 'k' && !strcmp(optarg, "m"))
			return etwctl_usage("mc", "-km: no kernel-mode headers");
		else if (c == 'u' || c == 'k')
			return etwctl_usage("mc", "unknown option '-%c%s'", c,
					    optarg);
		else if (c == 'h' && *optarg)
			dir = optarg;
		else if (c == 'z' && *optarg && !strchr(optarg, '/'))
			name = optarg;
		else if (c == 'h' || c == 'z')
			return etwctl_usage("mc", "bad -%c '%s'", c, optarg);
		else
			return etwctl_bad_option("mc", c, argv);
	}
	if (argc - optind != 1)
		return etwctl_usage("mc", "need one MANIFEST");
	out = etwctl_mc_out_path(dir, name, argv[optind]);
	if (!out)
		return etwctl_fail("mc", "out of memory");
	ret = etwctl_mc_run(argv[optind], out, activity);
	free(out);
	return ret;
}
