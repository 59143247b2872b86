// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * Payload filters as libetw builds them (userlib/etw_tdh_payload.c):
 * TdhCreatePayloadFilter resolves predicates against a manifest into the
 * kernel's blocks (their bytes checked here), TdhAggregatePayloadFilters
 * joins them, and every malformed predicate gets the Win32 code
 * Microsoft's TdhCreatePayloadFilter page lists for it.  What the kernel
 * does with the blob is tested by KUnit (etw_payload_filter) and in the
 * VM (selftests/payload_filter_test.c).
 */
#include <stdio.h>

#include <linux/etw.h>

#include "kselftest_harness.h"
#include "tdh_test.h"

#define GUID_S	"{0BADF00D-0003-0004-0506-0708090A0B0C}"

static const GUID prov = { 0x0badf00d, 0x0003, 0x0004,
	{ 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c } };
static const GUID other = { 0x0badf00d, 0x0003, 0x0004,
	{ 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0d } };

/* Event 7 v1: template T; event 8 v0: a struct first; event 9: none. */
static const char manifest[] =
	"<instrumentationManifest xmlns=\"http://schemas.microsoft.com/"
	"win/2004/08/events\"><instrumentation><events>"
	"<provider name=\"PayloadTest\" guid=\"" GUID_S "\">"
	"<templates><template tid=\"T\">"
	"<data name=\"Count\" inType=\"win:UInt32\"/>"
	"<data name=\"Delta\" inType=\"win:Int16\"/>"
	"<data name=\"Name\" inType=\"win:UnicodeString\"/>"
	"<data name=\"Path\" inType=\"win:AnsiString\"/>"
	"<data name=\"Len\" inType=\"win:UInt16\"/>"
	"<data name=\"Text\" inType=\"win:UnicodeString\" length=\"Len\"/>"
	"<data name=\"Id\" inType=\"win:GUID\"/>"
	"<data name=\"Big\" inType=\"win:UInt64\"/>"
	"<data name=\"Ratio\" inType=\"win:Float\"/>"
	"<data name=\"Blob\" inType=\"win:Binary\" length=\"Len\"/>"
	"<data name=\"Three\" inType=\"win:UInt16\" count=\"3\"/>"
	"<data name=\"Flag\" inType=\"win:Boolean\"/>"
	"<data name=\"Sid\" inType=\"win:SID\"/>"
	"<data name=\"After\" inType=\"win:UInt32\"/>"
	"</template><template tid=\"S\">"
	"<struct name=\"Pair\"><data name=\"A\" inType=\"win:UInt8\"/>"
	"</struct><data name=\"X\" inType=\"win:UInt32\"/>"
	"</template></templates><events>"
	"<event value=\"7\" version=\"1\" template=\"T\"/>"
	"<event value=\"8\" version=\"0\" template=\"S\"/>"
	"<event value=\"9\" version=\"0\"/>"
	"</events></provider></events></instrumentation>"
	"</instrumentationManifest>";

FIXTURE(pf) {
	WCHAR name[32];
	WCHAR value[1100];
	PAYLOAD_FILTER_PREDICATE pred;
	EVENT_DESCRIPTOR desc;
	PVOID filter;
};

FIXTURE_SETUP(pf)
{
	ASSERT_EQ(ERROR_SUCCESS,
		  TdhLoadManifestFromMemory((PVOID)manifest,
					    sizeof(manifest) - 1));
	memset(&self->desc, 0, sizeof(self->desc));
	self->desc.Id = 7;
	self->desc.Version = 1;
	self->filter = NULL;
}

FIXTURE_TEARDOWN(pf)
{
	TdhDeletePayloadFilter(&self->filter);
	TdhUnloadManifestFromMemory((PVOID)manifest, sizeof(manifest) - 1);
}

/* One predicate on @field of event 7 v1, @op, operand @value (ASCII). */
static ULONG pf_create(struct _test_data_pf *self, const char *field,
		       USHORT op, const char *value)
{
	self->pred.FieldName = tdh_wide(field, self->name);
	self->pred.CompareOp = op;
	self->pred.Value = tdh_wide(value, self->value);
	TdhDeletePayloadFilter(&self->filter);
	return TdhCreatePayloadFilter(&prov, &self->desc, TRUE, 1, &self->pred,
				      &self->filter);
}

