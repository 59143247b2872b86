// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * etw_win32_sid.c - ConvertSidToStringSid: a SID, as events carry it
 * (EVENT_HEADER_EXT_TYPE_SID, TDH_INTYPE_SID), in its string form; and
 * LookupAccountSid, which finds no account for any SID, since Linux has
 * no Windows accounts: consumers then fall back to the string form.
 */
#include <stdio.h>

#include <windows.h>
#include <sddl.h>

/* "S-1-<authority>-<sub>..."; NULL, with the last error, if invalid. */
static char *sid_string(const SID *sid)
{
	const BYTE *a = sid->IdentifierAuthority.Value;
	char *s, *p;
	size_t size;
	BYTE i;

	if (sid->Revision != SID_REVISION ||
	    sid->SubAuthorityCount > SID_MAX_SUB_AUTHORITIES) {
		SetLastError(ERROR_INVALID_SID);
		return NULL;
	}
	/* "S-1-", a 48-bit authority (at most 14), 11 per sub-authority. */
	size = 4 + 14 + 11 * (size_t)sid->SubAuthorityCount + 1;
	s = LocalAlloc(0, size);
	if (!s)
		return NULL;
	p = s + sprintf(s, "S-%u-", sid->Revision);
	/* An authority above 32 bits is hexadecimal, as Windows prints it. */
	if (a[0] || a[1])
		p += sprintf(p, "0x%02X%02X%02X%02X%02X%02X", a[0], a[1], a[2],
			     a[3], a[4], a[5]);
	else
		p += sprintf(p, "%u", (unsigned int)a[2] << 24 |
			     (unsigned int)a[3] << 16 |
			     (unsigned int)a[4] << 8 | a[5]);
	for (i = 0; i < sid->SubAuthorityCount; i++)
		p += sprintf(p, "-%u", (unsigned int)sid->SubAuthority[i]);
	return s;
}

BOOL WINAPI ConvertSidToStringSidA(PSID sid, LPSTR *out)
{
	char *s;

	if (!sid || !out) {
		SetLastError(ERROR_INVALID_PARAMETER);
		return FALSE;
	}
	s = sid_string(sid);
	if (!s)
		return FALSE;
	*out = s;
	return TRUE;
}

BOOL WINAPI ConvertSidToStringSidW(PSID sid, LPWSTR *out)
{
	WCHAR *w;
	char *s;
	size_t i, len;

	if (!sid || !out) {
		SetLastError(ERROR_INVALID_PARAMETER);
		return FALSE;
	}
	s = sid_string(sid);
	if (!s)
		return FALSE;
	len = strlen(s);
	w = LocalAlloc(0, (len + 1) * sizeof(WCHAR));
	if (w) {
		/* The text is ASCII. */
		for (i = 0; i <= len; i++)
			w[i] = (WCHAR)s[i];
		*out = w;
	}
	LocalFree(s);
	return w != NULL;
}

/*
 * Windows' answer for a SID no account has, ERROR_NONE_MAPPED, for every
 * valid SID: a SID in an event names an account of the Windows machine
 * that wrote it, which this one cannot resolve.
 */
static BOOL lookup_account(const void *sid, const DWORD *name_size,
			   const DWORD *domain_size, const SID_NAME_USE *use)
{
	const SID *s = sid;

	if (!sid || !name_size || !domain_size || !use) {
		SetLastError(ERROR_INVALID_PARAMETER);
		return FALSE;
	}
	if (s->Revision != SID_REVISION ||
	    s->SubAuthorityCount > SID_MAX_SUB_AUTHORITIES) {
		SetLastError(ERROR_INVALID_SID);
		return FALSE;
	}
	SetLastError(ERROR_NONE_MAPPED);
	return FALSE;
}

BOOL WINAPI LookupAccountSidA(LPCSTR system, PSID sid, LPSTR name,
			      LPDWORD name_size, LPSTR domain,
			      LPDWORD domain_size, PSID_NAME_USE use)
{
	return lookup_account(sid, name_size, domain_size, use);
}

BOOL WINAPI LookupAccountSidW(LPCWSTR system, PSID sid, LPWSTR name,
			      LPDWORD name_size, LPWSTR domain,
			      LPDWORD domain_size, PSID_NAME_USE use)
{
	return lookup_account(sid, name_size, domain_size, use);
}
