// SPDX-License-Identifier: GPL-2.0
/*
 * filter_bench: what each EnableTraceEx2 filter costs a 64-byte
 * ETW_IOC_WRITE, for an event the filter passes and for one it drops, to
 * 1 and to 8 sessions that each enable the provider with the filter
 * (Documentation/performance.rst):
 *
 *   floor              ETW_IOC_NULL on /dev/etw (a bare ioctl)
 *   none               no filter: the base of the rows after it
 *   EVENT_ID in / out  a list of one id, filter-in and filter-out
 *   PID                the writer's pid listed, or only pid 1
 *   EXECUTABLE_NAME    this program's file name listed, or only another
 *   level, keyword     an event above the session's level, or outside
 *                      its MatchAnyKeyword
 *   PAYLOAD            one predicate on the payload's first 4 bytes (a
 *                      UINT32 field): EQ their value, or NE it
 *   PAYLOAD, a filter  the same, but each session's filter its own: GE,
 *   each               or LT, a value of its own at most theirs (sessions
 *                      with the same filter share its answer)
 *   EVENT_NAME         a TraceLogging event (metadata and a 64-byte
 *                      binary field) whose name is listed, or is not;
 *                      its base is the same event with no filter
 *   STACKWALK,         with ETW_ENABLE_STACK_TRACE: the event is written
 *   STACKWALK_LEVEL_KW either way, with the stack the filter lets in or
 *   STACKWALK_NAME     without the one it leaves out; their base is the
 *                      stack taken with no stack filter
 *
 * The sessions are started afresh for each figure (buffering-mode flight
 * recorders of 8 buffers of 64 KiB) and stopped after it; the benchmark
 * fails unless their statistics account for every event the filter
 * passes, in each session, and for none it drops; and unless the events
 * whose stacks a stack filter leaves out fill fewer buffers than those
 * whose stacks it takes.
 *
 * Each figure is the best of several rounds in nanoseconds per operation
 * and its ratio to the base; with --insns N it times nothing and runs
 * each case N times between two markers for scripts/icount-plugin.c,
 * printing one label per marker pair (the base's ends in "(base)").
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <linux/etw.h>

#include "bench_session.h"
/* After bench_session.h, whose helpers name their file "fd" too. */
#include "bench_loop.h"

#define SESSIONS_MAX	8
#define PAYLOAD		64
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* The names TraceLogging events carry; the filters list PASS_NAME. */
#define PASS_NAME	"Pass"
#define DROP_NAME	"Drop"

static const struct etw_guid bench_guid = {
	0xbe7c0003, 0x1111, 0x2222, { 3, 3, 3, 3, 4, 4, 4, 6 } };

/* The event a case writes: its descriptor and, for TraceLogging, name. */
struct bench_event {
	__u16 id;
	__u8 level;
	__u64 keyword;
	const char *name;	/* NULL: a plain write, as EventWrite's */
};

/*
 * One row: the filter @set puts into each session's enable (@pass says
 * whether a scope filter should take this process), with @props; then
 * the event it passes and, but for a base (@set NULL), the one it drops.
 * @stack: the filter decides the stack, not the event.
 */
struct filter_case {
	const char *label;
	__u32 props;
	bool stack;
	void (*set)(struct etw_enable_args *e, bool pass);
	struct bench_event pass, drop;
};

/* Room for every filter's data: what the enable's pointers point at. */
static __u16 filter_ids[1];
static __u32 filter_pids[1];
static char filter_exe[32];
static struct {
	struct etw_event_name_filter f;
	char names[sizeof(PASS_NAME)];
} filter_names;
static struct {
	struct etw_payload_filter h;
	struct etw_payload_event ev;
	struct etw_payload_field field[2];	/* one, to 8 bytes */
	struct etw_payload_predicate pred;
} filter_payload;

static void set_ids(struct etw_enable_args *e, __u16 id, __u32 in)
{
	filter_ids[0] = id;
	e->event_id_count = 1;
	e->event_ids_ptr = (uintptr_t)filter_ids;
	e->event_ids_filter_in = in;
}

static void set_ids_in(struct etw_enable_args *e, bool pass)
{
	set_ids(e, 1, 1);
}

static void set_ids_out(struct etw_enable_args *e, bool pass)
{
	set_ids(e, 2, 0);
}

/* Pid 1 is visible in the VM's namespace and is not this process. */
static void set_pid(struct etw_enable_args *e, bool pass)
{
	filter_pids[0] = pass ? (__u32)getpid() : 1;
	e->pid_count = 1;
	e->pids_ptr = (uintptr_t)filter_pids;
}

