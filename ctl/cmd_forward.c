// SPDX-License-Identifier: GPL-2.0
/*
 * cmd_forward.c: "etwctl forward": ship a session's events, or an ETL
 * file's, to systemd-journal-remote, one journal entry per event, in
 * batches POSTed to URL/upload (Journal Export Format, libcurl).
 *
 * Nothing is dropped quietly.  A batch the collector does not take goes
 * to a bounded spool on disk and is retried, oldest first, with
 * exponential backoff; while the spool is not empty new batches queue
 * behind it, so the journal gets the events in order.  A file can wait:
 * with the spool full, forwarding a file pauses until the collector takes
 * the spool.  A live session cannot (its buffers would overflow in the
 * kernel): a batch that does not fit is dropped, counted and reported.
 * A later run with the same spool sends what is left first; the spool
 * records its collector, and a run to another collector is refused while
 * the spool holds batches for the first.
 */
#include <curl/curl.h>
#include <dlfcn.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "etwctl.h"

/*
 * libcurl, loaded by forward alone: linked into etwctl, it and its TLS
 * stack made every command spend about 15 M instructions in the dynamic
 * loader before main().  One thread, loaded once.
 */
static struct {
	__typeof__(curl_global_init) *global_init;
	__typeof__(curl_global_cleanup) *global_cleanup;
	__typeof__(curl_easy_init) *easy_init;
	__typeof__(curl_easy_setopt) *easy_setopt;
	__typeof__(curl_easy_perform) *easy_perform;
	__typeof__(curl_easy_getinfo) *easy_getinfo;
	__typeof__(curl_easy_strerror) *easy_strerror;
	__typeof__(curl_easy_cleanup) *easy_cleanup;
	__typeof__(curl_slist_append) *slist_append;
	__typeof__(curl_slist_free_all) *slist_free_all;
} etwctl_curl;

#define ETWCTL_CURL_SYM(n)	{ "curl_" #n, offsetof(typeof(etwctl_curl), n) }

static int etwctl_curl_load(void)
{
	static const struct {
		const char *name;
		size_t off;
	} syms[] = {
		ETWCTL_CURL_SYM(global_init),
		ETWCTL_CURL_SYM(global_cleanup),
		ETWCTL_CURL_SYM(easy_init),
		ETWCTL_CURL_SYM(easy_setopt),
		ETWCTL_CURL_SYM(easy_perform),
		ETWCTL_CURL_SYM(easy_getinfo),
		ETWCTL_CURL_SYM(easy_strerror),
		ETWCTL_CURL_SYM(easy_cleanup),
		ETWCTL_CURL_SYM(slist_append),
		ETWCTL_CURL_SYM(slist_free_all),
	};
	void *lib = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
	void *fn;
	size_t i;

	if (!lib)
		return etwctl_fail("forward", "cannot load libcurl: %s",
				   dlerror());
	for (i = 0; i < sizeof(syms) / sizeof(syms[0]); i++) {
		fn = dlsym(lib, syms[i].name);
		if (!fn)
			return etwctl_fail("forward", "libcurl has no %s",
					   syms[i].name);
		memcpy((char *)&etwctl_curl + syms[i].off, &fn, sizeof(fn));
	}
	return 0;
}

#define ETWCTL_FWD_MAX_FILES	64
/* A batch is sent at this size even if it has fewer events. */
#define ETWCTL_FWD_BATCH_BYTES	(4u << 20)
#define ETWCTL_FWD_BACKOFF_MIN	250

