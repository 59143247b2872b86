// SPDX-License-Identifier: GPL-2.0
/*
 * plugin.c: the babeltrace2 plugin "etw" and its source component class
 * "etl": parameters, the trace IR classes every event shares, and the
 * conversion of libetw's parsed records to the EVENT_RECORD that TDH
 * takes.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <evntrace.h>

#include "etw_tdh.h"
#include "etwbt.h"

BT_PLUGIN_MODULE();

BT_PLUGIN(etw);
BT_PLUGIN_DESCRIPTION("Event Tracing for Windows: read .etl files");
BT_PLUGIN_LICENSE("GPL-2.0");

/**
 * etwbt_guid_format - a GUID as etwctl prints it
 * @guid: 16 bytes, a GUID in memory (little-endian fields)
 * @out: out: "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx"
 */
void etwbt_guid_format(const void *guid, char out[ETWBT_GUID_LEN])
{
	GUID g;

	memcpy(&g, guid, sizeof(g));
	snprintf(out, ETWBT_GUID_LEN,
		 "%08x-%04x-%04x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		 (unsigned int)g.Data1, g.Data2, g.Data3, g.Data4[0],
		 g.Data4[1], g.Data4[2], g.Data4[3], g.Data4[4], g.Data4[5],
		 g.Data4[6], g.Data4[7]);
}

/**
 * etwbt_event_record - @ev as the EVENT_RECORD ProcessTrace would deliver
 * @ev: a record parsed by libetw's ETL reader
 * @rec: out: the record; it points into @ev's buffer and @ext
 * @ext: out: ETW_ETL_MAX_EXT_ITEMS extended data items
 */
void etwbt_event_record(const struct etw_etl_event *ev, EVENT_RECORD *rec,
			EVENT_HEADER_EXTENDED_DATA_ITEM *ext)
{
	EVENT_HEADER *h = &rec->EventHeader;
	uint32_t i;

	memset(rec, 0, sizeof(*rec));
	h->Size = ev->size;
	h->HeaderType = ev->header_type;
	h->Flags = ev->flags | etw_event_width(ev);
	if (ev->kind == ETW_ETL_KIND_SYSTEM ||
	    ev->kind == ETW_ETL_KIND_PERFINFO)
		h->Flags |= EVENT_HEADER_FLAG_CLASSIC_HEADER;
	h->EventProperty = ev->event_property;
	h->ThreadId = ev->thread_id;
	h->ProcessId = ev->process_id;
	h->TimeStamp.QuadPart = ev->timestamp;
	memcpy(&h->ProviderId, &ev->provider_id, sizeof(GUID));
	memcpy(&h->EventDescriptor, &ev->descriptor, sizeof(EVENT_DESCRIPTOR));
	h->ProcessorTime = ev->processor_time;
	memcpy(&h->ActivityId, &ev->activity_id, sizeof(GUID));
	for (i = 0; i < ev->ext_count; i++) {
		memset(&ext[i], 0, sizeof(ext[i]));
		ext[i].ExtType = ev->ext[i].type;
		ext[i].Linkage = i + 1 < ev->ext_count;
		ext[i].DataSize = ev->ext[i].size;
		ext[i].DataPtr = (uintptr_t)ev->ext[i].data;
	}
	rec->ExtendedDataCount = (USHORT)ev->ext_count;
	rec->ExtendedData = ev->ext_count ? ext : NULL;
	rec->BufferContext.ProcessorIndex = ev->processor_index;
	rec->BufferContext.LoggerId = ev->logger_id;
	rec->UserData = (PVOID)ev->user_data;
	rec->UserDataLength = (USHORT)ev->user_data_len;
}

/* --- the trace IR classes ---------------------------------------------- */

static int etwbt_add_uint(bt_trace_class *tc, bt_field_class *st,
			  const char *name, unsigned int bits, bool hex)
{
	bt_field_class *fc = bt_field_class_integer_unsigned_create(tc);
	int ret = -ENOMEM;

	if (!fc)
		return ret;
	bt_field_class_integer_set_field_value_range(fc, bits);
	if (hex)
		bt_field_class_integer_set_preferred_display_base(fc,
			BT_FIELD_CLASS_INTEGER_PREFERRED_DISPLAY_BASE_HEXADECIMAL);
	if (!bt_field_class_structure_append_member(st, name, fc))
		ret = 0;
	bt_field_class_put_ref(fc);
	return ret;
}

static int etwbt_add_string(bt_trace_class *tc, bt_field_class *st,
			    const char *name)
{
	bt_field_class *fc = bt_field_class_string_create(tc);
	int ret = -ENOMEM;

	if (fc && !bt_field_class_structure_append_member(st, name, fc))
		ret = 0;
	bt_field_class_put_ref(fc);
	return ret;
}

