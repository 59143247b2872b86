// SPDX-License-Identifier: GPL-2.0
/*
 * A seeded, multi-threaded fuzzer of /dev/etw: ioctl, mmap, read, poll,
 * fork, exec and close in random order, staging rings too (opened, mapped
 * also from a fork child or an exec'd image, staged in, drained), with
 * garbage and with
 * valid-looking arguments that use the ids it obtained (logger ids,
 * registration ids, consumer files).  One worker process runs as root, one
 * dropped to uid 1000 (the VM's user "etw"); both share the GUIDs and
 * session names, so their operations meet in the kernel.
 *
 * As a kselftest it runs ETW_FUZZ_SECONDS (default 60) in make check.
 * "fuzz_test --seconds N [--seed S] [--threads T]" runs the same fuzzer
 * without the harness, for any length (scripts/fuzz.sh, make fuzz).  Each
 * thread's sequence of operations follows from the printed seed; with
 * --threads 1 the run is single-threaded per worker and replays exactly up
 * to the kernel's own timing (flush timers, the order the two workers
 * interleave in).
 *
 * It reports executions, duration, seed and the kernel reports (BUG,
 * WARNING, KASAN, lockdep, kmemleak lines) that appeared in /dev/kmsg
 * meanwhile; the target is none.  At the end every session it started is
 * stopped, no registration of its GUIDs may remain and the kernel
 * logger's sampling interval is back to its default, so the rest of the
 * suite and rmmod etw still work.
 */
#include <grp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "etw_raw.h"

#define USER_UID	1000
#define FUZZ_FAMILY	0xf022f022u	/* GUID data1 of every fuzzed GUID */
#define NFD		6
#define NCFD		6
#define NSID		12
#define NREG		32
#define NMAP		4
#define NRING		4
#define MAX_THREADS	8
#define MAX_GLOBAL	6	/* live global sessions the root worker keeps */
#define EXEC_ENV	"ETW_FUZZ_EXEC"
#define NOPS		34

/* --- shared between the worker processes and the parent ------------------ */

struct shared {
	unsigned long execs[2];
	unsigned long ops[2][NOPS];
	volatile int stop;
};

static struct shared *shm;
static pid_t main_pid;		/* names the sessions: "fz<k>-<main_pid>" */

/* --- random numbers ------------------------------------------------------- */

struct rng {
	__u64 s;
};

static __u64 rnd(struct rng *r)
{
	__u64 x = r->s;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	r->s = x;
	return x * 0x2545f4914f6cdd1dull;
}

static __u32 rn(struct rng *r, __u32 n)
{
	return n ? (__u32)(rnd(r) % n) : 0;
}

static bool chance(struct rng *r, __u32 n)
{
	return rn(r, n) == 0;
}

/* An interesting 32-bit value: boundaries more often than chance would. */
static __u32 rnd_u32(struct rng *r)
{
	static const __u32 v[] = { 0, 1, 2, 3, 4, 7, 8, 63, 64, 65, 128, 129,
		255, 256, 1023, 1024, 1025, 4095, 4096, 4097, 0xffff, 0x10000,
		0x7fffffff, 0x80000000, 0xfffffffe, 0xffffffff };

	switch (rn(r, 3)) {
	case 0:
		return v[rn(r, sizeof(v) / sizeof(v[0]))];
	case 1:
		return rn(r, 16);
	default:
		return (__u32)rnd(r);
	}
}

static void rnd_bytes(struct rng *r, void *p, size_t n)
{
	__u8 *b = p;

	while (n--)
		*b++ = (__u8)rnd(r);
}

/* --- the worker's state --------------------------------------------------- */

struct reg {
	int fd;
	__u32 id;
};

struct pool {
	int fds[NFD];
	int cfds[NCFD];
	__u32 sids[NSID];
	struct reg regs[NREG];
	pthread_mutex_t map_lock;	/* @maps with @map_len */
	void *maps[NMAP];
	size_t map_len[NMAP];
	void *bad_page;		/* PROT_NONE */
	int rfds[NRING];		/* staging rings' files */
	void *rmaps[NRING];		/* their mappings, with @map_lock */
	size_t rmap_len[NRING];
	int unpriv;
	int nthreads;
	__u64 seed;
};

static struct pool pool;

struct worker {
	struct rng r;
	int idx;
	bool child;		/* in a fork child: no fork, exec */
	char buf[70000];
};

static struct etw_guid fuzz_guid(struct rng *r)
{
	struct etw_guid g = { .data1 = FUZZ_FAMILY, .data2 = (__u16)rn(r, 6),
			      .data3 = 0, .data4 = { 'f', 'u', 'z', 'z' } };

	if (chance(r, 16))
		rnd_bytes(r, &g, sizeof(g));
	return g;
}

static int pick_fd(struct worker *w)
{
	int fd = pool.fds[rn(&w->r, NFD)];

	/* Any number from 3 up: the workers hold no other files there. */
	if (chance(&w->r, 64))
		return 3 + (int)rn(&w->r, 61);
	if (fd < 0 || chance(&w->r, 32))
		fd = pool.cfds[rn(&w->r, NCFD)];
	return fd;
}

static int pick_cfd(struct worker *w)
{
	int fd = pool.cfds[rn(&w->r, NCFD)];

	if (fd < 0 || chance(&w->r, 32))
		fd = pool.fds[rn(&w->r, NFD)];
	return fd;
}

static __u32 pick_sid(struct worker *w)
{
	__u32 id = pool.sids[rn(&w->r, NSID)];

	if (!id || chance(&w->r, 16))
		id = chance(&w->r, 2) ? rn(&w->r, 80) : rnd_u32(&w->r);
	return id;
}

static struct reg pick_reg(struct worker *w)
{
	struct reg g = pool.regs[rn(&w->r, NREG)];

	if (!g.id || chance(&w->r, 16)) {
		g.fd = pick_fd(w);
		g.id = chance(&w->r, 2) ? rn(&w->r, 8) : rnd_u32(&w->r);
	}
	return g;
}

/*
 * The PROT_NONE page, with a scratch page of its own below it: a buffer
 * that runs into it starts there, so the bytes the kernel copies before
 * the fault land in no other mapping (a thread's stack and descriptor
 * are the next mappings down, a ring or an enable area may be).
 */
