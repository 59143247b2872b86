/* SPDX-License-Identifier: LGPL-2.1-or-later OR MIT */
/*
 * The everyday <windows.h> macros a provider or consumer source file uses
 * around the ETW calls, each with the value winerror.h, winnt.h and
 * minwindef.h give it.  Built as C and C++ by mcgen_windows_test; exits
 * with 0, or with the line of the first check that failed.
 */
#include <stdio.h>

#include <windows.h>
#include <evntprov.h>

/* __declspec(selectany) has no C++ meaning before C++17's inline variables. */
#if !defined(__cplusplus) || __cplusplus >= 201703L
#define HAVE_SELECTANY	1
#endif

#define CHECK(e)	do { if (!(e)) return __LINE__; } while (0)

/* C_ASSERT at file scope and, below, in a function. */
C_ASSERT(sizeof(__int64) == 8);
C_ASSERT(sizeof(unsigned __int64) == 8);
C_ASSERT(sizeof(__int32) == 4 && sizeof(__int16) == 2 && sizeof(__int8) == 1);

/* __declspec forms on declarations and definitions. */
__declspec(noinline) static int not_inlined(int x)
{
	return x + 1;
}

static __declspec(align(32)) char aligned32[3];
static DECLSPEC_ALIGN(16) char aligned16[3];
static DECLSPEC_CACHEALIGN char cache_aligned[3];
__declspec(dllexport) int exported_value;
__declspec(dllimport) int imported_function(void);
#ifdef HAVE_SELECTANY
EXTERN_C __declspec(selectany) int select_any_value = 42;
EXTERN_C __declspec(selectany) ULONG select_any_zeroed[2];
#endif

static int sal_annotated(_In_ int a, _In_opt_ const int *b,
			 _Out_ int *c, _Inout_ int *d,
			 _In_reads_bytes_(n) const void *p, SIZE_T n,
			 _Outptr_ void **q)
{
	*c = a + (b ? *b : 0);
	*d += 1;
	*q = (void *)p;
	return (int)n;
}

_Success_(return != 0) _Ret_maybenull_ _Check_return_
static const char *sal_result(_In_z_ const char *s)
{
	return s;
}

FORCEINLINE int forced(int x)
{
	return x * 2;
}

static int check_hresults(void)
{
	CHECK(S_OK == 0 && S_FALSE == 1);
	CHECK((ULONG)E_FAIL == 0x80004005u);
	CHECK((ULONG)E_INVALIDARG == 0x80070057u);
	CHECK((ULONG)E_OUTOFMEMORY == 0x8007000Eu);
	CHECK((ULONG)E_NOTIMPL == 0x80004001u);
	CHECK((ULONG)E_POINTER == 0x80004003u);
	CHECK((ULONG)E_UNEXPECTED == 0x8000FFFFu);
	CHECK((ULONG)E_ACCESSDENIED == 0x80070005u);
	CHECK((ULONG)E_NOINTERFACE == 0x80004002u);
	CHECK((ULONG)E_ABORT == 0x80004004u);
	CHECK((ULONG)E_HANDLE == 0x80070006u);
	CHECK(SUCCEEDED(S_OK) && SUCCEEDED(S_FALSE) && !SUCCEEDED(E_FAIL));
	CHECK(FAILED(E_FAIL) && !FAILED(S_OK) && !FAILED(S_FALSE));
	CHECK(IS_ERROR(E_FAIL) && !IS_ERROR(S_FALSE));
	CHECK((ULONG)HRESULT_FROM_WIN32(ERROR_ACCESS_DENIED) == 0x80070005u);
	CHECK(HRESULT_FROM_WIN32(ERROR_INVALID_PARAMETER) == E_INVALIDARG);
	CHECK(HRESULT_FROM_WIN32(ERROR_OUTOFMEMORY) == E_OUTOFMEMORY);
	CHECK(HRESULT_FROM_WIN32(ERROR_SUCCESS) == S_OK);
	CHECK(HRESULT_FROM_WIN32(E_FAIL) == E_FAIL);
	CHECK((ULONG)HRESULT_FROM_WIN32(ERROR_INSUFFICIENT_BUFFER) ==
	      (ULONG)E_NOT_SUFFICIENT_BUFFER);
	CHECK(HRESULT_CODE(E_ACCESSDENIED) == ERROR_ACCESS_DENIED);
	CHECK(HRESULT_CODE(E_INVALIDARG) == ERROR_INVALID_PARAMETER);
	CHECK(HRESULT_FACILITY(E_ACCESSDENIED) == FACILITY_WIN32);
	CHECK(HRESULT_FACILITY(E_FAIL) == FACILITY_NULL);
	CHECK(HRESULT_SEVERITY(E_FAIL) == SEVERITY_ERROR);
	CHECK(HRESULT_SEVERITY(S_FALSE) == SEVERITY_SUCCESS);
	CHECK(MAKE_HRESULT(SEVERITY_ERROR, FACILITY_WIN32, 5) ==
	      E_ACCESSDENIED);
	CHECK((ULONG)HRESULT_FROM_NT(0xC0000188) == 0xD0000188u);
	return 0;
}