static const char etwctl_forward_usage[] =
"usage: etwctl forward [options] SESSION --to URL\n"
"       etwctl forward [options] --from FILE.etl... --to URL\n"
"Send the events of a running session (until it stops or Ctrl-C), or of\n"
"ETL files, to systemd-journal-remote: one journal entry per event,\n"
"POSTed in batches to URL/upload.  Batches the collector does not take\n"
"are spooled on disk and retried; a later run to the same collector\n"
"sends them first.\n"
"      --to URL          the collector, http://HOST:19532 or https://...\n"
"      --from FILE       an ETL file (repeat for more; merged in time order)\n"
"      --cafile FILE     CA certificates to check an https collector with\n"
"      --cert FILE       client certificate (PEM) for https\n"
"      --key FILE        its private key (PEM)\n"
"      --unix-socket P   connect to the UNIX socket P (a socket-activated\n"
"                        collector) instead of URL's host\n"
"      --spool DIR       spool directory (default /var/spool/etw/forward\n"
"                        for root, else $XDG_STATE_HOME/etw/forward)\n"
"      --spool-max BYTES most bytes spooled (default 256 MiB, least 8 MiB)\n"
"      --batch N         events per request (default 1000)\n"
"      --flush-ms MS     send a partial batch of a session after MS\n"
"                        milliseconds (default 1000)\n"
"      --backoff-max MS  longest wait between retries (default 30000)\n"
"      --give-up S       at the end of the input, stop retrying after S\n"
"                        seconds, leaving the rest spooled (default: never)\n"
"      --stats           print what was sent, and the rate, at the end\n"
"Exit status 1 when events were dropped or rejected, or are left in the\n"
"spool; 3 when the spool holds batches for another collector (or one it\n"
"does not record), which are then left as they are.\n";

enum {
	OPT_TO = 0x100,
	OPT_FROM,
	OPT_CAFILE,
	OPT_CERT,
	OPT_KEY,
	OPT_UNIX_SOCKET,
	OPT_SPOOL,
	OPT_SPOOL_MAX,
	OPT_BATCH,
	OPT_FLUSH_MS,
	OPT_BACKOFF_MAX,
	OPT_GIVE_UP,
	OPT_STATS,
};

static const struct option etwctl_forward_options[] = {
	{ "help", no_argument, NULL, 'h' },
	{ "to", required_argument, NULL, OPT_TO },
	{ "from", required_argument, NULL, OPT_FROM },
	{ "cafile", required_argument, NULL, OPT_CAFILE },
	{ "cert", required_argument, NULL, OPT_CERT },
	{ "key", required_argument, NULL, OPT_KEY },
	{ "unix-socket", required_argument, NULL, OPT_UNIX_SOCKET },
	{ "spool", required_argument, NULL, OPT_SPOOL },
	{ "spool-max", required_argument, NULL, OPT_SPOOL_MAX },
	{ "batch", required_argument, NULL, OPT_BATCH },
	{ "flush-ms", required_argument, NULL, OPT_FLUSH_MS },
	{ "backoff-max", required_argument, NULL, OPT_BACKOFF_MAX },
	{ "give-up", required_argument, NULL, OPT_GIVE_UP },
	{ "stats", no_argument, NULL, OPT_STATS },
	{ NULL, 0, NULL, 0 }
};

struct etwctl_fwd_opts {
	const char *session;
	char *files[ETWCTL_FWD_MAX_FILES];
	unsigned int nfiles;
	const char *to;
	const char *cafile;
	const char *cert;
	const char *key;
	const char *unix_socket;
	const char *spool;
	uint64_t spool_max;
	uint64_t batch;
	uint64_t flush_ms;
	uint64_t backoff_max;
	uint64_t give_up;
	bool stats;
};

/*
 * @label: ETW_SESSION of every entry
 * @batch, @batch_n, @batch_t0: the batch being filled, its events and when
 *	its first event came (ms)
 * @retry: spooled batch being resent
 * @backoff, @next_try: current retry delay and when the collector may be
 *	tried again (ms); 0 while it takes what it is sent
 * @down: the collector's failure was reported (once per outage)
 * @sent, @dropped, @rejected, @bad: events delivered, not spooled for
 *	want of room, refused by the collector (4xx), unreadable records
 */
