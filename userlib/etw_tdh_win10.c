// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * etw_tdh_win10.c - the TDH functions of the Windows 10 SDK beyond those
 * that decode events: providers by decoding source, decoding handles,
 * and, for sources libetw does not read, a documented ERROR_NOT_SUPPORTED
 * (WPP's TMF files and a manifest's filters).  Payload filters are in
 * etw_tdh_payload.c.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <windows.h>
#include <tdh.h>

TDHSTATUS WINAPI TdhEnumerateProvidersForDecodingSource(
	DECODING_SOURCE filter, PPROVIDER_ENUMERATION_INFO buffer,
	ULONG bufferSize, PULONG bufferRequired)
{
	const ULONG empty = offsetof(PROVIDER_ENUMERATION_INFO,
				     TraceProviderInfoArray);
	ULONG size = bufferSize;
	TDHSTATUS st;

	if (!bufferRequired || (!buffer && bufferSize))
		return ERROR_INVALID_PARAMETER;
	switch (filter) {
	case DecodingSourceXMLFile:
		st = TdhEnumerateProviders(buffer, &size);
		*bufferRequired = size;
		return st;
	case DecodingSourceWbem:
		/* TDH here decodes no MOF class: the list is empty. */
		*bufferRequired = empty;
		if (bufferSize < empty)
			return ERROR_INSUFFICIENT_BUFFER;
		memset(buffer, 0, empty);
		return ERROR_SUCCESS;
	default:
		return ERROR_INVALID_PARAMETER;
	}
}

/*
 * A decoding handle: the parameters set on it, each a number or (TMF
 * file and search path, PDB path) a copy of the string.  Handles are on
 * a list, so that one that was never opened or is closed is rejected.
 */
struct etw_tdh_handle {
	struct etw_tdh_handle *next;
	ULONGLONG value[TDH_CONTEXT_MAXIMUM];
	WCHAR *string[TDH_CONTEXT_MAXIMUM];
	unsigned int set;	/* bit per TDH_CONTEXT_TYPE */
};

static pthread_mutex_t handles_lock = PTHREAD_MUTEX_INITIALIZER;
static struct etw_tdh_handle *handles;

/* The open handle @h, unlinked when @unlink; NULL when it is none. */
static struct etw_tdh_handle *handle_find(TDH_HANDLE h, int unlink)
{
	struct etw_tdh_handle **p;

	for (p = &handles; *p; p = &(*p)->next) {
		if (*p == h) {
			struct etw_tdh_handle *found = *p;

			if (unlink)
				*p = found->next;
			return found;
		}
	}
	return NULL;
}

TDHSTATUS WINAPI TdhOpenDecodingHandle(PTDH_HANDLE Handle)
{
	struct etw_tdh_handle *h;

	if (!Handle)
		return ERROR_INVALID_PARAMETER;
	h = calloc(1, sizeof(*h));
	if (!h)
		return ERROR_NOT_ENOUGH_MEMORY;
	pthread_mutex_lock(&handles_lock);
	h->next = handles;
	handles = h;
	pthread_mutex_unlock(&handles_lock);
	*Handle = h;
	return ERROR_SUCCESS;
}

static int is_string(TDH_CONTEXT_TYPE t)
{
	return t == TDH_CONTEXT_WPP_TMFFILE ||
		t == TDH_CONTEXT_WPP_TMFSEARCHPATH || t == TDH_CONTEXT_PDB_PATH;
}

