// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * etw_tdh_kernel.c: the schemas of the kernel logger's Process, Thread and
 * Image events, which Windows' TDH takes from the MOF classes of
 * MSNT_SystemTrace (Process_V4_TypeGroup1, Thread_V3_TypeGroup1,
 * Image_Load; Microsoft's class pages list their fields in this order).
 * An event matches a class by its class GUID (ProcessGuid, ThreadGuid,
 * ImageLoadGuid: the ProviderId ProcessTrace gives a kernel record), its
 * version and its event type (opcode).  The TRACE_EVENT_INFO is Windows'
 * for MOF events: DecodingSourceWbem, ProviderGuid the system trace
 * provider, EventGuid the class, the class as task name and the event
 * type's name as opcode name.
 */
#include <stdbool.h>
#include <string.h>

#include "etw_tdh.h"
#include "etw_tdh_manifest.h"

#define ETW_TK_MAX_PROPS	14
#define ETW_TK_MAX_TYPES	4

/* SystemTraceControlGuid: the provider of every kernel logger class. */
static const GUID etw_tk_system_trace = { 0x9e814aad, 0x3204, 0x11d2,
	{ 0x9a, 0x82, 0x00, 0x60, 0x08, 0xa8, 0x69, 0x39 } };

struct etw_tk_prop {
	const char *name;
	USHORT in;
	USHORT out;
};

struct etw_tk_type {
	UCHAR opcode;
	const char *name;
};

/**
 * struct etw_tk_class - one MOF event type class
 * @guid: the class GUID
 * @version: the class version it describes
 * @name: the class's display name (TaskName)
 * @types: the event types it covers, and their names
 * @props: its fields in payload order
 */
struct etw_tk_class {
	GUID guid;
	UCHAR version;
	const char *name;
	struct etw_tk_type types[ETW_TK_MAX_TYPES];
	struct etw_tk_prop props[ETW_TK_MAX_PROPS];
};

#define ETW_TK_P(n, i, o) { n, TDH_INTYPE_##i, TDH_OUTTYPE_##o }
#define ETW_TK_PTR(n) ETW_TK_P(n, POINTER, NULL)

static const struct etw_tk_class etw_tk_classes[] = {
	{
		/* ProcessGuid, Process_V4_TypeGroup1 */
		{ 0x3d6fa8d0, 0xfe05, 0x11d0,
		  { 0x9d, 0xda, 0x00, 0xc0, 0x4f, 0xd7, 0xba, 0x7c } },
		4, "Process",
		{ { 1, "Start" }, { 2, "End" }, { 3, "DCStart" },
		  { 4, "DCEnd" } },
		{
			ETW_TK_PTR("UniqueProcessKey"),
			ETW_TK_P("ProcessId", UINT32, HEXINT32),
			ETW_TK_P("ParentId", UINT32, HEXINT32),
			ETW_TK_P("SessionId", UINT32, NULL),
			ETW_TK_P("ExitStatus", INT32, NULL),
			ETW_TK_PTR("DirectoryTableBase"),
			ETW_TK_P("Flags", UINT32, NULL),
			ETW_TK_P("UserSID", WBEMSID, NULL),
			ETW_TK_P("ImageFileName", ANSISTRING, NULL),
			ETW_TK_P("CommandLine", UNICODESTRING, NULL),
			ETW_TK_P("PackageFullName", UNICODESTRING, NULL),
			ETW_TK_P("ApplicationId", UNICODESTRING, NULL),
		},
	},
	{
		/* ThreadGuid, Thread_V3_TypeGroup1 */
		{ 0x3d6fa8d1, 0xfe05, 0x11d0,
		  { 0x9d, 0xda, 0x00, 0xc0, 0x4f, 0xd7, 0xba, 0x7c } },
		3, "Thread",
		{ { 1, "Start" }, { 2, "End" }, { 3, "DCStart" },
		  { 4, "DCEnd" } },
		{
			ETW_TK_P("ProcessId", UINT32, HEXINT32),
			ETW_TK_P("TThreadId", UINT32, HEXINT32),
			ETW_TK_PTR("StackBase"),
			ETW_TK_PTR("StackLimit"),
			ETW_TK_PTR("UserStackBase"),
			ETW_TK_PTR("UserStackLimit"),
			ETW_TK_PTR("Affinity"),
			ETW_TK_PTR("Win32StartAddr"),
			ETW_TK_PTR("TebBase"),
			ETW_TK_P("SubProcessTag", UINT32, HEXINT32),
			ETW_TK_P("BasePriority", UINT8, NULL),
			ETW_TK_P("PagePriority", UINT8, NULL),
			ETW_TK_P("IoPriority", UINT8, NULL),
			ETW_TK_P("ThreadFlags", UINT8, NULL),
		},
	},
	{
		/* ImageLoadGuid, Image_Load */
		{ 0x2cb15d1d, 0x5fc1, 0x11d2,
		  { 0xab, 0xe1, 0x00, 0xa0, 0xc9, 0x11, 0xf5, 0x18 } },
		3, "Image",
		{ { 10, "Load" }, { 2, "UnLoad" }, { 3, "DCStart" },
		  { 4, "DCEnd" } },
		{
			ETW_TK_PTR("ImageBase"),
			ETW_TK_PTR("ImageSize"),
			ETW_TK_P("ProcessId", UINT32, HEXINT32),
			ETW_TK_P("ImageCheckSum", UINT32, NULL),
			ETW_TK_P("TimeDateStamp", UINT32, NULL),
			ETW_TK_P("Reserved0", UINT32, NULL),
			ETW_TK_PTR("DefaultBase"),
			ETW_TK_P("Reserved1", UINT32, NULL),
			ETW_TK_P("Reserved2", UINT32, NULL),
			ETW_TK_P("Reserved3", UINT32, NULL),
			ETW_TK_P("Reserved4", UINT32, NULL),
			ETW_TK_P("FileName", UNICODESTRING, NULL),
		},
	},
};

/* The class and event type name of a kernel record, or NULL. */
static const struct etw_tk_class *etw_tk_find(const EVENT_RECORD *ev,
					      const char **type)
{
	const EVENT_HEADER *h = &ev->EventHeader;
	const struct etw_tk_class *c;
	size_t i, j;

	if (!(h->Flags & EVENT_HEADER_FLAG_CLASSIC_HEADER))
		return NULL;
	for (i = 0; i < sizeof(etw_tk_classes) / sizeof(*c); i++) {
		c = &etw_tk_classes[i];
		if (memcmp(&c->guid, &h->ProviderId, sizeof(GUID)) ||
		    c->version != h->EventDescriptor.Version)
			continue;
		for (j = 0; j < ETW_TK_MAX_TYPES; j++) {
			if (c->types[j].name &&
			    c->types[j].opcode == h->EventDescriptor.Opcode) {
				*type = c->types[j].name;
				return c;
			}
		}
	}
	return NULL;
}

static uint32_t etw_tk_nprops(const struct etw_tk_class *c)
{
	uint32_t n = 0;

	while (n < ETW_TK_MAX_PROPS && c->props[n].name)
		n++;
	return n;
}

static void etw_tk_put_props(struct etw_mf_out *o, const struct etw_tk_class *c,
			     uint32_t n, ULONG ptr_size)
{
	EVENT_PROPERTY_INFO epi;
	uint32_t i;

	for (i = 0; i < n; i++) {
		memset(&epi, 0, sizeof(epi));
		epi.NameOffset = etw_mf_put(o, c->props[i].name);
		epi.nonStructType.InType = c->props[i].in;
		epi.nonStructType.OutType = c->props[i].out;
		epi.count = 1;
		epi.length = (USHORT)etw_tdh_fixed_size(c->props[i].in,
							 ptr_size);
		if (o->off <= o->cap)
			memcpy(o->buf + offsetof(TRACE_EVENT_INFO,
						 EventPropertyInfoArray) +
			       i * sizeof(epi), &epi, sizeof(epi));
	}
}

/**
 * etw_tdh_kernel_build - the TRACE_EVENT_INFO of a kernel logger event
 * @ev: the event
 * @ptr_size: 4 or 8: the length of pointer properties
 * @buf: where to write it, or NULL
 * @cap: bytes at @buf
 * @needed: out: bytes it takes
 *
 * Context: any thread.
 * Return: ERROR_SUCCESS; ERROR_NOT_FOUND when @ev is not a Process,
 * Thread or Image event of a version described here;
 * ERROR_INSUFFICIENT_BUFFER when @cap is less than *@needed.
 */
ULONG etw_tdh_kernel_build(const EVENT_RECORD *ev, ULONG ptr_size, BYTE *buf,
			   ULONG cap, ULONG *needed)
{
	struct etw_mf_out o = { buf, buf ? cap : 0, 0 };
	const struct etw_tk_class *c;
	TRACE_EVENT_INFO tei;
	const char *type;
	uint32_t n;

	c = etw_tk_find(ev, &type);
	if (!c)
		return ERROR_NOT_FOUND;
	n = etw_tk_nprops(c);
	o.off = offsetof(TRACE_EVENT_INFO, EventPropertyInfoArray) +
		n * sizeof(EVENT_PROPERTY_INFO);
	memset(&tei, 0, sizeof(tei));
	tei.ProviderGuid = etw_tk_system_trace;
	tei.EventGuid = c->guid;
	tei.EventDescriptor = ev->EventHeader.EventDescriptor;
	tei.DecodingSource = DecodingSourceWbem;
	tei.PropertyCount = n;
	tei.TopLevelPropertyCount = n;
	tei.ProviderNameOffset = etw_mf_put(&o, "MSNT_SystemTrace");
	tei.TaskNameOffset = etw_mf_put(&o, c->name);
	tei.OpcodeNameOffset = etw_mf_put(&o, type);
	etw_tk_put_props(&o, c, n, ptr_size);
	if (o.off <= o.cap)
		memcpy(o.buf, &tei, offsetof(TRACE_EVENT_INFO,
					     EventPropertyInfoArray));
	*needed = o.off;
	return o.off > o.cap ? ERROR_INSUFFICIENT_BUFFER : ERROR_SUCCESS;
}