struct etwctl_fwd {
	const struct etwctl_fwd_opts *o;
	bool live;
	char label[256];
	char *url;
	CURL *curl;
	struct curl_slist *headers;
	char curl_err[CURL_ERROR_SIZE];
	struct etwctl_spool *spool;
	const char *spool_dir;
	struct etwctl_jbuf batch;
	uint32_t batch_n;
	uint64_t batch_t0;
	struct etwctl_jbuf retry;
	uint64_t backoff;
	uint64_t next_try;
	bool down;
	uint64_t sent;
	uint64_t dropped;
	uint64_t rejected;
	unsigned int bad;
};

/* Set by SIGINT/SIGTERM. */
static volatile sig_atomic_t etwctl_fwd_stop;

static void etwctl_fwd_signal(int sig)
{
	if (sig != SIGALRM)
		etwctl_fwd_stop = 1;
}

static uint64_t etwctl_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* SIGALRM every @ms (live sessions): the blocked read returns EINTR. */
static void etwctl_fwd_signals(uint64_t alarm_ms)
{
	struct sigaction sa = { .sa_handler = etwctl_fwd_signal };
	struct itimerval it = { { 0, 0 }, { 0, 0 } };

	/* No SA_RESTART: reads and sleeps must return. */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	if (!alarm_ms)
		return;
	sigaction(SIGALRM, &sa, NULL);
	it.it_interval.tv_sec = (time_t)(alarm_ms / 1000);
	it.it_interval.tv_usec = (suseconds_t)(alarm_ms % 1000) * 1000;
	it.it_value = it.it_interval;
	setitimer(ITIMER_REAL, &it, NULL);
}

static void etwctl_fwd_alarm_off(void)
{
	struct itimerval it = { { 0, 0 }, { 0, 0 } };

	setitimer(ITIMER_REAL, &it, NULL);
}

static size_t etwctl_fwd_discard(char *p, size_t size, size_t n, void *ctx)
{
	return size * n;
}

/* URL/upload, unless --to ends with it: where the batches are POSTed. */
static int etwctl_fwd_url(struct etwctl_fwd *f)
{
	const char *to = f->o->to;
	size_t len = strlen(to);

	while (len && to[len - 1] == '/')
		len--;
	if (asprintf(&f->url, "%.*s%s", (int)len, to,
		     len >= 7 && !strncmp(to + len - 7, "/upload", 7) ?
		     "" : "/upload") < 0) {
		f->url = NULL;
		return -ENOMEM;
	}
	return 0;
}

static int etwctl_fwd_curl(struct etwctl_fwd *f)
{
	const struct etwctl_fwd_opts *o = f->o;
	CURL *c;

	c = etwctl_curl.easy_init();
	f->curl = c;
	f->headers = etwctl_curl.slist_append(NULL, "Content-Type: "
				       "application/vnd.fdo.journal");
	/* No "Expect: 100-continue" round trip before each batch. */
	if (f->headers)
		f->headers = etwctl_curl.slist_append(f->headers, "Expect:");
	if (!c || !f->headers)
		return -ENOMEM;
	etwctl_curl.easy_setopt(c, CURLOPT_URL, f->url);
	etwctl_curl.easy_setopt(c, CURLOPT_HTTPHEADER, f->headers);
	etwctl_curl.easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	etwctl_curl.easy_setopt(c, CURLOPT_ERRORBUFFER, f->curl_err);
	etwctl_curl.easy_setopt(c, CURLOPT_WRITEFUNCTION, etwctl_fwd_discard);
	etwctl_curl.easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, 5000L);
	/* A collector that stops reading counts as down. */
	etwctl_curl.easy_setopt(c, CURLOPT_LOW_SPEED_LIMIT, 1L);
	etwctl_curl.easy_setopt(c, CURLOPT_LOW_SPEED_TIME, 30L);
	if (o->cafile)
		etwctl_curl.easy_setopt(c, CURLOPT_CAINFO, o->cafile);
	if (o->cert)
		etwctl_curl.easy_setopt(c, CURLOPT_SSLCERT, o->cert);
	if (o->key)
		etwctl_curl.easy_setopt(c, CURLOPT_SSLKEY, o->key);
	if (o->unix_socket)
		etwctl_curl.easy_setopt(c, CURLOPT_UNIX_SOCKET_PATH, o->unix_socket);
	return 0;
}