/* The block of a single filter, through TdhAggregatePayloadFilters. */
static const struct etw_payload_event *
pf_block(struct __test_metadata *_metadata, PVOID filter,
	 EVENT_FILTER_DESCRIPTOR *d)
{
	const struct etw_payload_filter *h;

	EXPECT_EQ(ERROR_SUCCESS, TdhAggregatePayloadFilters(1, &filter, NULL,
							    d));
	h = (const void *)(uintptr_t)d->Ptr;
	EXPECT_EQ(EVENT_FILTER_TYPE_PAYLOAD, d->Type);
	EXPECT_EQ(d->Size, h->size);
	EXPECT_EQ(1, h->count);
	return (const void *)(h + 1);
}

static const struct etw_payload_field *
pf_fields(const struct etw_payload_event *e)
{
	return (const void *)(e + 1);
}

static const struct etw_payload_predicate *
pf_preds(const struct etw_payload_event *e)
{
	return (const void *)((const uint8_t *)e +
			      ETW_PAYLOAD_PREDICATES_OFF(e->nfields));
}

/* An integer predicate on the first field: one field, one predicate. */
TEST_F(pf, integer_block_bytes)
{
	const struct etw_payload_event *e;
	const struct etw_payload_predicate *p;
	EVENT_FILTER_DESCRIPTOR d;

	ASSERT_EQ(ERROR_SUCCESS, pf_create(self, "Count", PAYLOADFIELD_EQ,
					   "10"));
	e = pf_block(_metadata, self->filter, &d);
	EXPECT_EQ(8 + 48, d.Size);	/* 16 + 4 + 24, to 8 bytes */
	EXPECT_EQ(48, e->size);
	EXPECT_EQ(7, e->id);
	EXPECT_EQ(1, e->version);
	EXPECT_EQ(1, e->match_any);
	EXPECT_EQ(0, e->match_all_group);
	EXPECT_EQ(1, e->nfields);
	EXPECT_EQ(1, e->npreds);
	EXPECT_EQ(ETW_PAYLOAD_FIELD_FIXED, pf_fields(e)[0].kind);
	EXPECT_EQ(4, pf_fields(e)[0].size);
	p = pf_preds(e);
	EXPECT_EQ(0, p->field);
	EXPECT_EQ(ETW_PAYLOAD_OP_EQ, p->op);
	EXPECT_EQ(ETW_PAYLOAD_UINT, p->type);
	EXPECT_EQ(10, p->value);
	EXPECT_EQ(0, p->value_len);
	EXPECT_EQ(ERROR_SUCCESS, TdhCleanupPayloadEventFilterDescriptor(&d));
	EXPECT_EQ(0, d.Ptr);
	EXPECT_EQ(0, d.Size);
}

/* The properties before the field, as the kernel steps over them. */
TEST_F(pf, layout_of_earlier_fields)
{
	static const struct etw_payload_field want[] = {
		{ ETW_PAYLOAD_FIELD_FIXED, 0, 4 },
		{ ETW_PAYLOAD_FIELD_FIXED, 0, 2 },
		{ ETW_PAYLOAD_FIELD_SZ16, 0, 0 },
		{ ETW_PAYLOAD_FIELD_SZ8, 0, 0 },
		{ ETW_PAYLOAD_FIELD_FIXED, 0, 2 },
		{ ETW_PAYLOAD_FIELD_COUNTED, 4, 2 },
		{ ETW_PAYLOAD_FIELD_FIXED, 0, 16 },
		{ ETW_PAYLOAD_FIELD_FIXED, 0, 8 },
		{ ETW_PAYLOAD_FIELD_FIXED, 0, 4 },
		{ ETW_PAYLOAD_FIELD_COUNTED, 4, 1 },
		{ ETW_PAYLOAD_FIELD_FIXED, 0, 6 },
		{ ETW_PAYLOAD_FIELD_FIXED, 0, 4 },
	};
	const struct etw_payload_event *e;
	EVENT_FILTER_DESCRIPTOR d;
	unsigned int i;

	ASSERT_EQ(ERROR_SUCCESS, pf_create(self, "Flag", PAYLOADFIELD_NE,
					   "0"));
	e = pf_block(_metadata, self->filter, &d);
	ASSERT_EQ(12, e->nfields);
	for (i = 0; i < 12; i++) {
		EXPECT_EQ(want[i].kind, pf_fields(e)[i].kind);
		EXPECT_EQ(want[i].ref, pf_fields(e)[i].ref);
		EXPECT_EQ(want[i].size, pf_fields(e)[i].size);
	}
	EXPECT_EQ(11, pf_preds(e)->field);
	TdhCleanupPayloadEventFilterDescriptor(&d);
}