static void *map_bad_page(void)
{
	char *m = mmap(NULL, 8192, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (m == MAP_FAILED || mprotect(m + 4096, 4096, PROT_NONE))
		return NULL;
	return m + 4096;
}

/* A user pointer: mostly @p, sometimes NULL, unmapped, kernel or odd. */
static __u64 rnd_ptr(struct worker *w, void *p)
{
	switch (rn(&w->r, 24)) {
	case 0:
		return 0;
	case 1:
		return (uintptr_t)pool.bad_page;
	case 2:
		return 0xffff888000000000ull;
	case 3:
		return (uintptr_t)pool.bad_page - 3;	/* runs into it */
	case 4:
		return rnd(&w->r);
	default:
		return (uintptr_t)p;
	}
}

/* Store @v in a free (or random) slot of @slots; close what it replaces. */
static void put_fd(struct worker *w, int *slots, int n, int fd)
{
	int i = rn(&w->r, n), old;

	old = __atomic_exchange_n(&slots[i], fd, __ATOMIC_ACQ_REL);
	if (old >= 0)
		close(old);
}

static void put_sid(struct worker *w, __u32 id)
{
	__atomic_store_n(&pool.sids[rn(&w->r, NSID)], id, __ATOMIC_RELAXED);
}

/* Perturb an argument struct now and then: a byte, or its size. */
static void mutate(struct worker *w, void *arg, size_t len)
{
	if (chance(&w->r, 10))
		((__u8 *)arg)[rn(&w->r, len)] = (__u8)rnd(&w->r);
	if (chance(&w->r, 20))
		*(__u32 *)arg = rnd_u32(&w->r);
}

/*
 * mutate() an argument whose @ptr the kernel writes through: a pointer
 * changed in one byte may land in this process's live memory (a thread's
 * stack), which the kernel would then rightly overwrite.
 */
static void mutate_keeping_ptr(struct worker *w, void *arg, size_t len,
			       __u64 *ptr)
{
	__u64 keep = *ptr;

	mutate(w, arg, len);
	*ptr = keep;
}

static void *arg_ptr(struct worker *w, void *arg)
{
	return (void *)(uintptr_t)rnd_ptr(w, arg);
}

/* --- the operations --------------------------------------------------------- */

static void op_open(struct worker *w)
{
	int fd = open(ETW_DEV, O_RDWR | O_NONBLOCK |
		      (chance(&w->r, 2) ? O_CLOEXEC : 0));

	if (fd >= 0)
		put_fd(w, pool.fds, NFD, fd);
}

static void op_close(struct worker *w)
{
	int *slots = chance(&w->r, 2) ? pool.fds : pool.cfds;
	int old = __atomic_exchange_n(&slots[rn(&w->r, NFD)], -1,
				      __ATOMIC_ACQ_REL);

	if (old >= 0)
		close(old);
}

static void session_name(struct worker *w, char *name)
{
	sprintf(name, "fz%u-%d", rn(&w->r, 8), main_pid);
	if (chance(&w->r, 64))
		strcpy(name, "FZ0-");	/* case-insensitive collisions */
}

static int live_globals(void)
{
	int i, n = 0;

	for (i = 0; i < NSID; i++)
		if (pool.sids[i] && pool.sids[i] <= ETW_MAX_GLOBAL_SESSIONS)
			n++;
	return n;
}

static void op_start(struct worker *w)
{
	static const __u32 kb[] = { 0, 4, 4, 8, 16, 64, 3, 16385 };
	struct etw_session_args a;
	bool global = !pool.unpriv && chance(&w->r, 2);

	if (global && live_globals() >= MAX_GLOBAL)
		global = false;
	raw_session_init(&a, 0);
	session_name(w, a.name);
	a.config.buffer_kb = kb[rn(&w->r, 8)];
	a.config.min_buffers = rn(&w->r, 5);
	a.config.max_buffers = rn(&w->r, 24);
	a.config.flush_timer_ms = chance(&w->r, 3) ? rn(&w->r, 50) : 0;
	a.config.mode = global ? (chance(&w->r, 2) ? ETW_MODE_REAL_TIME :
				  ETW_MODE_BUFFERING) : ETW_MODE_PRIVATE;
	if (chance(&w->r, 4))
		a.config.mode |= ETW_MODE_NO_PER_PROCESSOR;
	if (global && chance(&w->r, 4))
		a.config.mode |= ETW_MODE_INDEPENDENT;
	if (chance(&w->r, 16))
		a.config.mode = rnd_u32(&w->r) & ~ETW_MODE_PRIVATE;
	if (chance(&w->r, 32)) {	/* many small buffers: 16 MiB at most */
		a.config.buffer_kb = 4;
		a.config.max_buffers = rnd_u32(&w->r);
	}
	mutate(w, &a, sizeof(a));
	if (a.config.buffer_kb > 64 && a.config.buffer_kb <= ETW_MAX_BUFFER_KB)
		a.config.buffer_kb = 64;
	if (!ioctl(pick_fd(w), ETW_IOC_START, arg_ptr(w, &a)))
		put_sid(w, a.logger_id);
}

static void op_session(struct worker *w, unsigned long cmd)
{
	struct etw_session_args a;

	raw_session_init(&a, pick_sid(w));
	if (chance(&w->r, 8))
		session_name(w, a.name);
	if (cmd == ETW_IOC_UPDATE) {
		a.config.max_buffers = rn(&w->r, 48);
		a.config.flush_timer_ms = rn(&w->r, 100);
		a.config.mode = chance(&w->r, 2) ? ETW_MODE_REAL_TIME : 0;
		if (chance(&w->r, 8))
			rnd_bytes(&w->r, &a.config, sizeof(a.config));
		if (a.config.max_buffers > 64)	/* keep the VM's memory */
			a.config.max_buffers = 64;
	}
	mutate(w, &a, sizeof(a));
	ioctl(pick_fd(w), cmd, arg_ptr(w, &a));
}

static void op_list_sessions(struct worker *w)
{
	__u32 ids[80];
	struct etw_list_args l = { .size = sizeof(l), .count = rn(&w->r, 90),
				   .ids_ptr = (uintptr_t)ids };

	if (l.count > 80)
		l.count = 80;
	if (chance(&w->r, 8))
		l.ids_ptr = rnd_ptr(w, ids);
	mutate_keeping_ptr(w, &l, sizeof(l), &l.ids_ptr);
	ioctl(pick_fd(w), ETW_IOC_LIST_SESSIONS, arg_ptr(w, &l));
}

static void op_register(struct worker *w)
{
	struct etw_register_args a = { .size = sizeof(a),
		.flags = chance(&w->r, 4) ? ETW_REGISTER_CLASSIC : 0,
		.guid = fuzz_guid(&w->r), .cookie = rnd(&w->r) };
	int fd = pick_fd(w);

	mutate(w, &a, sizeof(a));
	if (!ioctl(fd, ETW_IOC_REGISTER, arg_ptr(w, &a))) {
		struct reg *g = &pool.regs[rn(&w->r, NREG)];

		g->fd = fd;
		g->id = a.reg_id;
	}
}

static void op_unregister(struct worker *w)
{
	struct reg g = pick_reg(w);
	struct etw_unregister_args u = { .size = sizeof(u), .reg_id = g.id };

	ioctl(g.fd, ETW_IOC_UNREGISTER, arg_ptr(w, &u));
}

static void op_set_traits(struct worker *w)
{
	struct reg g = pick_reg(w);
	__u8 *blob = (__u8 *)w->buf;
	struct etw_traits_args t = { .size = sizeof(t), .reg_id = g.id,
				     .traits_ptr = (uintptr_t)blob };
	struct etw_guid grp = fuzz_guid(&w->r);
	__u16 len = 2;

	len += sprintf((char *)blob + 2, "Fuzz%u", rn(&w->r, 4)) + 1;
	if (chance(&w->r, 2)) {	/* a group trait */
		blob[len] = 3 + sizeof(grp);
		blob[len + 1] = 0;
		blob[len + 2] = 1;
		memcpy(blob + len + 3, &grp, sizeof(grp));
		len += 3 + sizeof(grp);
	}
	if (chance(&w->r, 4)) {	/* another trait, or garbage */
		__u16 n = (__u16)rn(&w->r, 40);

		rnd_bytes(&w->r, blob + len, n);
		len += n;
	}
	blob[0] = len & 0xff;
	blob[1] = len >> 8;
	t.traits_len = len;
	if (chance(&w->r, 8))
		t.traits_len = rnd_u32(&w->r) & 0x1ffff;
	if (t.traits_len > sizeof(w->buf))
		t.traits_len = sizeof(w->buf);
	if (chance(&w->r, 8))
		t.traits_ptr = rnd_ptr(w, blob);
	mutate(w, &t, sizeof(t));
	ioctl(g.fd, ETW_IOC_SET_TRAITS, arg_ptr(w, &t));
}

static void op_write(struct worker *w)
{
	struct etw_data_descriptor d[8];
	struct reg g = pick_reg(w);
	struct etw_write_args a;
	__u32 i, n = rn(&w->r, 5), off = 0;

	raw_write_init(&a, g.id, (__u16)rn(&w->r, 8), (__u8)rn(&w->r, 7),
		       chance(&w->r, 2) ? 1ull << rn(&w->r, 4) : 0);
	for (i = 0; i < n; i++) {
		__u32 size = rn(&w->r, 300);

		if (chance(&w->r, 64))
			size = 4096 + rn(&w->r, 66000);
		if (off + size > sizeof(w->buf))
			size = 0;
		d[i] = (struct etw_data_descriptor){
			.ptr = rnd_ptr(w, w->buf + off), .size = size,
			.type = chance(&w->r, 3) ? (__u8)rn(&w->r, 5) : 0 };
		if (d[i].type == ETW_DATA_TYPE_TIMESTAMP)
			d[i].size = 8;
		off += size;
	}
	a.flags = rn(&w->r, 8);
	if (chance(&w->r, 32))
		a.flags = rnd_u32(&w->r);
	a.data_count = n;
	if (chance(&w->r, 32))
		a.data_count = rnd_u32(&w->r) & 0xff;
	a.data_ptr = rnd_ptr(w, d);
	if (a.data_count > 8 && a.data_ptr == (uintptr_t)d)
		a.data_count = 8;
	a.exclude_mask = chance(&w->r, 4) ? rnd(&w->r) : 0;
	rnd_bytes(&w->r, &a.activity_id, sizeof(a.activity_id));
	mutate(w, &a, sizeof(a));
	ioctl(g.fd, ETW_IOC_WRITE, arg_ptr(w, &a));
}

static void op_ack(struct worker *w)
{
	struct etw_ack_args a = { .size = sizeof(a),
		.seq = chance(&w->r, 2) ? rn(&w->r, 64) : rnd(&w->r) };

	ioctl(pick_fd(w), ETW_IOC_ACK, arg_ptr(w, &a));
}

static void op_list_providers(struct worker *w)
{
	struct etw_provider_info *info = (void *)w->buf;
	struct etw_list_providers_args l = { .size = sizeof(l),
		.count = rn(&w->r, 40), .info_ptr = (uintptr_t)info,
		.info_size = sizeof(*info) };

	if (chance(&w->r, 8))
		l.info_ptr = rnd_ptr(w, info);
	mutate_keeping_ptr(w, &l, sizeof(l), &l.info_ptr);
	/* The kernel writes count entries info_size apart: keep them in buf. */
	if (l.info_ptr == (uintptr_t)info && l.info_size &&
	    (__u64)l.count * l.info_size > sizeof(w->buf))
		l.count = sizeof(w->buf) / l.info_size;
	ioctl(pick_fd(w), ETW_IOC_LIST_PROVIDERS, arg_ptr(w, &l));
}

/*
 * A payload filter: one block on an event id the writes use, fields u32
 * and an ANSI string, a predicate on either; then noise in a few bytes
 * (a count, a kind, an offset), or a random size.
 */
struct fuzz_pf {
	struct etw_payload_filter h;
	struct etw_payload_event ev;
	struct etw_payload_field f[2];
	struct etw_payload_predicate p;
	char val[8];
};

static void fuzz_payload_filter(struct worker *w, struct etw_enable_args *e,
				struct fuzz_pf *pf)
{
	__u32 i;

	memset(pf, 0, sizeof(*pf));
	pf->h.size = sizeof(*pf);
	pf->h.count = 1;
	pf->ev.size = sizeof(*pf) - sizeof(pf->h);
	pf->ev.id = (__u16)rn(&w->r, 10);
	pf->ev.match_any = (__u8)rn(&w->r, 2);
	pf->ev.nfields = 2;
	pf->ev.npreds = 1;
	pf->f[0].kind = ETW_PAYLOAD_FIELD_FIXED;
	pf->f[0].size = 4;
	pf->f[1].kind = ETW_PAYLOAD_FIELD_SZ8;
	if (chance(&w->r, 2)) {
		pf->p.op = (__u8)rn(&w->r, ETW_PAYLOAD_OP_MODULO + 1);
		pf->p.value = rn(&w->r, 4);
		pf->p.value2 = pf->p.op >= ETW_PAYLOAD_OP_BETWEEN &&
			       pf->p.op <= ETW_PAYLOAD_OP_NOTBETWEEN ?
			       rn(&w->r, 8) : 0;
	} else {
		pf->p.field = 1;
		pf->p.op = ETW_PAYLOAD_OP_CONTAINS + rn(&w->r, 2);
		pf->p.type = ETW_PAYLOAD_STR8;
		pf->p.value_off = offsetof(struct fuzz_pf, val) - sizeof(pf->h);
		pf->p.value_len = (__u16)rn(&w->r, sizeof(pf->val) + 1);
		for (i = 0; i < sizeof(pf->val); i++)
			pf->val[i] = "aAb"[rn(&w->r, 3)];
	}
	for (i = 0; chance(&w->r, 2) && i < 4; i++)
		((__u8 *)pf)[rn(&w->r, sizeof(*pf))] = (__u8)rnd(&w->r);
	e->payload_ptr = rnd_ptr(w, pf);
	e->payload_size = chance(&w->r, 8) ? rnd_u32(&w->r) & 0x1fff :
			  sizeof(*pf);
	if (e->payload_ptr == (uintptr_t)pf && e->payload_size > sizeof(*pf))
		e->payload_size = sizeof(*pf);
}

static void op_enable(struct worker *w)
{
	__u16 ids[70];
	__u32 pids[10];
	char exe[300];
	struct {
		struct etw_event_name_filter f;
		char room[64];
	} names;
	struct {
		struct etw_filter_header h;
		__u8 data[64];
	} fd;
	struct fuzz_pf pf;
	struct etw_enable_args e;
	__u32 i;
	struct etw_guid g = fuzz_guid(&w->r);

	raw_enable_init(&e, pick_sid(w), &g, (__u8)rn(&w->r, 7),
			rnd(&w->r) & 0xf, 0);
	e.control_code = rn(&w->r, 8) < 6 ? ETW_CONTROL_ENABLE :
			 rn(&w->r, 3);
	if (chance(&w->r, 6))
		e.properties |= ETW_ENABLE_PROVIDER_GROUP;
	if (chance(&w->r, 6))
		e.properties |= ETW_ENABLE_IGNORE_KEYWORD_0;
	if (chance(&w->r, 6))
		e.match_all = 1ull << rn(&w->r, 4);
	if (chance(&w->r, 5)) {
		e.event_id_count = rn(&w->r, 70);
		for (i = 0; i < 70; i++)
			ids[i] = (__u16)rn(&w->r, 10);
		e.event_ids_ptr = rnd_ptr(w, ids);
		e.event_ids_filter_in = rn(&w->r, 3);
	}
	if (chance(&w->r, 5)) {
		e.pid_count = rn(&w->r, 10);
		for (i = 0; i < 10; i++)
			pids[i] = chance(&w->r, 2) ? (__u32)getpid() :
				  rnd_u32(&w->r);
		e.pids_ptr = rnd_ptr(w, pids);
	}
	if (chance(&w->r, 5)) {
		memset(&fd, 0, sizeof(fd));
		fd.h.id = (__u16)rn(&w->r, 4);
		fd.h.size = sizeof(fd.h) + rn(&w->r, 65);
		rnd_bytes(&w->r, fd.data, sizeof(fd.data));
		e.filter_data_ptr = rnd_ptr(w, &fd);
		e.filter_data_size = chance(&w->r, 8) ? rnd_u32(&w->r) & 0x7ff :
				     fd.h.size;
		if (e.filter_data_ptr == (uintptr_t)&fd &&
		    e.filter_data_size > sizeof(fd))
			e.filter_data_size = sizeof(fd);
	}
	if (chance(&w->r, 5)) {
		/* Image names: this program's, separators, NULs, noise. */
		static const char alphabet[] = "fuzz_test;FUZZ\0a";

		for (i = 0; i < sizeof(exe); i++)
			exe[i] = alphabet[rn(&w->r, sizeof(alphabet) - 1)];
		e.exe_names_ptr = rnd_ptr(w, exe);
		e.exe_names_size = chance(&w->r, 8) ? rnd_u32(&w->r) & 0xfff :
				   rn(&w->r, sizeof(exe) + 1);
		if (e.exe_names_ptr == (uintptr_t)exe &&
		    e.exe_names_size > sizeof(exe))
			e.exe_names_size = sizeof(exe);
	}
	if (chance(&w->r, 5)) {
		/* Name blocks: few names, NULs and separators among noise. */
		static const char alphabet[] = "AB\0\0b";
		char *p = (char *)&names + ETW_EVENT_NAME_FILTER_NAMES;

		memset(&names, 0, sizeof(names));
		names.f.level = (__u8)rn(&w->r, 6);
		names.f.match_any = rnd(&w->r) & 0x3;
		names.f.filter_in = (__u8)rn(&w->r, 3);
		names.f.name_count = (__u16)rn(&w->r, 5);
		for (i = 0; i < 64; i++)
			p[i] = alphabet[rn(&w->r, sizeof(alphabet) - 1)];
		if (chance(&w->r, 2)) {
			e.names_ptr = rnd_ptr(w, &names);
			e.names_size = rn(&w->r, sizeof(names) + 1);
		} else {
			e.stack_names_ptr = rnd_ptr(w, &names);
			e.stack_names_size = rn(&w->r, sizeof(names) + 1);
		}
	}
	if (chance(&w->r, 5))
		fuzz_payload_filter(w, &e, &pf);
	/* Waits for acknowledgements; nobody acknowledges in time here. */
	e.timeout_ms = chance(&w->r, 16) ? rn(&w->r, 20) : 0;
	mutate(w, &e, sizeof(e));
	if (e.timeout_ms > 50)
		e.timeout_ms = 50;
	ioctl(pick_fd(w), ETW_IOC_ENABLE, arg_ptr(w, &e));
}

static void op_set_disallow(struct worker *w)
{
	struct etw_guid g[66];
	struct etw_disallow_args d = { .size = sizeof(d),
		.logger_id = pick_sid(w), .count = rn(&w->r, 67),
		.guids_ptr = (uintptr_t)g };
	__u32 i;

	for (i = 0; i < 66; i++)
		g[i] = fuzz_guid(&w->r);
	if (chance(&w->r, 8))
		d.guids_ptr = rnd_ptr(w, g);
	mutate(w, &d, sizeof(d));
	if (d.guids_ptr == (uintptr_t)g && d.count > 66)
		d.count = 66;
	ioctl(pick_fd(w), ETW_IOC_SET_DISALLOW, arg_ptr(w, &d));
}

static void op_get_disallow(struct worker *w)
{
	struct etw_guid g[ETW_MAX_DISALLOW];
	struct etw_disallow_args d = { .size = sizeof(d),
		.logger_id = pick_sid(w),
		.count = rn(&w->r, ETW_MAX_DISALLOW + 2),
		.guids_ptr = (uintptr_t)g };

	if (chance(&w->r, 8))
		d.guids_ptr = rnd_ptr(w, g);
	mutate_keeping_ptr(w, &d, sizeof(d), &d.guids_ptr);
	if (d.guids_ptr == (uintptr_t)g && d.count > ETW_MAX_DISALLOW)
		d.count = ETW_MAX_DISALLOW;
	ioctl(pick_fd(w), ETW_IOC_GET_DISALLOW, arg_ptr(w, &d));
}

/* The kernel logger's sampling interval: queried or set, any source. */
static void op_profile_interval(struct worker *w)
{
	struct etw_profile_interval_args a = { .size = sizeof(a),
		.flags = rn(&w->r, 2) ? ETW_PROFILE_INTERVAL_SET : 0,
		.source = chance(&w->r, 4) ? rnd_u32(&w->r) : 0,
		.interval = rnd_u32(&w->r) };

	mutate(w, &a, sizeof(a));
	ioctl(pick_fd(w), ETW_IOC_PROFILE_INTERVAL, arg_ptr(w, &a));
}

/* A kernel logger's stack list, set or got, of any session. */
static void op_stack_events(struct worker *w)
{
	struct etw_classic_event_id ids[ETW_MAX_STACK_EVENTS] = {
		{ .guid = { 0xce1dbfb4, 0x137e, 0x4da6,
			    { 0x87, 0xb0, 0x3f, 0x59, 0xaa, 0x10, 0x2c, 0xbc } },
		  .type = 46 } };
	struct etw_stack_events_args a = { .size = sizeof(a),
		.flags = rn(&w->r, 2) ? ETW_STACK_EVENTS_SET : 0,
		.logger_id = pick_sid(w),
		.count = rn(&w->r, 4) ? rn(&w->r, 3) : rnd_u32(&w->r),
		.ids_ptr = (uintptr_t)ids };

	if (chance(&w->r, 8))
		a.ids_ptr = rnd_ptr(w, ids);
	/* The kernel refuses a count above what @ids holds. */
	mutate_keeping_ptr(w, &a, sizeof(a), &a.ids_ptr);
	ioctl(pick_fd(w), ETW_IOC_STACK_EVENTS, arg_ptr(w, &a));
}

static void op_consume(struct worker *w)
{
	struct etw_consume_args c = { .size = sizeof(c),
		.logger_id = pick_sid(w), .flags = O_NONBLOCK |
		(chance(&w->r, 2) ? O_CLOEXEC : 0) };
	int fd;

	mutate(w, &c, sizeof(c));
	c.flags |= O_NONBLOCK;	/* a blocking read would hang the worker */
	fd = ioctl(pick_fd(w), ETW_IOC_CONSUME, arg_ptr(w, &c));
	if (fd >= 0)
		put_fd(w, pool.cfds, NCFD, fd);
}

static void op_read(struct worker *w, bool consumer)
{
	static const size_t lens[] = { 0, 1, 64, 4095, 4096, 8192, 65536 };
	size_t len = lens[rn(&w->r, 7)];
	int fd = consumer ? pick_cfd(w) : pick_fd(w);
	void *p = arg_ptr(w, w->buf);

	if (fd <= 2)	/* never stdin: it might block */
		return;
	if (p == w->buf && len > sizeof(w->buf))
		len = sizeof(w->buf);
	if (read(fd, p, len) > 0 && !consumer && chance(&w->r, 2)) {
		raw_ack(fd, ((struct etw_notification *)w->buf)->seq);
	}
}

static void op_consumer_stats(struct worker *w)
{
	struct etw_consumer_stats_args st = { .size = sizeof(st) };

	ioctl(pick_cfd(w), ETW_IOC_CONSUMER_STATS, arg_ptr(w, &st));
}

static void op_poll(struct worker *w)
{
	struct pollfd p[4];
	int i;

	for (i = 0; i < 4; i++) {
		p[i].fd = i & 1 ? pick_cfd(w) : pick_fd(w);
		p[i].events = POLLIN | (chance(&w->r, 4) ? POLLOUT : 0);
	}
	poll(p, 4, chance(&w->r, 4) ? 1 : 0);
}

static void op_mmap(struct worker *w)
{
	static const size_t lens[] = { 4096, 8192, 32768, 36864, 1 << 20, 0 };
	size_t len = lens[rn(&w->r, 6)];
	int prot = chance(&w->r, 8) ? PROT_READ | PROT_WRITE : PROT_READ;
	int flags = chance(&w->r, 8) ? MAP_PRIVATE : MAP_SHARED;
	off_t off = chance(&w->r, 8) ? 4096 * rn(&w->r, 4) : 0;
	int slot = rn(&w->r, NMAP);
	void *m, *old;
	size_t old_len;

	m = mmap(NULL, len, prot, flags, pick_fd(w), off);
	if (m != MAP_FAILED) {
		volatile const struct etw_enable_state *e = m;
		__u32 i, v = 0;

		for (i = 0; i < 4; i++)
			v += e[rn(&w->r, 128)].enabled;
		if (chance(&w->r, 8))
			mprotect(m, len, PROT_READ | PROT_WRITE);
		(void)v;
	}
	/*
	 * The mapping and its length change together: unmapping another
	 * thread's length would unmap whatever lies next to the old
	 * mapping (a thread's stack, say).
	 */
	pthread_mutex_lock(&pool.map_lock);
	old = pool.maps[slot];
	old_len = pool.map_len[slot];
	pool.maps[slot] = m == MAP_FAILED ? NULL : m;
	pool.map_len[slot] = len;
	pthread_mutex_unlock(&pool.map_lock);
	if (old)
		munmap(old, old_len ? old_len : 4096);
}

/* --- staging rings: open, map (also another's), stage, drain -------------- */

static void op_batch_open(struct worker *w)
{
	struct etw_batch_args a = {
		.size = sizeof(a), .flags = chance(&w->r, 2) ? O_CLOEXEC : 0,
		.ring_size = chance(&w->r, 2) ? 0 : 4096u << rn(&w->r, 10),
		.clock = rn(&w->r, 3),
	};
	int fd;

	mutate(w, &a, sizeof(a));
	fd = ioctl(pick_fd(w), ETW_IOC_BATCH_OPEN, arg_ptr(w, &a));
	if (fd >= 0)
		put_fd(w, pool.rfds, NRING, fd);
}

/*
 * Map a ring file of the pool: one another thread opened, or, in a fork
 * child or an exec'd image, one inherited from another program image.
 */
static void op_batch_map(struct worker *w)
{
	size_t len = 4096 + (chance(&w->r, 4) ? 4096u << rn(&w->r, 10) :
			     ETW_BATCH_DEFAULT_RING);
	int slot = rn(&w->r, NRING), fd = pool.rfds[slot];
	void *m, *old;
	size_t old_len;

	m = mmap(NULL, len, PROT_READ | PROT_WRITE,
		 chance(&w->r, 16) ? MAP_PRIVATE : MAP_SHARED, fd, 0);
	if (m == MAP_FAILED)
		return;
	if (chance(&w->r, 4))
		madvise(m, len, chance(&w->r, 2) ? MADV_DOFORK : MADV_DONTFORK);
	pthread_mutex_lock(&pool.map_lock);
	old = pool.rmaps[slot];
	old_len = pool.rmap_len[slot];
	pool.rmaps[slot] = m;
	pool.rmap_len[slot] = len;
	pthread_mutex_unlock(&pool.map_lock);
	if (old)
		munmap(old, old_len);
}

/* What op_batch_stage() last wrote to, for fault_report(). */
static __thread struct {
	const void *ctl;
	__u32 size;
	__u32 off;
	__u64 head;
} stage_seen;

/* Publish records, well-formed or not, in a mapped ring; then drain. */
static void op_batch_stage(struct worker *w)
{
	int slot = rn(&w->r, NRING), i, n = 1 + rn(&w->r, 8);
	struct etw_batch_ctl *ctl;
	__u32 size;
	char *ring;

	pthread_mutex_lock(&pool.map_lock);
	ctl = pool.rmaps[slot];
	size = pool.rmap_len[slot] - 4096;
	ring = (char *)ctl + 4096;
	for (i = 0; ctl && i < n; i++) {
		struct etw_staged_event se = { .size = 80 + 8 * rn(&w->r, 16),
					       .reg_id = pick_reg(w).id,
					       .timestamp = rnd(&w->r) };
		__u64 head = ctl->head;
		/*
		 * A head published at random (below) need not be a multiple
		 * of 8: this thread's own stores stay inside the ring.
		 */
		__u32 off = head & (size - 1) & ~7u;

		stage_seen.ctl = ctl;
		stage_seen.size = size;
		stage_seen.off = off;
		stage_seen.head = head;

		if (chance(&w->r, 8))
			rnd_bytes(&w->r, &se, sizeof(se));
		if (size - off < 80 + 8 * 16) {
			*(__u32 *)(ring + off) = ETW_STAGED_WRAP;
			head += size - off;
			off = 0;
		}
		memcpy(ring + off, &se, sizeof(se));
		__atomic_store_n(&ctl->head, chance(&w->r, 32) ? rnd(&w->r) :
				 head + RAW_ALIGN8(se.size), __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&pool.map_lock);
	ioctl(pool.rfds[rn(&w->r, NRING)], ETW_IOC_BATCH_DRAIN);
}

/* FLUSH or STOP of a global session by id or name: EPERM when unprivileged. */
static void op_session_foreign(struct worker *w)
{
	struct etw_session_args a;

	raw_session_init(&a, 1 + rn(&w->r, ETW_MAX_GLOBAL_SESSIONS));
	if (chance(&w->r, 2))
		session_name(w, a.name);
	ioctl(pick_fd(w), chance(&w->r, 4) ? ETW_IOC_STOP : ETW_IOC_FLUSH, &a);
}

static void op_get_info(struct worker *w)
{
	struct etw_info i = { .size = sizeof(i) };

	mutate(w, &i, sizeof(i));
	ioctl(pick_fd(w), ETW_IOC_GET_INFO, arg_ptr(w, &i));
}

/* Any command number of the magic, any size, random bytes. */
static void op_garbage_ioctl(struct worker *w)
{
	unsigned long cmd;
	__u8 *arg = (__u8 *)w->buf;

	rnd_bytes(&w->r, arg, 256);
	if (chance(&w->r, 2))
		*(__u32 *)arg = rn(&w->r, 300);
	cmd = _IOC(rn(&w->r, 4), ETW_IOC_MAGIC, rn(&w->r, 0x32),
		   rn(&w->r, 2) ? rn(&w->r, 1200) : rnd_u32(&w->r) & 0x3fff);
	if (chance(&w->r, 8))
		cmd = rnd_u32(&w->r);
	ioctl(pick_fd(w), cmd, arg_ptr(w, arg));
}

static void run_ops(struct worker *w, int n);

/* A child that inherits every file: its writes under the parent's ids fail. */
static void op_fork(struct worker *w)
{
	pid_t pid;

	if (w->child)
		return;
	pid = fork();
	if (!pid) {
		w->child = true;
		/*
		 * Forget the parent's mappings: a ring's (VM_DONTCOPY, also
		 * one op_mmap() made of a ring file) is a hole here that a
		 * later mmap() may fill, and unmapping it by the old entry
		 * would unmap what this child mapped since.  The lock may
		 * have been held by another thread at fork().
		 */
		memset(pool.maps, 0, sizeof(pool.maps));
		memset(pool.rmaps, 0, sizeof(pool.rmaps));
		pthread_mutex_init(&pool.map_lock, NULL);
		run_ops(w, 10);
		_exit(0);
	}
	if (pid > 0)
		waitpid(pid, NULL, 0);
}

/* A child that keeps some files across execve() of this program. */
static void op_exec(struct worker *w)
{
	char env[64];
	pid_t pid;

	if (w->child)
		return;
	snprintf(env, sizeof(env), "%llu", (unsigned long long)rnd(&w->r));
	pid = fork();
	if (!pid) {
		int i;

		for (i = 0; i < NFD; i++)
			if (pool.fds[i] >= 0)
				fcntl(pool.fds[i], F_SETFD, 0);
		for (i = 0; i < NCFD; i++)
			if (pool.cfds[i] >= 0 && chance(&w->r, 2))
				fcntl(pool.cfds[i], F_SETFD, 0);
		for (i = 0; i < NRING; i++)
			if (pool.rfds[i] >= 0 && chance(&w->r, 2))
				fcntl(pool.rfds[i], F_SETFD, 0);
		setenv(EXEC_ENV, env, 1);
		execl("/proc/self/exe", "fuzz_test", NULL);
		_exit(127);
	}
	if (pid > 0)
		waitpid(pid, NULL, 0);
}

static void run_op(struct worker *w, int op)
{
	switch (op) {
	case 0: op_open(w); break;
	case 1: op_close(w); break;
	case 2: op_start(w); break;
	case 3: op_session(w, ETW_IOC_STOP); break;
	case 4: op_session(w, ETW_IOC_QUERY); break;
	case 5: op_session(w, ETW_IOC_UPDATE); break;
	case 6: op_session(w, ETW_IOC_FLUSH); break;
	case 7: op_list_sessions(w); break;
	case 8: op_register(w); break;
	case 9: op_unregister(w); break;
	case 10: op_set_traits(w); break;
	case 11: case 12: op_write(w); break;
	case 13: op_ack(w); break;
	case 14: op_list_providers(w); break;
	case 15: op_enable(w); break;
	case 16: op_set_disallow(w); break;
	case 17: op_consume(w); break;
	case 18: op_read(w, true); break;
	case 19: op_consumer_stats(w); break;
	case 20: op_read(w, false); break;
	case 21: op_poll(w); break;
	case 22: op_mmap(w); break;
	case 23: op_get_info(w); break;
	case 24: op_garbage_ioctl(w); break;
	case 25: if (chance(&w->r, 8)) op_fork(w); break;
	case 26: if (chance(&w->r, 16)) op_exec(w); break;
	case 27: op_get_disallow(w); break;
	case 28: op_batch_open(w); break;
	case 29: op_batch_map(w); break;
	case 30: op_batch_stage(w); break;
	case 31: op_session_foreign(w); break;
	case 32: op_profile_interval(w); break;
	case 33: op_stack_events(w); break;
	}
}

static void run_ops(struct worker *w, int n)
{
	while (n-- && !shm->stop) {
		int op = rn(&w->r, NOPS);

		run_op(w, op);
		if (!w->child) {
			__atomic_add_fetch(&shm->execs[pool.unpriv], 1,
					   __ATOMIC_RELAXED);
			__atomic_add_fetch(&shm->ops[pool.unpriv][op], 1,
					   __ATOMIC_RELAXED);
		}
	}
}

static void *thread_main(void *arg)
{
	struct worker *w = arg;

	while (!shm->stop)
		run_ops(w, 64);
	return NULL;
}

/*
 * A fault in the fuzzer itself (a worker dies of it): say where, what the
 * last staging wrote to and what was mapped, then die of the signal.
 */
static void fault_report(int sig, siginfo_t *si, void *uc)
{
	char line[256];
	ssize_t n;
	int fd;

	(void)uc;
	n = snprintf(line, sizeof(line),
		     "# fuzz: pid %d: signal %d at %p; last stage: ctl %p size %u off %u head %llu\n",
		     getpid(), sig, si->si_addr, stage_seen.ctl, stage_seen.size,
		     stage_seen.off, (unsigned long long)stage_seen.head);
	if (n > (ssize_t)sizeof(line) - 1)
		n = sizeof(line) - 1;
	if (write(1, line, n) != n)
		_exit(128 + sig);
	fd = open("/proc/self/maps", O_RDONLY);
	while (fd >= 0 && (n = read(fd, line, sizeof(line))) > 0)
		if (write(1, line, n) != n)
			break;
	raise(sig);
}

static void fault_report_init(void)
{
	struct sigaction sa = { .sa_sigaction = fault_report,
				.sa_flags = SA_SIGINFO | SA_RESETHAND };

	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGBUS, &sa, NULL);
}

/* A worker process: threads fuzzing one pool of files and ids. */
static void worker_main(int unpriv, __u64 seed, int nthreads)
{
	static struct worker ws[MAX_THREADS];
	pthread_t t[MAX_THREADS];
	int i;

	/* Nothing but stdio and the fuzzed files below 1024. */
	for (i = 3; i < 1024; i++)
		close(i);
	if (unpriv && (setgroups(0, NULL) ||
		       setresgid(USER_UID, USER_UID, USER_UID) ||
		       setresuid(USER_UID, USER_UID, USER_UID) ||
		       prctl(PR_SET_DUMPABLE, 1, 0, 0, 0)))
		_exit(101);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	fault_report_init();
	for (i = 0; i < NFD; i++)
		pool.fds[i] = -1;
	for (i = 0; i < NCFD; i++)
		pool.cfds[i] = -1;
	for (i = 0; i < NRING; i++)
		pool.rfds[i] = -1;
	memset(pool.sids, 0, sizeof(pool.sids));
	memset(pool.regs, 0, sizeof(pool.regs));
	pool.unpriv = unpriv;
	pool.bad_page = map_bad_page();
	for (i = 0; i < 3; i++)
		pool.fds[i] = open(ETW_DEV, O_RDWR | O_NONBLOCK);
	for (i = 0; i < nthreads; i++) {
		ws[i].r.s = seed ^ (0x9e3779b97f4a7c15ull * (2 * i + unpriv + 1));
		if (!ws[i].r.s)
			ws[i].r.s = 1;
		ws[i].idx = i;
		if (nthreads == 1)
			break;
		pthread_create(&t[i], NULL, thread_main, &ws[i]);
	}
	if (nthreads == 1)
		thread_main(&ws[0]);
	else
		for (i = 0; i < nthreads; i++)
			pthread_join(t[i], NULL);
	_exit(0);
}

/* The exec'd image: a few operations on the files it inherited. */
__attribute__((constructor)) static void exec_main(void)
{
	static struct worker w;
	const char *v = getenv(EXEC_ENV);
	int fd, n = 0, m = 0, r = 0, i;

	if (!v)
		return;
	w.r.s = strtoull(v, NULL, 10) | 1;
	w.child = true;
	for (i = 0; i < NFD; i++)
		pool.fds[i] = -1;
	for (i = 0; i < NCFD; i++)
		pool.cfds[i] = -1;
	for (i = 0; i < NRING; i++)
		pool.rfds[i] = -1;
	/* Only etw files: a pipe the harness left open could block a read. */
	for (fd = 3; fd < 256; fd++) {
		char path[32], target[64] = "";

		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		if (readlink(path, target, sizeof(target) - 1) < 0)
			continue;
		if (!strcmp(target, ETW_DEV) && n < NFD)
			pool.fds[n++] = fd;
		else if (strstr(target, "etw-consumer") && m < NCFD)
			pool.cfds[m++] = fd;
		else if (strstr(target, "etw-batch") && r < NRING)
			pool.rfds[r++] = fd;
	}
	for (i = 0; i < NSID; i++)
		pool.sids[i] = 1 + rn(&w.r, 80);
	for (i = 0; i < NREG; i++)
		pool.regs[i] = (struct reg){ pool.fds[rn(&w.r, NFD)],
					     1 + rn(&w.r, 8) };
	pool.bad_page = map_bad_page();
	shm = calloc(1, sizeof(*shm));
	run_ops(&w, 30);
	_exit(0);
}

/* --- kernel reports in /dev/kmsg ---------------------------------------------- */

static const char *const report_patterns[] = {
	"BUG:", "WARNING:", "KASAN", "UBSAN", "kmemleak", "unreferenced object",
	"possible circular locking", "possible recursive locking",
	"inconsistent lock state", "lockdep", "Oops", "general protection",
	"INFO: task", "RCU stall", "rcu_sched self-detected", "list_add corruption",
	"list_del corruption", "refcount_t", "Kernel panic",
};

static int kmsg_open(void)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd >= 0)
		lseek(fd, 0, SEEK_END);
	return fd;
}

