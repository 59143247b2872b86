// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * etw_win32_sid.c - ConvertSidToStringSid: a SID, as events carry it
 * (EVENT_HEADER_EXT_TYPE_SID, TDH_INTYPE_SID), in its string form;
 * LookupAccountSid, which finds no account for any SID, since Linux has
 * no Windows accounts: consumers then fall back to the string form; and
 * the SIDs the system defines (CreateWellKnownSid), with IsValidSid,
 * GetLengthSid and EqualSid, for providers that write one.
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

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

/* A well-known SID: its authority and sub-authorities (winnt.h). */
struct well_known_sid {
	BYTE authority;
	BYTE count;
	DWORD sub[2];
};

/* By WELL_KNOWN_SID_TYPE; a zero count: not one this table builds. */
static const struct well_known_sid well_known_sids[] = {
	[WinNullSid] = { 0, 1, { 0 } },
	[WinWorldSid] = { 1, 1, { 0 } },
	[WinLocalSid] = { 2, 1, { 0 } },
	[WinCreatorOwnerSid] = { 3, 1, { 0 } },
	[WinCreatorGroupSid] = { 3, 1, { 1 } },
	[WinCreatorOwnerServerSid] = { 3, 1, { 2 } },
	[WinCreatorGroupServerSid] = { 3, 1, { 3 } },
	[WinNtAuthoritySid] = { 5, 0, { 0 } },
	[WinDialupSid] = { 5, 1, { 1 } },
	[WinNetworkSid] = { 5, 1, { 2 } },
	[WinBatchSid] = { 5, 1, { 3 } },
	[WinInteractiveSid] = { 5, 1, { 4 } },
	[WinServiceSid] = { 5, 1, { 6 } },
	[WinAnonymousSid] = { 5, 1, { 7 } },
	[WinProxySid] = { 5, 1, { 8 } },
	[WinEnterpriseControllersSid] = { 5, 1, { 9 } },
	[WinSelfSid] = { 5, 1, { 10 } },
	[WinAuthenticatedUserSid] = { 5, 1, { 11 } },
	[WinRestrictedCodeSid] = { 5, 1, { 12 } },
	[WinTerminalServerSid] = { 5, 1, { 13 } },
	[WinRemoteLogonIdSid] = { 5, 1, { 14 } },
	[WinLocalSystemSid] = { 5, 1, { 18 } },
	[WinLocalServiceSid] = { 5, 1, { 19 } },
	[WinNetworkServiceSid] = { 5, 1, { 20 } },
	[WinBuiltinDomainSid] = { 5, 1, { 32 } },
	[WinBuiltinAdministratorsSid] = { 5, 2, { 32, 544 } },
	[WinBuiltinUsersSid] = { 5, 2, { 32, 545 } },
	[WinBuiltinGuestsSid] = { 5, 2, { 32, 546 } },
};

static DWORD sid_length(BYTE count)
{
	return (DWORD)(offsetof(SID, SubAuthority) + count * sizeof(DWORD));
}

/*
 * Windows' CreateWellKnownSid for the SIDs that name no domain: NT
 * AUTHORITY's (-0 sub-authorities for WinNtAuthoritySid) and the
 * universal ones.  WinLogonIdsSid needs a logon session's id and the
 * domain SIDs a domain; those, and types above WinBuiltinGuestsSid, give
 * ERROR_INVALID_PARAMETER.  @domain is ignored, as Windows ignores it for
 * these.
 */
BOOL WINAPI CreateWellKnownSid(WELL_KNOWN_SID_TYPE type, PSID domain,
			       PSID sid, DWORD *size)
{
	const struct well_known_sid *w;
	SID *out = sid;
	DWORD need;
	BYTE i;

	(void)domain;
	if ((unsigned int)type >= ARRAYSIZE(well_known_sids) || !size ||
	    (type != WinNtAuthoritySid && !well_known_sids[type].count)) {
		SetLastError(ERROR_INVALID_PARAMETER);
		return FALSE;
	}
	w = &well_known_sids[type];
	need = sid_length(w->count);
	if (!sid || *size < need) {
		*size = need;
		SetLastError(ERROR_INSUFFICIENT_BUFFER);
		return FALSE;
	}
	out->Revision = SID_REVISION;
	out->SubAuthorityCount = w->count;
	memset(out->IdentifierAuthority.Value, 0, 6);
	out->IdentifierAuthority.Value[5] = w->authority;
	for (i = 0; i < w->count; i++)
		out->SubAuthority[i] = w->sub[i];
	*size = need;
	return TRUE;
}

BOOL WINAPI IsValidSid(PSID sid)
{
	const SID *s = sid;

	return s && s->Revision == SID_REVISION &&
	       s->SubAuthorityCount <= SID_MAX_SUB_AUTHORITIES;
}

/* Windows leaves an invalid SID's length undefined; here it is 0. */
DWORD WINAPI GetLengthSid(PSID sid)
{
	return IsValidSid(sid) ?
	       sid_length(((const SID *)sid)->SubAuthorityCount) : 0;
}

BOOL WINAPI EqualSid(PSID a, PSID b)
{
	if (!IsValidSid(a) || !IsValidSid(b)) {
		SetLastError(ERROR_INVALID_SID);
		return FALSE;
	}
	SetLastError(ERROR_SUCCESS);
	return GetLengthSid(a) == GetLengthSid(b) &&
	       !memcmp(a, b, GetLengthSid(a));
}