/* Operands in the field's type: UTF-16 kept, ANSI as UTF-8, a GUID's bytes. */
TEST_F(pf, operands_in_the_fields_type)
{
	static const uint8_t guid_bytes[16] = {
		0x0d, 0xf0, 0xad, 0x0b, 0x03, 0x00, 0x04, 0x00,
		0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c,
	};
	const struct etw_payload_event *e;
	const struct etw_payload_predicate *p;
	EVENT_FILTER_DESCRIPTOR d;

	ASSERT_EQ(ERROR_SUCCESS, pf_create(self, "Name", PAYLOADFIELD_IS,
					   "Ab"));
	e = pf_block(_metadata, self->filter, &d);
	p = pf_preds(e);
	EXPECT_EQ(ETW_PAYLOAD_STR16, p->type);
	EXPECT_EQ(4, p->value_len);
	EXPECT_EQ(0, memcmp((const uint8_t *)e + p->value_off, "A\0b\0", 4));
	TdhCleanupPayloadEventFilterDescriptor(&d);

	ASSERT_EQ(ERROR_SUCCESS, pf_create(self, "Path", PAYLOADFIELD_CONTAINS,
					   "tmp"));
	e = pf_block(_metadata, self->filter, &d);
	p = pf_preds(e);
	EXPECT_EQ(ETW_PAYLOAD_STR8, p->type);
	EXPECT_EQ(3, p->value_len);
	EXPECT_EQ(0, memcmp((const uint8_t *)e + p->value_off, "tmp", 3));
	TdhCleanupPayloadEventFilterDescriptor(&d);

	ASSERT_EQ(ERROR_SUCCESS, pf_create(self, "Id", PAYLOADFIELD_IS, GUID_S));
	e = pf_block(_metadata, self->filter, &d);
	p = pf_preds(e);
	EXPECT_EQ(ETW_PAYLOAD_BYTES, p->type);
	EXPECT_EQ(16, p->value_len);
	EXPECT_EQ(0, memcmp((const uint8_t *)e + p->value_off, guid_bytes, 16));
	TdhCleanupPayloadEventFilterDescriptor(&d);

	ASSERT_EQ(ERROR_SUCCESS, pf_create(self, "Delta",
					   PAYLOADFIELD_BETWEEN,
					   "-32768, 0x7fff"));
	e = pf_block(_metadata, self->filter, &d);
	p = pf_preds(e);
	EXPECT_EQ(ETW_PAYLOAD_INT, p->type);
	EXPECT_EQ((__u64)-32768, p->value);
	EXPECT_EQ(0x7fff, p->value2);
	TdhCleanupPayloadEventFilterDescriptor(&d);
}

struct pf_err {
	const char *field;
	USHORT op;
	const char *value;
	ULONG expect;
};

/*
 * TdhCreatePayloadFilter's codes (nf-tdh-tdhcreatepayloadfilter), and
 * PAYLOAD_FILTER_PREDICATE's rules: integer operators on integers, string
 * operators on strings, IS/ISNOT only on a GUID written with braces;
 * floating point, binary and SID fields cannot be compared.
 */
