// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * etw_provider.c - what a registered provider asks besides writing:
 * whether a session takes an event (EventEnabled, EventProviderEnabled,
 * and the consistent read of the enable state classic providers use), and
 * the registration's settings (EventSetInformation).  No lock: a handle
 * is validated by etw_prov_lookup() (etw_provider.h).
 */
#include <errno.h>
#include <string.h>

#include "etw_provider.h"

/*
 * The seqcount reader of struct etw_enable_state (uapi/linux/etw.h).  The
 * kernel's etw_state_publish() stores seq odd, smp_wmb(), the fields,
 * smp_wmb(), seq even.
 */
static __always_inline void
etw_state_read(const struct etw_enable_state *es, struct etw_prov_state *st)
{
	uint32_t seq;

	do {
		/*
		 * Pairs with the second smp_wmb() of etw_state_publish()
		 * (before seq becomes even): an even seq seen here comes
		 * with the fields written before it.
		 */
		seq = __atomic_load_n(&es->seq, __ATOMIC_ACQUIRE);
		st->enabled = __atomic_load_n(&es->enabled, __ATOMIC_RELAXED);
		st->level = __atomic_load_n(&es->level, __ATOMIC_RELAXED);
		st->session_level = __atomic_load_n(&es->session_level,
						    __ATOMIC_RELAXED);
		st->match_any = __atomic_load_n(&es->match_any,
						__ATOMIC_RELAXED);
		st->match_all = __atomic_load_n(&es->match_all,
						__ATOMIC_RELAXED);
		/*
		 * Pairs with the first smp_wmb() of etw_state_publish()
		 * (after seq becomes odd): if a field load saw a new value,
		 * the seq load below sees the odd or a later count.
		 */
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
	} while ((seq & 1) ||
		 __atomic_load_n(&es->seq, __ATOMIC_RELAXED) != seq);
}

/* The write path's inlined enable check: st is valid when it returns true. */
static __always_inline bool
etw_prov_state_of(const struct etw_prov_ref *ref, struct etw_prov_state *st)
{
	/* The disabled path: one load, no seq protocol. */
	if (!__atomic_load_n(&ref->state->enabled, __ATOMIC_RELAXED))
		return false;
	etw_state_read(ref->state, st);
	return st->enabled;
}

/* The predicate over a consistent copy of @ref's state. */
static __always_inline bool
etw_prov_passes(const struct etw_prov_ref *ref, UCHAR level,
		ULONGLONG keyword)
{
	struct etw_prov_state st;

	return etw_prov_state_of(ref, &st) &&
	       etw_state_passes(&st, level, keyword);
}

/**
 * etw_prov_state() - a consistent copy of a registration's enable state
 * @ref: the registration
 * @st: out: the state, all zero while disabled
 *
 * Return: true when at least one session enables the registration.
 */
bool etw_prov_state(const struct etw_prov_ref *ref, struct etw_prov_state *st)
{
	if (etw_prov_state_of(ref, st))
		return true;
	memset(st, 0, sizeof(*st));
	return false;
}

/**
 * EventEnabled() - would any session take this event?
 * @RegHandle: the handle
 * @EventDescriptor: the event
 *
 * Return: TRUE when the combined enable state passes the event's level
 * and keyword; FALSE for an invalid handle.  No system call.
 */
BOOLEAN EVNTAPI (EventEnabled)(REGHANDLE RegHandle,
			       PCEVENT_DESCRIPTOR EventDescriptor)
{
	struct etw_prov_ref ref;

	if (!EventDescriptor || !etw_prov_lookup(RegHandle, &ref))
		return FALSE;
	return etw_prov_passes(&ref, EventDescriptor->Level,
			       EventDescriptor->Keyword);
}

/**
 * EventProviderEnabled() - EventEnabled() for a level and a keyword
 * @RegHandle: the handle
 * @Level: event level
 * @Keyword: event keyword
 *
 * Return: as EventEnabled().
 */
BOOLEAN EVNTAPI (EventProviderEnabled)(REGHANDLE RegHandle, UCHAR Level,
				       ULONGLONG Keyword)
{
	struct etw_prov_ref ref;

	if (!etw_prov_lookup(RegHandle, &ref))
		return FALSE;
	return etw_prov_passes(&ref, Level, Keyword);
}