/* Kernel report lines since kmsg_open(); printed. */
static int kmsg_reports(int fd)
{
	char rec[8192];
	ssize_t r;
	int n = 0;
	unsigned int i;

	if (fd < 0)
		return 0;
	while ((r = read(fd, rec, sizeof(rec) - 1)) != 0) {
		if (r < 0) {
			if (errno == EPIPE)	/* overwritten: keep reading */
				continue;
			break;
		}
		rec[r] = 0;
		for (i = 0; i < sizeof(report_patterns) / sizeof(*report_patterns); i++)
			if (strstr(rec, report_patterns[i])) {
				printf("# fuzz: kernel report: %s", strchr(rec, ';') ? strchr(rec, ';') + 1 : rec);
				n++;
				break;
			}
	}
	close(fd);
	return n;
}

/* --- the run ------------------------------------------------------------------- */

/* The sessions alive before the run, by id and name: not the fuzzer's. */
static struct {
	__u32 n;
	__u32 ids[80];
	char names[80][ETW_MAX_NAME_LEN + 1];
} before;

/* The sessions listed now, each queried: the count, or -1. */
static int list_sessions(int fd, __u32 *ids, char (*names)[ETW_MAX_NAME_LEN + 1])
{
	struct etw_list_args l = { .size = sizeof(l), .count = 80,
				   .ids_ptr = (uintptr_t)ids };
	struct etw_session_args a;
	__u32 i, n = 0;

	if (etw_ioctl(fd, ETW_IOC_LIST_SESSIONS, &l))
		return -1;
	for (i = 0; i < l.count && i < 80; i++) {
		if (raw_session_op(fd, ETW_IOC_QUERY, ids[i], &a))
			continue;	/* stopped in between */
		ids[n] = ids[i];
		memcpy(names[n++], a.name, sizeof(a.name));
	}
	return n;
}