static void set_exe(struct etw_enable_args *e, bool pass)
{
	snprintf(filter_exe, sizeof(filter_exe), "%s",
		 pass ? program_invocation_short_name : "write_bench");
	e->exe_names_size = strlen(filter_exe);
	e->exe_names_ptr = (uintptr_t)filter_exe;
}

static void set_level(struct etw_enable_args *e, bool pass)
{
	e->level = 4;
}

static void set_keyword(struct etw_enable_args *e, bool pass)
{
	e->match_any = 0x1;
}

/* Every level and keyword selected: the name alone decides. */
static void name_block(void)
{
	memset(&filter_names, 0, sizeof(filter_names));
	filter_names.f.filter_in = 1;
	filter_names.f.name_count = 1;
	memcpy((char *)&filter_names + ETW_EVENT_NAME_FILTER_NAMES, PASS_NAME,
	       sizeof(PASS_NAME));
}

static void set_name(struct etw_enable_args *e, bool pass)
{
	name_block();
	e->names_size = ETW_EVENT_NAME_FILTER_NAMES + sizeof(PASS_NAME);
	e->names_ptr = (uintptr_t)&filter_names;
}

/*
 * A block for event 1 as TdhCreatePayloadFilter() makes one: the first
 * property, a UINT32, compared with the payload's "xxxx".
 */
static void set_payload(struct etw_enable_args *e, bool pass)
{
	memset(&filter_payload, 0, sizeof(filter_payload));
	filter_payload.h.size = sizeof(filter_payload);
	filter_payload.h.count = 1;
	filter_payload.ev.size = sizeof(filter_payload) -
				 sizeof(filter_payload.h);
	filter_payload.ev.id = 1;
	filter_payload.ev.nfields = 1;
	filter_payload.ev.npreds = 1;
	filter_payload.field[0].kind = ETW_PAYLOAD_FIELD_FIXED;
	filter_payload.field[0].size = 4;
	filter_payload.pred.op = pass ? ETW_PAYLOAD_OP_EQ : ETW_PAYLOAD_OP_NE;
	filter_payload.pred.type = ETW_PAYLOAD_UINT;
	filter_payload.pred.value = 0x78787878;
	e->payload_size = sizeof(filter_payload);
	e->payload_ptr = (uintptr_t)&filter_payload;
}

/* Called once a session: each gets a value of its own. */
static void set_payload_each(struct etw_enable_args *e, bool pass)
{
	static unsigned int k;

	set_payload(e, pass);
	filter_payload.pred.op = pass ? ETW_PAYLOAD_OP_GE : ETW_PAYLOAD_OP_LT;
	filter_payload.pred.value = 0x78787878 - k++ % SESSIONS_MAX;
}

static void set_stack_ids(struct etw_enable_args *e, bool pass)
{
	filter_ids[0] = 1;
	e->stack_id_count = 1;
	e->stack_ids_ptr = (uintptr_t)filter_ids;
	e->stack_ids_filter_in = 1;
}

static void set_stack_lk(struct etw_enable_args *e, bool pass)
{
	e->stack_level = 4;
	e->stack_lk_filter = ETW_STACK_LK_IN;
}

static void set_stack_name(struct etw_enable_args *e, bool pass)
{
	name_block();
	e->stack_names_size = ETW_EVENT_NAME_FILTER_NAMES + sizeof(PASS_NAME);
	e->stack_names_ptr = (uintptr_t)&filter_names;
}

#define EV(i, l, k, n)	{ .id = (i), .level = (l), .keyword = (k), .name = (n) }
#define PLAIN		EV(1, 4, 0x1, NULL)
#define TLG		EV(1, 4, 0x1, PASS_NAME)

/* A base row: @ev with no filter, and the filter rows after it. */
#define BASE(l, p, st, ev) \
	{ .label = (l), .props = (p), .stack = (st), .pass = ev }
#define ROW(l, p, st, fn, ps, dr) \
	{ .label = (l), .props = (p), .stack = (st), .set = (fn), \
	  .pass = ps, .drop = dr }
#define STACK		ETW_ENABLE_STACK_TRACE