static uint16_t etw_le16(const uint8_t *p)
{
	return p[0] | p[1] << 8;
}

/*
 * A traits blob as Windows accepts it: TraitsSize equal to the length, a
 * NUL-terminated name inside it, then traits of at least 3 bytes each
 * that end exactly at the end of the blob.  Trait types and data are not
 * checked (a group trait without its GUID is accepted).
 */
static bool etw_traits_valid(const uint8_t *blob, ULONG len)
{
	uint32_t off, name, size;

	if (len < 3 || etw_le16(blob) != len)
		return false;
	name = strnlen((const char *)blob + 2, len - 2);
	if (name == len - 2)
		return false;
	for (off = 2 + name + 1; off < len; off += size) {
		if (len - off < 2)
			return false;
		size = etw_le16(blob + off);
		if (size < 3 || size > len - off)
			return false;
	}
	return true;
}

static ULONG etw_set_traits(const struct etw_prov_ref *ref, const void *blob,
			    ULONG len)
{
	struct etw_traits_args a = {
		.size = sizeof(a),
		.reg_id = ref->reg_id,
		.traits_ptr = (uintptr_t)blob,
		.traits_len = len,
	};
	int ret;

	if (!blob)
		return ERROR_INVALID_PARAMETER;
	/* Checked here so that a bad blob never reaches the one set. */
	if (!etw_traits_valid(blob, len))
		return ERROR_FILE_CORRUPT;
	ret = etw_dev_ioctl(ETW_IOC_SET_TRAITS, &a);
	switch (-ret) {
	case 0:
		etw_prov_set_desc_types(ref->handle, true);
		return ERROR_SUCCESS;
	case EEXIST:
		return ERROR_GEN_FAILURE;
	case EACCES:
		return ERROR_ACCESS_DENIED;
	case EBADMSG:
		return ERROR_FILE_CORRUPT;
	default:
		return etw_win32_from_errno(ret);
	}
}

/**
 * EventSetInformation() - per-registration settings
 * @RegHandle: the handle
 * @InformationClass: EVENT_INFO_CLASS
 * @EventInformation: the class's data
 * @InformationLength: its size
 *
 * The results are the ones Windows 11 gives: class 0 (binary tracking)
 * accepts only length 0 and records nothing, because etw has no
 * image-load events to attach a module path to; class 1 and classes from
 * 5 are ERROR_NOT_SUPPORTED; class 2 sets the traits once (a malformed
 * blob is ERROR_FILE_CORRUPT and does not use up the one set, a second
 * set is ERROR_GEN_FAILURE, a group the caller may not join
 * ERROR_ACCESS_DENIED) and, like class 3 with a TRUE byte, makes writes
 * honour EVENT_DATA_DESCRIPTOR.Type; class 4 is ERROR_INVALID_PARAMETER.
 *
 * Return: a Win32 error as above; ERROR_INVALID_HANDLE for a bad handle.
 */
ULONG EVNTAPI EventSetInformation(REGHANDLE RegHandle,
				  EVENT_INFO_CLASS InformationClass,
				  PVOID EventInformation,
				  ULONG InformationLength)
{
	struct etw_prov_ref ref;

	if (!etw_prov_get(RegHandle, &ref))
		return ERROR_INVALID_HANDLE;
	switch ((unsigned int)InformationClass) {
	case EventProviderBinaryTrackInfo:
		return InformationLength ? ERROR_INVALID_PARAMETER :
					   ERROR_SUCCESS;
	case EventProviderSetTraits:
		return etw_set_traits(&ref, EventInformation,
				      InformationLength);
	case EventProviderUseDescriptorType:
		if (InformationLength != sizeof(BOOLEAN) || !EventInformation)
			return ERROR_INVALID_PARAMETER;
		etw_prov_set_desc_types(RegHandle,
					*(const BOOLEAN *)EventInformation);
		return ERROR_SUCCESS;
	case EventProviderSetReserved2:
		return ERROR_INVALID_PARAMETER;
	default:
		return ERROR_NOT_SUPPORTED;
	}
}