static void note_sessions_before(void)
{
	int fd = etw_open(), n = fd < 0 ? -1 : list_sessions(fd, before.ids,
							     before.names);

	before.n = n < 0 ? 0 : n;
	if (fd >= 0)
		close(fd);
}

static bool was_there_before(__u32 id, const char *name)
{
	__u32 i;

	for (i = 0; i < before.n; i++)
		if (before.ids[i] == id && !strcmp(before.names[i], name))
			return true;
	return false;
}

/* Is @name one session_name() makes, "fz<k>-<main_pid>"? */
static bool fuzz_named(const char *name)
{
	char own[32];

	snprintf(own, sizeof(own), "-%d", main_pid);
	return !strncmp(name, "fz", 2) && strchr(name, '-') &&
	       !strcmp(strchr(name, '-'), own);
}

/* The sampling interval the workers set is the system's: back to 1 ms. */
static void restore_profile_interval(void)
{
	struct etw_profile_interval_args a = { .size = sizeof(a),
		.flags = ETW_PROFILE_INTERVAL_SET,
		.interval = ETW_PROFILE_INTERVAL_DEFAULT };
	int fd = etw_open();

	if (fd < 0)
		return;
	etw_ioctl(fd, ETW_IOC_PROFILE_INTERVAL, &a);
	close(fd);
}