static int check_memory(void)
{
	unsigned char a[8], b[8];
	unsigned int i;

	FillMemory(a, sizeof(a), 0x5a);
	for (i = 0; i < sizeof(a); i++)
		CHECK(a[i] == 0x5a);
	ZeroMemory(a, 4);
	CHECK(a[0] == 0 && a[3] == 0 && a[4] == 0x5a);
	for (i = 0; i < sizeof(b); i++)
		b[i] = (unsigned char)i;
	CopyMemory(a, b, sizeof(a));
	CHECK(RtlEqualMemory(a, b, sizeof(a)));
	MoveMemory(a + 1, a, 6);	/* overlapping */
	CHECK(a[0] == 0 && a[1] == 0 && a[2] == 1 && a[6] == 5 && a[7] == 7);
	CHECK(SecureZeroMemory(a, 5) == (PVOID)a);
	CHECK(a[0] == 0 && a[4] == 0 && a[5] == 4);
	CHECK(RtlSecureZeroMemory(b, sizeof(b)) == (PVOID)b);
	for (i = 0; i < sizeof(b); i++)
		CHECK(b[i] == 0);
	return 0;
}

static int check_words(void)
{
	CHECK(MAKEWORD(0x34, 0x12) == 0x1234);
	CHECK(MAKEWORD(0x1ff, 0x2ff) == 0xffff);
	CHECK((ULONG)MAKELONG(0x5678, 0x1234) == 0x12345678u);
	CHECK(LOWORD(0x12345678) == 0x5678 && HIWORD(0x12345678) == 0x1234);
	CHECK(LOBYTE(0x1234) == 0x34 && HIBYTE(0x1234) == 0x12);
	return 0;
}

static int check_misc(void)
{
	int arr[7], x = 1, y, z = 5, got;
	void *q = NULL;
	ULONG UNALIGNED *u;
	unsigned char raw[8] = { 0 };

	UNREFERENCED_PARAMETER(arr);
	C_ASSERT(ARRAYSIZE(arr) == 7);
	CHECK(_countof(arr) == 7 && ARRAYSIZE(arr) == 7 &&
	      RTL_NUMBER_OF(arr) == 7);
	CHECK(not_inlined(1) == 2 && forced(3) == 6);
	CHECK((uintptr_t)aligned32 % 32 == 0);
	CHECK((uintptr_t)aligned16 % 16 == 0);
	CHECK((uintptr_t)cache_aligned % SYSTEM_CACHE_ALIGNMENT_SIZE == 0);
	CHECK(SYSTEM_CACHE_ALIGNMENT_SIZE == 64);
#ifdef HAVE_SELECTANY
	CHECK(select_any_value == 42);
	CHECK(select_any_zeroed[0] == 0 && select_any_zeroed[1] == 0);
#endif
	got = sal_annotated(x, &z, &y, &x, arr, sizeof(arr), &q);
	CHECK(got == (int)sizeof(arr) && y == 6 && x == 2 && q == arr);
	CHECK(sal_result("a")[0] == 'a');
	u = (ULONG UNALIGNED *)(raw + 1);
	*u = 0x01020304;
	CHECK(raw[1] == 4 && raw[4] == 1);
	CHECK(WINVER >= 0x0602 && _WIN32_WINNT >= 0x0602);
	exported_value = 1;
	return 0;
}

int main(void)
{
	int line;

	line = check_hresults();
	if (!line)
		line = check_memory();
	if (!line)
		line = check_words();
	if (!line)
		line = check_misc();
	if (line)
		fprintf(stderr, "mcgen_windows.c:%d: check failed\n", line);
	return line ? 1 : 0;
}
