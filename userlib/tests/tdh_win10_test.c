/* SPDX-License-Identifier: LGPL-2.1-or-later OR MIT */
/*
 * The TDH functions of the Windows 10 SDK beyond decoding (etw_tdh_win10.c):
 * TdhEnumerateProvidersForDecodingSource, the decoding handles, and the
 * ERROR_NOT_SUPPORTED of what needs a source libetw does not read.
 */
#include <stdlib.h>
#include <string.h>

#include <windows.h>
#include <tdh.h>

#include "kselftest_harness.h"
#include "tdh_test.h"

#define SAMPLE SRC_DIR "/userlib/tests/tdh_manifest_sample.man"
#define EMPTY_SIZE offsetof(PROVIDER_ENUMERATION_INFO, TraceProviderInfoArray)

/* The XML source's answer is TdhEnumerateProviders', byte for byte. */
TEST(xml_source_is_enumerate_providers)
{
	PROVIDER_ENUMERATION_INFO *a, *b;
	ULONG size = 0, need = 0;
	WCHAR w[512];

	ASSERT_EQ(ERROR_SUCCESS, TdhLoadManifest(tdh_wide(SAMPLE, w)));
	ASSERT_EQ(ERROR_INSUFFICIENT_BUFFER, TdhEnumerateProviders(NULL, &size));
	ASSERT_EQ(ERROR_INSUFFICIENT_BUFFER,
		  TdhEnumerateProvidersForDecodingSource(DecodingSourceXMLFile,
							 NULL, 0, &need));
	ASSERT_EQ(size, need);
	ASSERT_LT(EMPTY_SIZE, size);
	a = calloc(1, size);
	b = calloc(1, size);
	ASSERT_EQ(ERROR_SUCCESS, TdhEnumerateProviders(a, &size));
	ASSERT_EQ(ERROR_SUCCESS,
		  TdhEnumerateProvidersForDecodingSource(DecodingSourceXMLFile,
							 b, need, &need));
	EXPECT_EQ(0, memcmp(a, b, size));
	free(a);
	free(b);
	EXPECT_EQ(ERROR_SUCCESS, TdhUnloadManifest(tdh_wide(SAMPLE, w)));
}

/* No MOF class is decoded here: the Wbem list is empty, 8 bytes. */
TEST(wbem_source_is_empty)
{
	PROVIDER_ENUMERATION_INFO info;
	ULONG need = 0;

	EXPECT_EQ(ERROR_INSUFFICIENT_BUFFER,
		  TdhEnumerateProvidersForDecodingSource(DecodingSourceWbem,
							 NULL, 0, &need));
	EXPECT_EQ(EMPTY_SIZE, need);
	memset(&info, 0xff, sizeof(info));
	EXPECT_EQ(ERROR_SUCCESS,
		  TdhEnumerateProvidersForDecodingSource(DecodingSourceWbem,
							 &info, sizeof(info),
							 &need));
	EXPECT_EQ(0, info.NumberOfProviders);
	EXPECT_EQ(EMPTY_SIZE, need);
}

/* Only the XML and Wbem sources are enumerated, as documented. */
TEST(other_sources_and_bad_arguments_are_87)
{
	PROVIDER_ENUMERATION_INFO info;
	ULONG need = 0;

	EXPECT_EQ(ERROR_INVALID_PARAMETER,
		  TdhEnumerateProvidersForDecodingSource(DecodingSourceTlg,
							 &info, sizeof(info),
							 &need));
	EXPECT_EQ(ERROR_INVALID_PARAMETER,
		  TdhEnumerateProvidersForDecodingSource(DecodingSourceWPP,
							 &info, sizeof(info),
							 &need));
	EXPECT_EQ(ERROR_INVALID_PARAMETER,
		  TdhEnumerateProvidersForDecodingSource(DecodingSourceXMLFile,
							 &info, sizeof(info),
							 NULL));
	EXPECT_EQ(ERROR_INVALID_PARAMETER,
		  TdhEnumerateProvidersForDecodingSource(DecodingSourceXMLFile,
							 NULL, 8, &need));
}

/* A handle keeps each parameter; a string is copied. */
TEST(decoding_handle_keeps_parameters)
{
	WCHAR tmf[] = { 'a', '.', 't', 'm', 'f', 0 };
	TDH_CONTEXT ctx = { 0 };
	TDH_HANDLE h = NULL;
	const WCHAR *got;

	ASSERT_EQ(ERROR_SUCCESS, TdhOpenDecodingHandle(&h));
	ctx.ParameterType = TDH_CONTEXT_POINTERSIZE;
	ctx.ParameterValue = 4;
	EXPECT_EQ(ERROR_SUCCESS, TdhSetDecodingParameter(h, &ctx));
	ctx.ParameterType = TDH_CONTEXT_WPP_TMFFILE;
	ctx.ParameterValue = (ULONGLONG)(uintptr_t)tmf;
	EXPECT_EQ(ERROR_SUCCESS, TdhSetDecodingParameter(h, &ctx));
	tmf[0] = 'b';

	ctx.ParameterValue = 0;
	ctx.ParameterType = TDH_CONTEXT_POINTERSIZE;
	EXPECT_EQ(ERROR_SUCCESS, TdhGetDecodingParameter(h, &ctx));
	EXPECT_EQ(4, ctx.ParameterValue);
	ctx.ParameterType = TDH_CONTEXT_WPP_TMFFILE;
	EXPECT_EQ(ERROR_SUCCESS, TdhGetDecodingParameter(h, &ctx));
	got = (const WCHAR *)(uintptr_t)ctx.ParameterValue;
	EXPECT_NE((const WCHAR *)tmf, got);
	EXPECT_EQ('a', got[0]);
	EXPECT_EQ(0, got[5]);
	EXPECT_EQ(ERROR_SUCCESS, TdhCloseDecodingHandle(h));
}