TEST_F(pf, predicate_errors)
{
	static const struct pf_err cases[] = {
		{ "Count", PAYLOADFIELD_EQ, "0x1F", ERROR_SUCCESS },
		{ "Count", PAYLOADFIELD_EQ, "4294967295", ERROR_SUCCESS },
		{ "Count", PAYLOADFIELD_EQ, "4294967296", ERROR_INVALID_PARAMETER },
		{ "Count", PAYLOADFIELD_EQ, "-1", ERROR_INVALID_PARAMETER },
		{ "Count", PAYLOADFIELD_EQ, "ten", ERROR_INVALID_PARAMETER },
		{ "Count", PAYLOADFIELD_EQ, "", ERROR_INVALID_PARAMETER },
		{ "Count", PAYLOADFIELD_EQ, "1,2", ERROR_INVALID_PARAMETER },
		{ "Count", PAYLOADFIELD_BETWEEN, "1", ERROR_INVALID_PARAMETER },
		{ "Count", PAYLOADFIELD_NOTBETWEEN, "1,2", ERROR_SUCCESS },
		{ "Count", PAYLOADFIELD_MODULO, "0", ERROR_INVALID_PARAMETER },
		{ "Count", PAYLOADFIELD_MODULO, "3", ERROR_SUCCESS },
		{ "Count", 9, "1", ERROR_INVALID_PARAMETER },
		{ "Count", PAYLOADFIELD_CONTAINS, "1", ERROR_INVALID_PARAMETER },
		{ "Count", PAYLOADFIELD_INVALID, "1", ERROR_INVALID_PARAMETER },
		{ "Delta", PAYLOADFIELD_EQ, "-32769", ERROR_INVALID_PARAMETER },
		{ "Delta", PAYLOADFIELD_EQ, "32767", ERROR_SUCCESS },
		{ "Name", PAYLOADFIELD_EQ, "x", ERROR_INVALID_PARAMETER },
		{ "Name", PAYLOADFIELD_DOESNTCONTAIN, "x", ERROR_SUCCESS },
		{ "Text", PAYLOADFIELD_ISNOT, "", ERROR_SUCCESS },
		{ "Id", PAYLOADFIELD_EQ, GUID_S, ERROR_INVALID_PARAMETER },
		{ "Id", PAYLOADFIELD_CONTAINS, GUID_S, ERROR_INVALID_PARAMETER },
		{ "Id", PAYLOADFIELD_IS, "0BADF00D-0003-0004-0506-0708090A0B0C",
		  ERROR_INVALID_PARAMETER },
		{ "Ratio", PAYLOADFIELD_EQ, "1", ERROR_NOT_SUPPORTED },
		{ "Blob", PAYLOADFIELD_IS, "x", ERROR_NOT_SUPPORTED },
		{ "Three", PAYLOADFIELD_EQ, "1", ERROR_NOT_SUPPORTED },
		{ "Flag", PAYLOADFIELD_EQ, "1", ERROR_SUCCESS },
		{ "Sid", PAYLOADFIELD_IS, "x", ERROR_NOT_SUPPORTED },
		{ "After", PAYLOADFIELD_EQ, "1", ERROR_NOT_SUPPORTED },
		{ "count", PAYLOADFIELD_EQ, "1", ERROR_NOT_FOUND },
		{ "Nope", PAYLOADFIELD_EQ, "1", ERROR_NOT_FOUND },
	};
	unsigned int i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		EXPECT_EQ(cases[i].expect, pf_create(self, cases[i].field,
						     cases[i].op,
						     cases[i].value))
			TH_LOG("case %u", i);
}

TEST_F(pf, string_operand_limit)
{
	char *v = malloc(1026);

	ASSERT_NE(NULL, v);
	memset(v, 'a', 1025);
	v[1025] = 0;
	EXPECT_EQ(ERROR_INVALID_PARAMETER,
		  pf_create(self, "Path", PAYLOADFIELD_CONTAINS, v));
	v[1024] = 0;
	EXPECT_EQ(ERROR_SUCCESS,
		  pf_create(self, "Path", PAYLOADFIELD_CONTAINS, v));
	v[512] = 0;
	EXPECT_EQ(ERROR_SUCCESS,
		  pf_create(self, "Name", PAYLOADFIELD_CONTAINS, v));
	v[512] = 'a';
	v[513] = 0;
	EXPECT_EQ(ERROR_INVALID_PARAMETER,
		  pf_create(self, "Name", PAYLOADFIELD_CONTAINS, v));
	free(v);
}