/* The EVENT_HEADER fields, in enum etwbt_ctx_member order. */
static bt_field_class *etwbt_common_context_fc(bt_trace_class *tc)
{
	bt_field_class *st = bt_field_class_structure_create(tc);

	if (!st ||
	    etwbt_add_uint(tc, st, "pid", 32, false) ||
	    etwbt_add_uint(tc, st, "tid", 32, false) ||
	    etwbt_add_uint(tc, st, "id", 16, false) ||
	    etwbt_add_uint(tc, st, "version", 8, false) ||
	    etwbt_add_uint(tc, st, "channel", 8, false) ||
	    etwbt_add_uint(tc, st, "level", 8, false) ||
	    etwbt_add_uint(tc, st, "opcode", 8, false) ||
	    etwbt_add_uint(tc, st, "task", 16, false) ||
	    etwbt_add_uint(tc, st, "keywords", 64, true) ||
	    etwbt_add_string(tc, st, "activity_id")) {
		bt_field_class_put_ref(st);
		return NULL;
	}
	return st;
}

/* "cpu_id", which babeltrace2's text sink shows for each event. */
static bt_field_class *etwbt_packet_context_fc(bt_trace_class *tc)
{
	bt_field_class *st = bt_field_class_structure_create(tc);

	if (st && etwbt_add_uint(tc, st, "cpu_id", 32, false)) {
		bt_field_class_put_ref(st);
		return NULL;
	}
	return st;
}

/*
 * One stream class for every file and CPU: events have FILETIME times,
 * kept as ns since the Unix epoch; one packet per stream, from its first
 * event to the last event of the files.
 */
static int etwbt_stream_class(struct etwbt_comp *c)
{
	bt_field_class *ctx = etwbt_common_context_fc(c->tc);
	bt_field_class *pkt = etwbt_packet_context_fc(c->tc);
	int ret = -ENOMEM;

	c->sc = bt_stream_class_create(c->tc);
	if (c->sc && ctx && pkt &&
	    !bt_stream_class_set_name(c->sc, "etw") &&
	    !bt_stream_class_set_default_clock_class(c->sc, c->cc)) {
		bt_stream_class_set_supports_packets(c->sc, BT_TRUE, BT_TRUE,
						     BT_TRUE);
		if (!bt_stream_class_set_packet_context_field_class(c->sc,
								    pkt) &&
		    !bt_stream_class_set_event_common_context_field_class(c->sc,
									  ctx))
			ret = 0;
	}
	bt_field_class_put_ref(ctx);
	bt_field_class_put_ref(pkt);
	return ret;
}

static int etwbt_trace_classes(struct etwbt_comp *c)
{
	c->tc = bt_trace_class_create(c->self);
	c->cc = bt_clock_class_create(c->self);
	if (!c->tc || !c->cc)
		return -ENOMEM;
	if (bt_clock_class_set_name(c->cc, "etw") ||
	    bt_clock_class_set_description(c->cc,
			"ETW event time (FILETIME), in ns since the Unix epoch"))
		return -ENOMEM;
	bt_clock_class_set_frequency(c->cc, 1000000000);
	bt_clock_class_set_origin_is_unix_epoch(c->cc, BT_TRUE);
	return etwbt_stream_class(c);
}

/* --- the component ------------------------------------------------------ */

/* @path as the NUL-terminated UTF-16 path TDH takes. */
static int etwbt_wide_path(const char *path, WCHAR w[MAX_PATH])
{
	size_t n = etw_etl_utf8_to_utf16(path, (uint8_t *)w, MAX_PATH - 1);

	if (n >= MAX_PATH)
		return -ENAMETOOLONG;
	w[n] = 0;
	return 0;
}

static void etwbt_comp_free(struct etwbt_comp *c)
{
	WCHAR w[MAX_PATH];
	unsigned int i;

	for (i = 0; i < c->nloaded; i++)
		if (!etwbt_wide_path(c->manifests[i], w))
			TdhUnloadManifest(w);
	for (i = 0; i < c->nmanifests; i++)
		free(c->manifests[i]);
	free(c->manifests);
	etwbt_classes_free(c);
	bt_stream_class_put_ref(c->sc);
	bt_clock_class_put_ref(c->cc);
	bt_trace_class_put_ref(c->tc);
	for (i = 0; i < c->npaths; i++)
		free(c->paths[i]);
	free(c->paths);
	free(c);
}

#define ETWBT_ERROR(c, ...) \
	BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT((c)->self, \
							    __VA_ARGS__)

/* Each input must be an ETL file libetw can read. */
static int etwbt_check_input(struct etwbt_comp *c, const char *path)
{
	struct etw_etl_reader *r;
	int ret = etw_etl_reader_open(path, &r);

	if (ret == -EBADMSG)
		ETWBT_ERROR(c, "%s: not an ETL file", path);
	else if (ret)
		ETWBT_ERROR(c, "%s: %s", path, strerror(-ret));
	else
		etw_etl_reader_close(r);
	return ret;
}

