// SPDX-License-Identifier: GPL-2.0
/*
 * top.bpf.c: etwctl top's programs on etw.ko's tracepoints.  They count
 * per (provider, session) in a per-CPU hash, so a write costs no atomic
 * operation; etwctl sums the CPUs when it reads.  Compiled with
 * clang -target bpf; bpftool makes the skeleton etwctl loads.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "top_maps.h"

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, ETWCTL_TOP_MAX_KEYS);
	__type(key, struct etwctl_top_key);
	__type(value, struct etwctl_top_val);
} counts SEC(".maps");

/* Events not counted because the map was full. */
__u64 untracked;

static struct etwctl_top_val *etwctl_top_val(const __u64 *provider,
					     __u32 logger_id)
{
	struct etwctl_top_val zero = {};
	struct etwctl_top_key k = {
		/* Two 8-byte loads: a record may only be read aligned. */
		.provider = { provider[0], provider[1] },
		.logger_id = logger_id,
	};
	struct etwctl_top_val *v;

	v = bpf_map_lookup_elem(&counts, &k);
	if (v)
		return v;
	/* Another CPU may insert it first: EEXIST, then the lookup finds it. */
	bpf_map_update_elem(&counts, &k, &zero, BPF_NOEXIST);
	v = bpf_map_lookup_elem(&counts, &k);
	if (!v)
		__sync_fetch_and_add(&untracked, 1);
	return v;
}

SEC("tracepoint/etw/etw_write")
int etwctl_top_write(struct etwctl_top_write_rec *r)
{
	struct etwctl_top_val *v = etwctl_top_val(r->provider, r->logger_id);

	if (v) {
		v->events++;
		v->bytes += r->size;
	}
	return 0;
}

SEC("tracepoint/etw/etw_lost")
int etwctl_top_lost(struct etwctl_top_lost_rec *r)
{
	struct etwctl_top_val *v = etwctl_top_val(r->provider, r->logger_id);

	if (v)
		v->lost++;
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