TEST_F(pf, unknown_provider_event_and_struct)
{
	EXPECT_EQ(ERROR_SUCCESS, pf_create(self, "Count", PAYLOADFIELD_EQ,
					   "1"));
	TdhDeletePayloadFilter(&self->filter);
	EXPECT_EQ(ERROR_FILE_NOT_FOUND,
		  TdhCreatePayloadFilter(&other, &self->desc, TRUE, 1,
					 &self->pred, &self->filter));
	EXPECT_EQ(NULL, self->filter);
	self->desc.Version = 0;
	EXPECT_EQ(ERROR_NOT_FOUND, pf_create(self, "Count", PAYLOADFIELD_EQ,
					     "1"));
	self->desc.Id = 9;
	EXPECT_EQ(ERROR_NOT_FOUND, pf_create(self, "Count", PAYLOADFIELD_EQ,
					     "1"));
	self->desc.Id = 8;
	EXPECT_EQ(ERROR_NOT_SUPPORTED, pf_create(self, "X", PAYLOADFIELD_EQ,
						 "1"));
	EXPECT_EQ(ERROR_NOT_SUPPORTED, pf_create(self, "Pair",
						 PAYLOADFIELD_EQ, "1"));
}

TEST_F(pf, bad_arguments)
{
	PAYLOAD_FILTER_PREDICATE p = { NULL, PAYLOADFIELD_EQ, NULL };
	PVOID f = &p;

	EXPECT_EQ(ERROR_INVALID_PARAMETER,
		  TdhCreatePayloadFilter(&prov, &self->desc, TRUE, 1, &p, &f));
	EXPECT_EQ(NULL, f);
	p.FieldName = tdh_wide("Count", self->name);
	EXPECT_EQ(ERROR_INVALID_PARAMETER,
		  TdhCreatePayloadFilter(&prov, &self->desc, TRUE, 1, &p, &f));
	EXPECT_EQ(ERROR_INVALID_PARAMETER,
		  TdhCreatePayloadFilter(NULL, &self->desc, TRUE, 1, &p, &f));
	EXPECT_EQ(ERROR_INVALID_PARAMETER,
		  TdhCreatePayloadFilter(&prov, NULL, TRUE, 1, &p, &f));
	EXPECT_EQ(ERROR_INVALID_PARAMETER,
		  TdhCreatePayloadFilter(&prov, &self->desc, TRUE, 1, &p,
					 NULL));
	EXPECT_EQ(ERROR_INVALID_PARAMETER, TdhDeletePayloadFilter(NULL));
	EXPECT_EQ(ERROR_INVALID_PARAMETER,
		  TdhCleanupPayloadEventFilterDescriptor(NULL));
	EXPECT_EQ(ERROR_INVALID_PARAMETER,
		  TdhAggregatePayloadFilters(0, &f, NULL, NULL));
}

TEST_F(pf, delete_clears_the_pointer)
{
	ASSERT_EQ(ERROR_SUCCESS, pf_create(self, "Count", PAYLOADFIELD_EQ,
					   "1"));
	ASSERT_NE(NULL, self->filter);
	EXPECT_EQ(ERROR_SUCCESS, TdhDeletePayloadFilter(&self->filter));
	EXPECT_EQ(NULL, self->filter);
}