/*
 * POST one batch.  Return: 0 taken, -EBADMSG refused for its content (a
 * 4xx other than 408 and 429: resending would not help), -EAGAIN not
 * taken now (no connection, a timeout, a 5xx).
 */
static int etwctl_fwd_post(struct etwctl_fwd *f, const char *data,
			   size_t len)
{
	long code = 0;
	CURLcode res;

	f->curl_err[0] = 0;
	etwctl_curl.easy_setopt(f->curl, CURLOPT_POSTFIELDS, data);
	etwctl_curl.easy_setopt(f->curl, CURLOPT_POSTFIELDSIZE_LARGE,
			 (curl_off_t)len);
	res = etwctl_curl.easy_perform(f->curl);
	if (res != CURLE_OK) {
		if (!f->down)
			etwctl_fail("forward", "%s: %s; spooling in %s",
				    f->url, *f->curl_err ? f->curl_err :
				    etwctl_curl.easy_strerror(res), f->spool_dir);
		f->down = true;
		return -EAGAIN;
	}
	etwctl_curl.easy_getinfo(f->curl, CURLINFO_RESPONSE_CODE, &code);
	if (code >= 200 && code < 300) {
		if (f->down)
			etwctl_fail("forward", "%s: taking events again",
				    f->url);
		f->down = false;
		return 0;
	}
	if (code >= 400 && code < 500 && code != 408 && code != 429) {
		etwctl_fail("forward", "%s: HTTP %ld: batch refused", f->url,
			    code);
		return -EBADMSG;
	}
	if (!f->down)
		etwctl_fail("forward", "%s: HTTP %ld; spooling in %s", f->url,
			    code, f->spool_dir);
	f->down = true;
	return -EAGAIN;
}

static void etwctl_fwd_failed(struct etwctl_fwd *f)
{
	f->backoff = f->backoff ? f->backoff * 2 : ETWCTL_FWD_BACKOFF_MIN;
	if (f->backoff > f->o->backoff_max)
		f->backoff = f->o->backoff_max;
	f->next_try = etwctl_now_ms() + f->backoff;
}

/* The collector answered: the next failure starts the backoff afresh. */
static void etwctl_fwd_ok(struct etwctl_fwd *f)
{
	f->backoff = 0;
	f->next_try = 0;
}

static bool etwctl_fwd_may_try(const struct etwctl_fwd *f)
{
	return !f->next_try || etwctl_now_ms() >= f->next_try;
}

/*
 * Send spooled batches, oldest first, while the collector takes them.
 * Return: 0, or a negative errno when the spool cannot be read.
 */
static int etwctl_fwd_drain(struct etwctl_fwd *f)
{
	uint32_t events;
	int ret;

	while (etwctl_spool_batches(f->spool) && etwctl_fwd_may_try(f)) {
		ret = etwctl_spool_peek(f->spool, &f->retry, &events);
		if (ret < 0)
			return etwctl_fail("forward", "spool %s: %s",
					   f->spool_dir, strerror(-ret));
		ret = etwctl_fwd_post(f, f->retry.data, f->retry.len);
		if (ret == -EAGAIN) {
			etwctl_fwd_failed(f);
			break;
		}
		etwctl_fwd_ok(f);
		if (ret)
			f->rejected += events;
		else
			f->sent += events;
		ret = etwctl_spool_pop(f->spool);
		if (ret)
			return etwctl_fail("forward", "spool %s: %s",
					   f->spool_dir, strerror(-ret));
	}
	return 0;
}