/* Each row after the base it is compared with; a filter is one more. */
static const struct filter_case cases[] = {
	BASE("none", 0, false, PLAIN),
	ROW("EVENT_ID in", 0, false, set_ids_in, PLAIN, EV(2, 4, 0x1, NULL)),
	ROW("EVENT_ID out", 0, false, set_ids_out, PLAIN, EV(2, 4, 0x1, NULL)),
	ROW("PID", 0, false, set_pid, PLAIN, PLAIN),
	ROW("EXECUTABLE_NAME", 0, false, set_exe, PLAIN, PLAIN),
	ROW("level", 0, false, set_level, PLAIN, EV(1, 5, 0x1, NULL)),
	ROW("keyword", 0, false, set_keyword, PLAIN, EV(1, 4, 0x2, NULL)),
	ROW("PAYLOAD", 0, false, set_payload, PLAIN, PLAIN),
	ROW("PAYLOAD, a filter each", 0, false, set_payload_each, PLAIN, PLAIN),
	BASE("TraceLogging, none", 0, false, TLG),
	ROW("EVENT_NAME", 0, false, set_name, TLG, EV(1, 4, 0x1, DROP_NAME)),
	BASE("stack, none", STACK, true, PLAIN),
	ROW("STACKWALK", STACK, true, set_stack_ids, PLAIN,
	    EV(2, 4, 0x1, NULL)),
	ROW("STACKWALK_LEVEL_KW", STACK, true, set_stack_lk, PLAIN,
	    EV(1, 5, 0x1, NULL)),
	BASE("TraceLogging stack, none", STACK, true, TLG),
	ROW("STACKWALK_NAME", STACK, true, set_stack_name, TLG,
	    EV(1, 4, 0x1, DROP_NAME)),
};

struct write_ctx {
	struct etw_write_args args;
	struct etw_data_descriptor desc[2];	/* metadata, payload */
	char meta[32];
	char payload[PAYLOAD];
};

static void bench_write(void *ctx, unsigned long n)
{
	struct write_ctx *w = ctx;

	while (n--)
		if (ioctl(fd, ETW_IOC_WRITE, &w->args) && errno != ENOBUFS)
			die("ETW_IOC_WRITE");
}

/*
 * TraceLogging metadata: UINT16 size, one tag byte, the event's name,
 * one field "data" of TlgInBINARY (14), whose payload leads with its
 * UINT16 length.
 */
static void tlg_meta(struct write_ctx *w, const char *name)
{
	size_t n = strlen(name) + 1, len = 3 + n + sizeof("data") + 1;

	w->meta[0] = (char)len;
	w->meta[1] = 0;
	w->meta[2] = 0;
	memcpy(w->meta + 3, name, n);
	memcpy(w->meta + 3 + n, "data", sizeof("data"));
	w->meta[len - 1] = 14;
	w->desc[0].ptr = (uintptr_t)w->meta;
	w->desc[0].size = len;
	w->desc[0].type = ETW_DATA_TYPE_EVENT_METADATA;
	w->payload[0] = PAYLOAD - 2;
	w->payload[1] = 0;
}

/* @w writes @ev: its descriptor, and its metadata when it has a name. */
static void event_set(struct write_ctx *w, const struct bench_event *ev)
{
	w->args.descriptor.id = ev->id;
	w->args.descriptor.level = ev->level;
	w->args.descriptor.keyword = ev->keyword;
	if (ev->name) {
		tlg_meta(w, ev->name);
		w->args.flags = ETW_WRITE_DESC_TYPES;
		w->args.data_count = 2;
		w->args.data_ptr = (uintptr_t)&w->desc[0];
	} else {
		/* The payload filter reads the bytes tlg_meta() changes. */
		memset(w->payload, 'x', 2);
		w->args.flags = 0;
		w->args.data_count = 1;
		w->args.data_ptr = (uintptr_t)&w->desc[1];
	}
}

/* Sessions 0 to @s - 1, each enabling the GUID with @c's filter. */
static void sessions_start(__u32 *ids, unsigned int s,
			   const struct filter_case *c, bool pass)
{
	struct etw_enable_args e;
	unsigned int i;

	for (i = 0; i < s; i++) {
		char name[32];

		snprintf(name, sizeof(name), "filter-bench-%u", i);
		ids[i] = bench_start_session(fd, name, ETW_MODE_BUFFERING);
		memset(&e, 0, sizeof(e));
		e.size = sizeof(e);
		e.logger_id = ids[i];
		e.control_code = ETW_CONTROL_ENABLE;
		e.guid = bench_guid;
		e.properties = c->props;
		if (c->set)
			c->set(&e, pass);
		if (ioctl(fd, ETW_IOC_ENABLE, &e))
			die("ETW_IOC_ENABLE");
	}
}

/* Session @id's statistics from ETW_IOC_QUERY or ETW_IOC_STOP @cmd. */
static const struct etw_session_stats *session_stats(__u32 id,
						     unsigned long cmd)
{
	static struct etw_session_args a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.logger_id = id;
	if (ioctl(fd, cmd, &a))
		die(cmd == ETW_IOC_STOP ? "ETW_IOC_STOP" : "ETW_IOC_QUERY");
	return &a.stats;
}