/* EventMatchALLFlags goes into each block; NULL means all FALSE. */
TEST_F(pf, aggregate_flags_and_order)
{
	const struct etw_payload_filter *h;
	const struct etw_payload_event *e;
	EVENT_FILTER_DESCRIPTOR d;
	BOOLEAN flags[2] = { TRUE, FALSE };
	PVOID f[2] = { NULL, NULL };

	ASSERT_EQ(ERROR_SUCCESS, pf_create(self, "Count", PAYLOADFIELD_EQ,
					   "1"));
	f[0] = self->filter;
	self->filter = NULL;
	ASSERT_EQ(ERROR_SUCCESS, pf_create(self, "Path", PAYLOADFIELD_IS,
					   "x"));
	f[1] = self->filter;
	ASSERT_EQ(ERROR_SUCCESS, TdhAggregatePayloadFilters(2, f, flags, &d));
	h = (const void *)(uintptr_t)d.Ptr;
	EXPECT_EQ(2, h->count);
	e = (const void *)(h + 1);
	EXPECT_EQ(1, e->match_all_group);
	EXPECT_EQ(1, e->nfields);
	e = (const void *)((const uint8_t *)e + e->size);
	EXPECT_EQ(0, e->match_all_group);
	EXPECT_EQ(4, e->nfields);
	EXPECT_EQ(64, e->size);		/* 16 + 16 + 24 + 1, to 8 bytes */
	EXPECT_EQ(8 + 48 + 64, d.Size);
	EXPECT_EQ(ERROR_SUCCESS, TdhCleanupPayloadEventFilterDescriptor(&d));
	TdhDeletePayloadFilter(&f[0]);
}

TEST_F(pf, aggregate_one_provider_and_size_limit)
{
	static const char other_man[] =
		"<instrumentationManifest xmlns=\"http://schemas.microsoft.com/"
		"win/2004/08/events\"><instrumentation><events>"
		"<provider name=\"Other\" guid=\"{0BADF00D-0003-0004-0506-"
		"0708090A0B0D}\"><templates><template tid=\"T\">"
		"<data name=\"Count\" inType=\"win:UInt32\"/></template>"
		"</templates><events><event value=\"7\" version=\"1\" "
		"template=\"T\"/></events></provider></events>"
		"</instrumentation></instrumentationManifest>";
	EVENT_FILTER_DESCRIPTOR d = { 0 };
	PVOID f[5] = { NULL };
	char *v = malloc(1001);
	unsigned int i;

	ASSERT_NE(NULL, v);
	ASSERT_EQ(ERROR_SUCCESS,
		  TdhLoadManifestFromMemory((PVOID)other_man,
					    sizeof(other_man) - 1));
	ASSERT_EQ(ERROR_SUCCESS, pf_create(self, "Count", PAYLOADFIELD_EQ,
					   "1"));
	f[0] = self->filter;
	self->filter = NULL;
	ASSERT_EQ(ERROR_SUCCESS,
		  TdhCreatePayloadFilter(&other, &self->desc, TRUE, 1,
					 &self->pred, &f[1]));
	EXPECT_EQ(ERROR_INVALID_PARAMETER,
		  TdhAggregatePayloadFilters(2, f, NULL, &d));
	TdhDeletePayloadFilter(&f[1]);
	memset(v, 'a', 1000);
	v[1000] = 0;
	for (i = 1; i < 5; i++) {
		ASSERT_EQ(ERROR_SUCCESS, pf_create(self, "Path",
						   PAYLOADFIELD_CONTAINS, v));
		f[i] = self->filter;
		self->filter = NULL;
	}
	/* 8 + 48 + 3 x 1056 fits in 4096; a fourth long block does not. */
	EXPECT_EQ(ERROR_SUCCESS, TdhAggregatePayloadFilters(4, f, NULL, &d));
	EXPECT_EQ(8 + 48 + 3 * 1056, d.Size);
	TdhCleanupPayloadEventFilterDescriptor(&d);
	EXPECT_EQ(ERROR_INSUFFICIENT_BUFFER,
		  TdhAggregatePayloadFilters(5, f, NULL, &d));
	EXPECT_EQ(ERROR_INVALID_PARAMETER,
		  TdhCleanupPayloadEventFilterDescriptor(&(EVENT_FILTER_DESCRIPTOR){
			.Ptr = 1, .Type = EVENT_FILTER_TYPE_PID }));
	for (i = 0; i < 5; i++)
		TdhDeletePayloadFilter(&f[i]);
	TdhUnloadManifestFromMemory((PVOID)other_man, sizeof(other_man) - 1);
	free(v);
}

TEST_HARNESS_MAIN