/*
 * Wait, retrying the collector, until the spool has room for @len more
 * bytes.  A batch always fits into an empty spool (--spool-max is at least
 * two batches).
 */
static int etwctl_fwd_spool_wait(struct etwctl_fwd *f, size_t len)
{
	bool said = false;
	struct timespec ts;
	uint64_t now;
	int ret;

	for (;;) {
		ret = etwctl_spool_put(f->spool, f->batch.data, len,
				       f->batch_n);
		if (ret != -ENOSPC || etwctl_fwd_stop)
			return ret;
		if (!said)
			etwctl_fail("forward", "spool %s full: waiting for "
				    "the collector", f->spool_dir);
		said = true;
		now = etwctl_now_ms();
		if (now < f->next_try) {
			ts.tv_sec = (time_t)((f->next_try - now) / 1000);
			ts.tv_nsec = (long)((f->next_try - now) % 1000) *
				     1000000;
			nanosleep(&ts, NULL);
			continue;
		}
		ret = etwctl_fwd_drain(f);
		if (ret)
			return -EIO;
	}
}

/* Spool the batch; what does not fit is counted and reported. */
static void etwctl_fwd_spool(struct etwctl_fwd *f)
{
	int ret;

	if (f->live)
		ret = etwctl_spool_put(f->spool, f->batch.data, f->batch.len,
				       f->batch_n);
	else
		ret = etwctl_fwd_spool_wait(f, f->batch.len);
	if (!ret)
		return;
	f->dropped += f->batch_n;
	if (ret == -ENOSPC)
		etwctl_fail("forward", "spool %s full (%" PRIu64
			    " bytes): %" PRIu32 " events dropped",
			    f->spool_dir, f->o->spool_max, f->batch_n);
	else
		etwctl_fail("forward", "spool %s: %s: %" PRIu32
			    " events dropped", f->spool_dir, strerror(-ret),
			    f->batch_n);
}

/* The batch is complete: send it, or spool it behind the others. */
static int etwctl_fwd_flush(struct etwctl_fwd *f)
{
	int ret = -EAGAIN;

	if (!f->batch_n)
		return 0;
	if (!etwctl_spool_batches(f->spool) && etwctl_fwd_may_try(f)) {
		ret = etwctl_fwd_post(f, f->batch.data, f->batch.len);
		if (ret == -EAGAIN)
			etwctl_fwd_failed(f);
		else
			etwctl_fwd_ok(f);
	}
	if (!ret)
		f->sent += f->batch_n;
	else if (ret == -EBADMSG)
		f->rejected += f->batch_n;
	else
		etwctl_fwd_spool(f);
	f->batch.len = 0;
	f->batch_n = 0;
	return etwctl_fwd_drain(f);
}

static int etwctl_fwd_event(struct etwctl_fwd *f,
			    const struct etw_etl_event *ev)
{
	if (etwctl_journal_entry(&f->batch, ev, f->label))
		return etwctl_fail("forward", "out of memory");
	if (!f->batch_n++)
		f->batch_t0 = etwctl_now_ms();
	if (f->batch_n >= f->o->batch || f->batch.len >= ETWCTL_FWD_BATCH_BYTES)
		return etwctl_fwd_flush(f);
	return 0;
}

/* A session's partial batch waits at most --flush-ms. */
static int etwctl_fwd_tick(struct etwctl_fwd *f)
{
	if (f->batch_n && etwctl_now_ms() - f->batch_t0 >= f->o->flush_ms)
		return etwctl_fwd_flush(f);
	return etwctl_fwd_drain(f);
}