/*
 * Stop sessions 0 to @s - 1; fail unless each took @expect events.
 * Return: the buffers session 0 filled, reused ones included.
 */
static unsigned long long sessions_stop(const __u32 *ids, unsigned int s,
					const char *label,
					unsigned long long expect)
{
	const struct etw_session_stats *st = session_stats(ids[0],
							   ETW_IOC_QUERY);
	unsigned long long got, used;
	unsigned int i;

	used = st->buffers_overwritten + st->buffers - st->free_buffers;
	for (i = 0; i < s; i++) {
		st = session_stats(ids[i], ETW_IOC_STOP);
		got = st->events_written + st->events_lost +
		      st->events_overwritten;
		if (got != expect) {
			fprintf(stderr,
				"filter_bench: %s: session %u took %llu events of %llu\n",
				label, i, got, expect);
			exit(1);
		}
	}
	return used;
}

/* The writes report() runs: warm-up and measured loops. */
static unsigned long report_ops(void)
{
	if (insns_iters)
		return insns_iters / 10 + insns_iters;
	return iters / 10 + ROUNDS * iters;
}

/* Time @fn against the last base, or have it counted. */
static void filter_report(const char *label, bool base, bench_fn fn,
			  void *ctx)
{
	static double base_ns;
	double t;

	if (insns_iters) {
		report(label, fn, ctx);
		return;
	}
	t = measure(fn, ctx, iters);
	if (base)
		base_ns = t;
	printf("%-46s %9.1f ns   %.2fx\n", label, t, t / base_ns);
}

/*
 * One figure: @c's @pass or drop event to @s sessions.
 * Return: the buffers the events filled in a session.
 */
static unsigned long long run_case(struct write_ctx *w,
				   const struct filter_case *c,
				   unsigned int s, bool pass)
{
	const struct bench_event *ev = pass ? &c->pass : &c->drop;
	__u32 ids[SESSIONS_MAX];
	char label[64];
	unsigned long long expect;

	snprintf(label, sizeof(label), "%s, %u session%s, %s", c->label, s,
		 s > 1 ? "s" : "", !c->set ? "(base)" :
		 c->stack ? (pass ? "stack taken" : "stack left out") :
		 pass ? "passed" : "dropped");
	event_set(w, ev);
	sessions_start(ids, s, c, pass);
	filter_report(label, !c->set, bench_write, w);
	/* A stack filter decides the stack: the event is written anyway. */
	expect = pass || c->stack ? report_ops() : 0;
	return sessions_stop(ids, s, label, expect);
}

int main(int argc, char **argv)
{
	static const unsigned int nsessions[] = { 1, SESSIONS_MAX };
	struct etw_register_args reg = { .size = sizeof(reg),
					 .guid = bench_guid };
	static struct write_ctx w;
	unsigned int i, n;

	bench_args(argc, argv);
	fd = open("/dev/etw", O_RDWR | O_CLOEXEC);
	if (fd < 0)
		die("/dev/etw");
	if (ioctl(fd, ETW_IOC_REGISTER, &reg))
		die("ETW_IOC_REGISTER");
	memset(w.payload, 'x', sizeof(w.payload));
	w.args.size = sizeof(w.args);
	w.args.reg_id = reg.reg_id;
	w.desc[1].ptr = (uintptr_t)w.payload;
	w.desc[1].size = sizeof(w.payload);

	if (!insns_iters)
		printf("# etw filters, %u B, %lu writes a round, best of %d, %ld CPUs\n",
		       PAYLOAD, iters, ROUNDS, sysconf(_SC_NPROCESSORS_ONLN));
	filter_report("null ioctl (floor)", true, bench_null, NULL);
	for (n = 0; n < ARRAY_SIZE(nsessions); n++) {
		for (i = 0; i < ARRAY_SIZE(cases); i++) {
			const struct filter_case *c = &cases[i];
			unsigned long long passed, dropped;

			passed = run_case(&w, c, nsessions[n], true);
			if (!c->set)
				continue;
			dropped = run_case(&w, c, nsessions[n], false);
			/*
			 * A stack adds some 40% to these records: as many
			 * buffers would mean the stacks were not left out.
			 */
			if (c->stack && dropped >= passed) {
				fprintf(stderr,
					"filter_bench: %s: %llu buffers with stacks, as many without\n",
					c->label, passed);
				exit(1);
			}
		}
	}
	return 0;
}