/*
 * Stop every session the fuzzer left running, whatever its name (mutated
 * arguments start sessions under any name), counting them in *@stopped
 * and those under a name not its own in *@foreign; how many remain after.
 */
static int stop_leftovers(int *stopped, int *foreign)
{
	static char names[80][ETW_MAX_NAME_LEN + 1];
	int fd = etw_open(), left = 0, pass, n, i;
	__u32 ids[80];

	if (fd < 0)
		return -1;
	for (pass = 0; pass < 2; pass++) {
		left = 0;
		n = list_sessions(fd, ids, names);
		for (i = 0; i < n; i++) {
			if (was_there_before(ids[i], names[i]))
				continue;
			left++;
			if (pass)
				continue;
			raw_session_op(fd, ETW_IOC_STOP, ids[i], NULL);
			(*stopped)++;
			*foreign += !fuzz_named(names[i]);
		}
	}
	close(fd);
	return left;
}

/* Registrations of the fuzzed GUIDs still listed (their files are closed). */
static int leftover_registrations(void)
{
	static struct etw_provider_info info[1024];
	struct etw_list_providers_args l = { .size = sizeof(l), .count = 1024,
					     .info_ptr = (uintptr_t)info,
					     .info_size = sizeof(info[0]) };
	int fd = etw_open(), n = 0;
	__u32 i;

	if (fd < 0 || etw_ioctl(fd, ETW_IOC_LIST_PROVIDERS, &l))
		return -1;
	for (i = 0; i < l.count && i < 1024; i++)
		if (info[i].guid.data1 == FUZZ_FAMILY)
			n++;
	close(fd);
	return n;
}