static int etwctl_fwd_read(struct etwctl_fwd *f, struct etwctl_source *src)
{
	struct etw_etl_event ev;
	int ret;

	while (!etwctl_fwd_stop && (ret = etwctl_source_next(src, &ev))) {
		if (ret == -EINTR) {
			ret = etwctl_fwd_tick(f);
		} else if (ret == -EBADMSG || ret == -EOPNOTSUPP) {
			/* Corrupt data is passed over, as dump does. */
			f->bad++;
			continue;
		} else if (ret < 0) {
			return etwctl_fail("forward", "%s",
					   etwctl_errno_str(ret));
		} else if (etwctl_event_is_metadata(&ev)) {
			continue;
		} else {
			ret = etwctl_fwd_event(f, &ev);
			if (!ret && f->live)
				ret = etwctl_fwd_tick(f);
		}
		if (ret)
			return ret;
	}
	return 0;
}

/* At the end of the input: retry the spool until empty, or give up. */
static int etwctl_fwd_finish(struct etwctl_fwd *f)
{
	uint64_t deadline = f->o->give_up ?
			    etwctl_now_ms() + f->o->give_up * 1000 : 0;
	struct timespec ts;
	uint64_t now;
	int ret;

	ret = etwctl_fwd_flush(f);
	while (!ret && !etwctl_fwd_stop && etwctl_spool_batches(f->spool)) {
		now = etwctl_now_ms();
		if (deadline && now >= deadline)
			break;
		if (now < f->next_try) {
			ts.tv_sec = 0;
			ts.tv_nsec = 100000000;
			nanosleep(&ts, NULL);
			continue;
		}
		ret = etwctl_fwd_drain(f);
	}
	return ret;
}

static int etwctl_fwd_report(struct etwctl_fwd *f, uint64_t t0, int status)
{
	uint64_t ms = etwctl_now_ms() - t0;
	uint64_t left = etwctl_spool_events(f->spool);

	if (f->o->stats || f->dropped || f->rejected || left)
		fprintf(stderr, "etwctl forward: %" PRIu64 " events sent in "
			"%" PRIu64 ".%03" PRIu64 " s (%" PRIu64 " events/s), "
			"%" PRIu64 " left in the spool, %" PRIu64
			" dropped, %" PRIu64 " refused\n", f->sent,
			ms / 1000, ms % 1000, ms ? f->sent * 1000 / ms : 0,
			left, f->dropped, f->rejected);
	if (f->bad)
		status = etwctl_fail("forward", "%u corrupt or unreadable "
				     "buffers or records skipped", f->bad);
	if (f->dropped || f->rejected || left)
		status = ETWCTL_EXIT_RUNTIME;
	return status;
}

static int etwctl_fwd_open(struct etwctl_fwd *f, struct etwctl_source **src)
{
	const struct etwctl_fwd_opts *o = f->o;
	struct etw_etl_reader *r;
	const char *bad;
	int ret;

	if (f->live) {
		snprintf(f->label, sizeof(f->label), "%s", o->session);
		ret = etwctl_need_device("forward");
		if (ret)
			return ret;
		ret = etwctl_source_open_session(o->session, true, src);
		if (ret == -ENOENT)
			return etwctl_fail("forward", "no session named '%s'",
					   o->session);
		if (ret)
			return etwctl_fail("forward", "session '%s': %s",
					   o->session, strerror(-ret));
		return 0;
	}
	ret = etwctl_source_open_files(o->files, o->nfiles, src, &bad);
	if (ret)
		return etwctl_fail("forward", "%s: %s", bad ? bad : o->files[0],
				   etwctl_errno_str(ret));
	/* The session that wrote the (first) file names its events. */
	if (!etw_etl_reader_open(o->files[0], &r)) {
		snprintf(f->label, sizeof(f->label), "%s",
			 etw_etl_reader_logger_name(r) ?: "");
		etw_etl_reader_close(r);
	}
	return 0;
}