/* Parameter @name: an array of strings (at least one when @required). */
static int etwbt_strings(struct etwbt_comp *c, const bt_value *params,
			 const char *name, bool required, char ***out,
			 unsigned int *count)
{
	const bt_value *a, *v;
	uint64_t i, n;

	a = bt_value_map_borrow_entry_value_const(params, name);
	if (!a && !required)
		return 0;
	n = a && bt_value_is_array(a) ? bt_value_array_get_length(a) : 0;
	if (!n && (required || !a || !bt_value_is_array(a))) {
		ETWBT_ERROR(c, "parameter '%s' must be an array of paths", name);
		return -EINVAL;
	}
	*out = calloc(n ? n : 1, sizeof(**out));
	if (!*out)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		v = bt_value_array_borrow_element_by_index_const(a, i);
		if (!bt_value_is_string(v)) {
			ETWBT_ERROR(c, "'%s'[%llu] is not a string", name,
				    (unsigned long long)i);
			return -EINVAL;
		}
		(*out)[i] = strdup(bt_value_string_get(v));
		if (!(*out)[i])
			return -ENOMEM;
		(*count)++;
	}
	return 0;
}

static int etwbt_load_manifest(struct etwbt_comp *c, const char *path)
{
	WCHAR w[MAX_PATH];
	ULONG err;

	if (etwbt_wide_path(path, w)) {
		ETWBT_ERROR(c, "%s: path too long", path);
		return -EINVAL;
	}
	err = TdhLoadManifest(w);
	if (err == ERROR_FILE_NOT_FOUND)
		ETWBT_ERROR(c, "%s: no such manifest", path);
	else if (err == ERROR_XML_PARSE_ERROR)
		ETWBT_ERROR(c, "%s: not a valid instrumentation manifest", path);
	else if (err)
		ETWBT_ERROR(c, "%s: TdhLoadManifest: Win32 error %lu", path,
			    (unsigned long)err);
	return err ? -EINVAL : 0;
}

/*
 * "inputs": an array of one or more .etl paths, as for source.ctf.fs;
 * "manifests": instrumentation manifests for TDH, loaded now.
 */
static int etwbt_params(struct etwbt_comp *c, const bt_value *params)
{
	unsigned int i;
	int ret;

	ret = etwbt_strings(c, params, "inputs", true, &c->paths, &c->npaths);
	for (i = 0; !ret && i < c->npaths; i++)
		ret = etwbt_check_input(c, c->paths[i]);
	if (!ret)
		ret = etwbt_strings(c, params, "manifests", false,
				    &c->manifests, &c->nmanifests);
	for (i = 0; !ret && i < c->nmanifests; i++) {
		ret = etwbt_load_manifest(c, c->manifests[i]);
		if (!ret)
			c->nloaded++;
	}
	return ret == -ENOMEM ? ret : ret ? -EINVAL : 0;
}

static bt_component_class_initialize_method_status
etwbt_init(bt_self_component_source *self,
	   bt_self_component_source_configuration *config,
	   const bt_value *params, void *data)
{
	struct etwbt_comp *c = calloc(1, sizeof(*c));
	int ret;

	if (!c)
		return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_MEMORY_ERROR;
	c->self = bt_self_component_source_as_self_component(self);
	c->log_level = bt_component_get_logging_level(
		bt_self_component_as_component(c->self));
	ret = etwbt_params(c, params);
	if (!ret)
		ret = etwbt_trace_classes(c);
	if (!ret && bt_self_component_source_add_output_port(self, "out", NULL,
							     NULL))
		ret = -ENOMEM;
	if (ret) {
		etwbt_comp_free(c);
		return ret == -ENOMEM ?
		       BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_MEMORY_ERROR :
		       BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_ERROR;
	}
	bt_self_component_set_data(c->self, c);
	return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_OK;
}

static void etwbt_finalize(bt_self_component_source *self)
{
	etwbt_comp_free(bt_self_component_get_data(
		bt_self_component_source_as_self_component(self)));
}

BT_PLUGIN_SOURCE_COMPONENT_CLASS(etl, etwbt_iter_next);
BT_PLUGIN_SOURCE_COMPONENT_CLASS_DESCRIPTION(etl,
	"Read ETW events from .etl files (libetw).");
BT_PLUGIN_SOURCE_COMPONENT_CLASS_HELP(etl,
	"Parameter 'inputs': array of .etl file paths, merged in time order.\n"
	"Parameter 'manifests' (optional): array of instrumentation manifest\n"
	"paths, loaded for TDH to decode their providers' events.\n"
	"One trace per file, one stream per file and CPU; event classes\n"
	"\"Provider:Event\" with payloads decoded through TDH.  See\n"
	"Documentation/babeltrace2.rst in the etw sources.");
BT_PLUGIN_SOURCE_COMPONENT_CLASS_INITIALIZE_METHOD(etl, etwbt_init);
BT_PLUGIN_SOURCE_COMPONENT_CLASS_FINALIZE_METHOD(etl, etwbt_finalize);
BT_PLUGIN_SOURCE_COMPONENT_CLASS_MESSAGE_ITERATOR_CLASS_INITIALIZE_METHOD(etl,
	etwbt_iter_init);
BT_PLUGIN_SOURCE_COMPONENT_CLASS_MESSAGE_ITERATOR_CLASS_FINALIZE_METHOD(etl,
	etwbt_iter_finalize);
BT_PLUGIN_SOURCE_COMPONENT_CLASS_MESSAGE_ITERATOR_CLASS_SEEK_BEGINNING_METHODS(etl,
	etwbt_iter_seek_beginning, etwbt_iter_can_seek_beginning);