struct fuzz_result {
	unsigned long execs;
	double seconds;
	int reports;
	int sessions_left;
	int sessions_stopped;	/* left running by the workers */
	int sessions_foreign;	/* of those, under names it did not choose */
	int regs_left;
	int workers_failed;
};

static void fuzz_run(__u64 seed, int seconds, int nthreads,
		     struct fuzz_result *res)
{
	struct timespec t0, t1;
	pid_t pids[2];
	int i, kmsg = kmsg_open();

	memset(res, 0, sizeof(*res));
	main_pid = getpid();
	note_sessions_before();
	shm = mmap(NULL, sizeof(*shm), PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	printf("# fuzz: seed=%llu seconds=%d threads=%d per worker (root and uid %d)\n",
	       (unsigned long long)seed, seconds, nthreads, USER_UID);
	fflush(stdout);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < 2; i++) {
		pids[i] = fork();
		if (!pids[i])
			worker_main(i, seed, nthreads);
	}
	sleep(seconds);
	shm->stop = 1;
	for (i = 0; i < 2; i++) {
		int status, waited;

		/* ENABLE's waits are bounded; give them ten seconds. */
		for (waited = 0; waited < 100; waited++) {
			if (waitpid(pids[i], &status, WNOHANG) == pids[i])
				break;
			raw_sleep_ms(100);
		}
		if (waited == 100) {
			printf("# fuzz: worker %d did not stop: killed\n", i);
			kill(pids[i], SIGKILL);
			waitpid(pids[i], &status, 0);
			res->workers_failed++;
		} else if (!WIFEXITED(status) || WEXITSTATUS(status)) {
			printf("# fuzz: worker %d ended with status 0x%x\n", i,
			       status);
			res->workers_failed++;
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	res->seconds = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	res->execs = shm->execs[0] + shm->execs[1];
	res->sessions_left = stop_leftovers(&res->sessions_stopped,
					    &res->sessions_foreign);
	res->regs_left = leftover_registrations();
	restore_profile_interval();
	/* The last consumers closed: sessions are freed; reports are out. */
	raw_sleep_ms(200);
	res->reports = kmsg_reports(kmsg);
	printf("# fuzz: seed=%llu executions=%lu (root %lu, uid %d %lu) seconds=%.1f "
	       "kernel-reports=%d sessions-left=%d registrations-left=%d\n",
	       (unsigned long long)seed, res->execs, shm->execs[0], USER_UID,
	       shm->execs[1], res->seconds, res->reports, res->sessions_left,
	       res->regs_left);
	printf("# fuzz: sessions the workers left running, stopped: %d (%d under names not of the form fz<k>-<pid>)\n",
	       res->sessions_stopped, res->sessions_foreign);
	printf("# fuzz: operations (root/uid %d):", USER_UID);
	for (i = 0; i < NOPS; i++)
		printf(" %d:%lu/%lu", i, shm->ops[0][i], shm->ops[1][i]);
	printf("\n");
	fflush(stdout);
	munmap(shm, sizeof(*shm));
}

static __u64 env_u64(const char *name, __u64 def)
{
	const char *v = getenv(name);

	return v && *v ? strtoull(v, NULL, 0) : def;
}

static __u64 default_seed(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ((__u64)ts.tv_sec << 20) ^ ts.tv_nsec ^ getpid();
}

/*
 * Found by this fuzzer (seed 1882826145866807, make check): traits that
 * name the registration's own GUID as its provider group.  Unregistering
 * such a registration (UNREGISTER, or closing the file) freed the GUID's
 * entry at the group's put and then used it: KASAN slab-use-after-free in
 * etw_gentry_is_classic() (classic registrations) and etw_gentry_put(),
 * then a general protection fault with etw_mutex held.
 */
static int own_guid_group(bool classic, bool by_close)
{
	struct etw_guid g = { .data1 = FUZZ_FAMILY, .data2 = 0x4711,
			      .data3 = (__u16)getpid(), .data4 = { 'o', 'w', 'n' } };
	__u8 blob[64];
	struct etw_traits_args t = { .size = sizeof(t),
				     .traits_ptr = (uintptr_t)blob };
	__u16 len = 2;
	int fd = etw_open(), ret;
	__u32 reg;

	if (fd < 0)
		return -errno;
	len += sprintf((char *)blob + 2, "OwnGroup") + 1;
	blob[len] = 3 + sizeof(g);
	blob[len + 1] = 0;
	blob[len + 2] = 1;		/* the group trait */
	memcpy(blob + len + 3, &g, sizeof(g));
	len += 3 + sizeof(g);
	blob[0] = len & 0xff;
	blob[1] = len >> 8;
	t.traits_len = len;
	ret = raw_register(fd, &g, classic ? ETW_REGISTER_CLASSIC : 0, 0, &reg,
			   NULL);
	if (!ret) {
		t.reg_id = reg;
		ret = etw_ioctl(fd, ETW_IOC_SET_TRAITS, &t);
	}
	if (!ret && !by_close)
		ret = raw_unregister(fd, reg);
	close(fd);
	return ret;
}

TEST(own_guid_as_group_unregisters_cleanly)
{
	int kmsg = kmsg_open();

	EXPECT_EQ(0, own_guid_group(false, false));
	EXPECT_EQ(0, own_guid_group(false, true));
	EXPECT_EQ(0, own_guid_group(true, false));
	EXPECT_EQ(0, own_guid_group(true, true));
	EXPECT_EQ(0, kmsg_reports(kmsg));
	EXPECT_EQ(0, leftover_registrations());
}

FIXTURE(fuzz) {};
FIXTURE_SETUP(fuzz) {}
FIXTURE_TEARDOWN(fuzz) {}

/* ETW_FUZZ_SECONDS (default 60, at most 240), ETW_FUZZ_SEED, ETW_FUZZ_THREADS. */
TEST_F_TIMEOUT(fuzz, ioctl_mmap_read_poll_fork_exec_close, 300)
{
	int seconds = (int)env_u64("ETW_FUZZ_SECONDS", 60);
	int threads = (int)env_u64("ETW_FUZZ_THREADS", 3);
	struct fuzz_result res;

	if (seconds > 240)
		seconds = 240;
	if (threads < 1 || threads > MAX_THREADS)
		threads = 3;
	fuzz_run(env_u64("ETW_FUZZ_SEED", default_seed()), seconds, threads,
		 &res);
	EXPECT_EQ(0, res.reports);
	EXPECT_EQ(0, res.sessions_left);
	EXPECT_EQ(0, res.regs_left);
	EXPECT_EQ(0, res.workers_failed);
	EXPECT_LT(0, res.execs);
}

/* "--seconds N [--seed S] [--threads T]": the fuzzer alone, any length. */
int main(int argc, char **argv)
{
	__u64 seed = default_seed();
	int seconds = -1, threads = 3, i;
	struct fuzz_result res;

	for (i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--seconds"))
			seconds = atoi(argv[i + 1]);
		else if (!strcmp(argv[i], "--seed"))
			seed = strtoull(argv[i + 1], NULL, 0);
		else if (!strcmp(argv[i], "--threads"))
			threads = atoi(argv[i + 1]);
		else
			break;
	}
	if (seconds < 0)
		return test_harness_run(argc, argv);
	if (threads < 1 || threads > MAX_THREADS)
		threads = 3;
	fuzz_run(seed, seconds, threads, &res);
	return res.reports || res.sessions_left || res.regs_left ||
	       res.workers_failed || !res.execs;
}