static const char *etwctl_fwd_default_spool(char *buf, size_t size)
{
	const char *state = getenv("XDG_STATE_HOME");
	const char *home = getenv("HOME");

	if (!geteuid())
		return "/var/spool/etw/forward";
	if (state && *state)
		snprintf(buf, size, "%s/etw/forward", state);
	else if (home && *home)
		snprintf(buf, size, "%s/.local/state/etw/forward", home);
	else
		return NULL;
	return buf;
}

/*
 * Bind the spool to this run's collector.  The batches of another
 * collector stay where they are, for a run to it.
 */
static int etwctl_fwd_bind(struct etwctl_fwd *f)
{
	const struct etwctl_spool_dest dest = {
		.url = f->url,
		.unix_socket = f->o->unix_socket,
	};
	uint64_t n = etwctl_spool_events(f->spool);
	const char *sock = f->o->unix_socket;
	char *other;
	int ret;

	ret = etwctl_spool_bind(f->spool, &dest, &other);
	if (!ret)
		return 0;
	if (ret == -EXDEV)
		etwctl_fail("forward", "spool %s holds %" PRIu64 " events for "
			    "%s, not %s%s%s: forward them there, or use "
			    "another --spool", f->spool_dir, n, other, f->url,
			    sock ? " via " : "", sock ?: "");
	else if (ret == -ENOMSG)
		etwctl_fail("forward", "spool %s holds %" PRIu64 " events and "
			    "no record of their collector (%s/.destination): "
			    "write one, or use another --spool", f->spool_dir,
			    n, f->spool_dir);
	else if (ret == -EBADMSG)
		etwctl_fail("forward", "spool %s holds %" PRIu64 " events and "
			    "a corrupt record of their collector "
			    "(%s/.destination): rewrite it, or use another "
			    "--spool", f->spool_dir, n, f->spool_dir);
	else
		return etwctl_fail("forward", "spool %s: %s", f->spool_dir,
				   strerror(-ret));
	free(other);
	return ETWCTL_EXIT_OTHER_COLLECTOR;
}

static int etwctl_fwd_run(const struct etwctl_fwd_opts *o)
{
	struct etwctl_fwd f = { .o = o, .live = !!o->session };
	struct etwctl_source *src = NULL;
	char spool_buf[4096];
	uint64_t t0;
	int ret;

	ret = etwctl_curl_load();
	if (ret)
		return ret;
	f.spool_dir = o->spool ?: etwctl_fwd_default_spool(spool_buf,
							    sizeof(spool_buf));
	if (!f.spool_dir)
		return etwctl_usage("forward", "no --spool, and neither "
				    "XDG_STATE_HOME nor HOME is set");
	if (etwctl_fwd_url(&f))
		return etwctl_fail("forward", "out of memory");
	ret = etwctl_spool_open(f.spool_dir, o->spool_max, &f.spool);
	if (ret) {
		free(f.url);
		return etwctl_fail("forward", "spool %s: %s", f.spool_dir,
				   ret == -EBUSY ? "used by another forwarder"
						 : strerror(-ret));
	}
	ret = etwctl_fwd_bind(&f);
	if (ret) {
		etwctl_spool_close(f.spool);
		free(f.url);
		return ret;
	}
	if (etwctl_curl.global_init(CURL_GLOBAL_DEFAULT) || etwctl_fwd_curl(&f)) {
		ret = etwctl_fail("forward", "cannot set up libcurl");
		goto out;
	}
	ret = etwctl_fwd_open(&f, &src);
	if (ret)
		goto out;
	t0 = etwctl_now_ms();
	etwctl_fwd_signals(f.live ? (o->flush_ms + 1) / 2 : 0);
	/* What an earlier run left goes first. */
	ret = etwctl_fwd_drain(&f) ?: etwctl_fwd_read(&f, src);
	etwctl_fwd_alarm_off();
	if (!ret)
		ret = etwctl_fwd_finish(&f);
	else if (f.batch_n)
		etwctl_fwd_spool(&f);
	ret = etwctl_fwd_report(&f, t0, ret);
out:
	etwctl_source_close(src);
	etwctl_curl.slist_free_all(f.headers);
	if (f.curl)
		etwctl_curl.easy_cleanup(f.curl);
	etwctl_curl.global_cleanup();
	free(f.url);
	etwctl_jbuf_free(&f.batch);
	etwctl_jbuf_free(&f.retry);
	etwctl_spool_close(f.spool);
	return ret;
}