TEST(decoding_parameter_never_set_is_1168)
{
	TDH_CONTEXT ctx = { 0, TDH_CONTEXT_WPP_GMT, 0 };
	TDH_HANDLE h = NULL;

	ASSERT_EQ(ERROR_SUCCESS, TdhOpenDecodingHandle(&h));
	EXPECT_EQ(ERROR_NOT_FOUND, TdhGetDecodingParameter(h, &ctx));
	ctx.ParameterType = TDH_CONTEXT_MAXIMUM;
	EXPECT_EQ(ERROR_INVALID_PARAMETER, TdhSetDecodingParameter(h, &ctx));
	EXPECT_EQ(ERROR_INVALID_PARAMETER, TdhGetDecodingParameter(h, &ctx));
	EXPECT_EQ(ERROR_SUCCESS, TdhCloseDecodingHandle(h));
}

/* A closed or never-opened handle is 6; a NULL out-pointer 87. */
TEST(closed_handle_is_6)
{
	TDH_CONTEXT ctx = { 8, TDH_CONTEXT_POINTERSIZE, 0 };
	TDH_HANDLE h = NULL;
	int not_a_handle;

	EXPECT_EQ(ERROR_INVALID_PARAMETER, TdhOpenDecodingHandle(NULL));
	ASSERT_EQ(ERROR_SUCCESS, TdhOpenDecodingHandle(&h));
	EXPECT_EQ(ERROR_SUCCESS, TdhCloseDecodingHandle(h));
	EXPECT_EQ(ERROR_INVALID_HANDLE, TdhCloseDecodingHandle(h));
	EXPECT_EQ(ERROR_INVALID_HANDLE, TdhSetDecodingParameter(h, &ctx));
	EXPECT_EQ(ERROR_INVALID_HANDLE, TdhGetDecodingParameter(h, &ctx));
	EXPECT_EQ(ERROR_INVALID_HANDLE,
		  TdhCloseDecodingHandle(&not_a_handle));
	EXPECT_EQ(ERROR_INVALID_HANDLE, TdhCloseDecodingHandle(NULL));
}

/* What needs a source libetw does not read: 50 for valid arguments. */
TEST(unsupported_sources_are_50)
{
	WCHAR name[] = { 'x', 0 };
	EVENT_RECORD rec;
	PPROVIDER_FILTER_INFO filters = NULL;
	GUID guid = { 1, 2, 3, { 4 } };
	ULONG size = 0, count = 0;
	BYTE buf[16];

	memset(&rec, 0, sizeof(rec));
	EXPECT_EQ(ERROR_NOT_SUPPORTED,
		  TdhGetWppProperty(NULL, &rec, name, &size, buf));
	EXPECT_EQ(ERROR_NOT_SUPPORTED, TdhGetWppMessage(NULL, &rec, &size, buf));
	EXPECT_EQ(ERROR_NOT_SUPPORTED,
		  TdhEnumerateProviderFilters(&guid, 0, NULL, &count, &filters,
					      &size));
}

TEST(unsupported_sources_check_arguments_first)
{
	WCHAR name[] = { 'x', 0 };
	EVENT_RECORD rec;
	EVENT_DESCRIPTOR desc = { 0 };
	PAYLOAD_FILTER_PREDICATE pred[MAX_PAYLOAD_PREDICATES + 1];
	GUID guid = { 1, 2, 3, { 4 } };
	PVOID filter = NULL;
	ULONG size = 0;

	memset(&rec, 0, sizeof(rec));
	memset(pred, 0, sizeof(pred));
	EXPECT_EQ(ERROR_INVALID_PARAMETER,
		  TdhGetWppProperty(NULL, NULL, name, &size, NULL));
	EXPECT_EQ(ERROR_INVALID_PARAMETER,
		  TdhGetWppProperty(NULL, &rec, NULL, &size, NULL));
	EXPECT_EQ(ERROR_INVALID_PARAMETER,
		  TdhGetWppMessage(NULL, NULL, &size, NULL));
	EXPECT_EQ(ERROR_INVALID_PARAMETER,
		  TdhCreatePayloadFilter(&guid, &desc, TRUE,
					 MAX_PAYLOAD_PREDICATES + 1, pred,
					 &filter));
	EXPECT_EQ(ERROR_INVALID_PARAMETER,
		  TdhCreatePayloadFilter(&guid, &desc, TRUE, 0, pred, &filter));
	EXPECT_EQ(ERROR_INVALID_PARAMETER, TdhDeletePayloadFilter(NULL));
}

TEST_HARNESS_MAIN