TDHSTATUS WINAPI TdhSetDecodingParameter(TDH_HANDLE Handle,
					 PTDH_CONTEXT TdhContext)
{
	struct etw_tdh_handle *h;
	TDH_CONTEXT_TYPE t;
	WCHAR *copy = NULL;
	TDHSTATUS st = ERROR_SUCCESS;

	if (!TdhContext || (unsigned int)TdhContext->ParameterType >=
	    TDH_CONTEXT_MAXIMUM)
		return ERROR_INVALID_PARAMETER;
	t = TdhContext->ParameterType;
	if (is_string(t) && TdhContext->ParameterValue) {
		const WCHAR *s = (const WCHAR *)(uintptr_t)
			TdhContext->ParameterValue;
		size_t n = 0;

		while (s[n])
			n++;
		copy = malloc((n + 1) * sizeof(WCHAR));
		if (!copy)
			return ERROR_NOT_ENOUGH_MEMORY;
		memcpy(copy, s, (n + 1) * sizeof(WCHAR));
	}
	pthread_mutex_lock(&handles_lock);
	h = handle_find(Handle, 0);
	if (!h) {
		st = ERROR_INVALID_HANDLE;
	} else {
		free(h->string[t]);
		h->string[t] = copy;
		copy = NULL;
		h->value[t] = is_string(t) && h->string[t] ?
			(ULONGLONG)(uintptr_t)h->string[t] :
			TdhContext->ParameterValue;
		h->set |= 1U << t;
	}
	pthread_mutex_unlock(&handles_lock);
	free(copy);
	return st;
}

TDHSTATUS WINAPI TdhGetDecodingParameter(TDH_HANDLE Handle,
					 PTDH_CONTEXT TdhContext)
{
	struct etw_tdh_handle *h;
	TDHSTATUS st = ERROR_SUCCESS;
	TDH_CONTEXT_TYPE t;

	if (!TdhContext || (unsigned int)TdhContext->ParameterType >=
	    TDH_CONTEXT_MAXIMUM)
		return ERROR_INVALID_PARAMETER;
	t = TdhContext->ParameterType;
	pthread_mutex_lock(&handles_lock);
	h = handle_find(Handle, 0);
	if (!h)
		st = ERROR_INVALID_HANDLE;
	else if (!(h->set & (1U << t)))
		st = ERROR_NOT_FOUND;
	else
		TdhContext->ParameterValue = h->value[t];
	pthread_mutex_unlock(&handles_lock);
	return st;
}

TDHSTATUS WINAPI TdhCloseDecodingHandle(TDH_HANDLE Handle)
{
	struct etw_tdh_handle *h;
	int i;

	pthread_mutex_lock(&handles_lock);
	h = handle_find(Handle, 1);
	pthread_mutex_unlock(&handles_lock);
	if (!h)
		return ERROR_INVALID_HANDLE;
	for (i = 0; i < TDH_CONTEXT_MAXIMUM; i++)
		free(h->string[i]);
	free(h);
	return ERROR_SUCCESS;
}

/* WPP events are decoded from TMF files, which libetw does not read. */
TDHSTATUS WINAPI TdhGetWppProperty(TDH_HANDLE Handle,
				   PEVENT_RECORD EventRecord,
				   PWSTR PropertyName, PULONG BufferSize,
				   PBYTE Buffer)
{
	if (!EventRecord || !PropertyName || !BufferSize)
		return ERROR_INVALID_PARAMETER;
	return ERROR_NOT_SUPPORTED;
}

TDHSTATUS WINAPI TdhGetWppMessage(TDH_HANDLE Handle,
				  PEVENT_RECORD EventRecord,
				  PULONG BufferSize, PBYTE Buffer)
{
	if (!EventRecord || !BufferSize)
		return ERROR_INVALID_PARAMETER;
	return ERROR_NOT_SUPPORTED;
}

/* A manifest's <filters> are not read. */
TDHSTATUS WINAPI TdhEnumerateProviderFilters(LPGUID Guid,
	ULONG TdhContextCount, PTDH_CONTEXT TdhContext, ULONG *FilterCount,
	PPROVIDER_FILTER_INFO *Buffer, ULONG *BufferSize)
{
	if (!Guid || !FilterCount || !BufferSize ||
	    (TdhContextCount && !TdhContext))
		return ERROR_INVALID_PARAMETER;
	return ERROR_NOT_SUPPORTED;
}