/* The spool records --to and --unix-socket as lines of text. */
static int etwctl_fwd_printable(const char *s)
{
	if (!*s)
		return -EINVAL;
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return -EINVAL;
	return 0;
}

static int etwctl_fwd_option(struct etwctl_fwd_opts *o, int c,
			     const char *arg)
{
	switch (c) {
	case OPT_TO:
		o->to = arg;
		return etwctl_fwd_printable(arg);
	case OPT_FROM:
		if (o->nfiles == ETWCTL_FWD_MAX_FILES)
			return -E2BIG;
		o->files[o->nfiles++] = (char *)arg;
		return 0;
	case OPT_CAFILE:
		o->cafile = arg;
		return 0;
	case OPT_CERT:
		o->cert = arg;
		return 0;
	case OPT_KEY:
		o->key = arg;
		return 0;
	case OPT_UNIX_SOCKET:
		o->unix_socket = arg;
		return etwctl_fwd_printable(arg);
	case OPT_SPOOL:
		o->spool = arg;
		return 0;
	case OPT_SPOOL_MAX:
		return etwctl_parse_u64(arg, ~0ull, &o->spool_max) ?:
		       (o->spool_max >= 2 * ETWCTL_FWD_BATCH_BYTES ? 0 : -ERANGE);
	case OPT_BATCH:
		return etwctl_parse_u64(arg, 1000000, &o->batch) ?:
		       (o->batch ? 0 : -ERANGE);
	case OPT_FLUSH_MS:
		return etwctl_parse_u64(arg, 3600000, &o->flush_ms) ?:
		       (o->flush_ms ? 0 : -ERANGE);
	case OPT_BACKOFF_MAX:
		return etwctl_parse_u64(arg, 3600000, &o->backoff_max) ?:
		       (o->backoff_max ? 0 : -ERANGE);
	case OPT_GIVE_UP:
		return etwctl_parse_u64(arg, 1000000000, &o->give_up);
	case OPT_STATS:
		o->stats = true;
		return 0;
	}
	return -EINVAL;
}

/**
 * etwctl_cmd_forward - "etwctl forward"
 * @argc: argument count, argv[0] is "forward"
 * @argv: arguments
 *
 * Return: exit status.
 */
int etwctl_cmd_forward(int argc, char **argv)
{
	struct etwctl_fwd_opts o = {
		.spool_max = 256ull << 20,
		.batch = 1000,
		.flush_ms = 1000,
		.backoff_max = 30000,
	};
	int c;

	etwctl_getopt_reset();
	while ((c = getopt_long(argc, argv, ":h", etwctl_forward_options,
				NULL)) != -1) {
		if (c == 'h')
			return etwctl_help(etwctl_forward_usage);
		if (c == '?' || c == ':')
			return etwctl_bad_option("forward", c, argv);
		if (etwctl_fwd_option(&o, c, optarg))
			return etwctl_usage("forward", "bad value '%s' for '%s'",
					    optarg, argv[optind - 1]);
	}
	argc -= optind;
	argv += optind;
	if (!o.to)
		return etwctl_usage("forward", "no --to URL");
	if (argc > 1 || (argc && o.nfiles))
		return etwctl_usage("forward",
				    "give one SESSION or --from files");
	if (!argc && !o.nfiles)
		return etwctl_usage("forward", "no SESSION or --from file");
	o.session = argc ? argv[0] : NULL;
	return etwctl_fwd_run(&o);
}
