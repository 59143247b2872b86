// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * etw_tdh_path.c: the manifests TDH finds by itself, as Windows TDH finds
 * the manifests registered on the system.  They are the files and the
 * directories' *.man files named by ETW_MANIFEST_PATH (colon-separated),
 * then the *.man files of the installed directory ETW_MANIFEST_DIR
 * ($(PREFIX)/share/etw/manifests), read once, on the first TDH call that
 * needs a schema, and kept for the life of the process.
 *
 * A directory's files are read in alphabetical order; when two describe
 * the same provider, the first found wins.  A missing entry and a bad
 * manifest are skipped: the Win32 caller that triggered the read asked
 * for something else and cannot be told.  With ETW_MANIFEST_DEBUG set,
 * what happens to each file goes to stderr.  Both variables are ignored
 * in set-user-ID and set-group-ID programs (secure_getenv).
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "etw_tdh_manifest.h"

#ifndef ETW_MANIFEST_DIR
#error "ETW_MANIFEST_DIR: the Makefile passes $(PREFIX)/share/etw/manifests"
#endif

/* The list being built: first found first. */
struct etw_mfp {
	struct etw_manifest *head, **tail;
	FILE *diag;		/* stderr with ETW_MANIFEST_DEBUG, else NULL */
};

static pthread_once_t etw_mfp_once = PTHREAD_ONCE_INIT;
static struct etw_manifest *etw_mfp_found;

static bool etw_mfp_seen(const struct etw_mfp *f, const char *real)
{
	const struct etw_manifest *m;

	for (m = f->head; m; m = m->next)
		if (!strcmp(m->path, real))
			return true;
	return false;
}

/* Reads manifest @path onto the list; a bad one is only told about. */
static void etw_mfp_file(struct etw_mfp *f, const char *path)
{
	struct etw_manifest *m;
	char *real = realpath(path, NULL);
	ULONG ret;

	if (!real) {
		if (f->diag)
			fprintf(f->diag, "libetw: %s: %s\n", path,
				strerror(errno));
		return;
	}
	/* One file reached twice (a directory named twice) is read once. */
	if (etw_mfp_seen(f, real)) {
		free(real);
		return;
	}
	ret = etw_manifest_parse(real, NULL, 0, f->diag, &m);
	if (ret) {
		if (f->diag)
			fprintf(f->diag, "libetw: %s: skipped (error %lu)\n",
				real, (unsigned long)ret);
		free(real);
		return;
	}
	if (f->diag)
		fprintf(f->diag, "libetw: %s: %u provider(s)\n", real,
			m->nprov);
	m->path = real;
	*f->tail = m;
	f->tail = &m->next;
}

static int etw_mfp_is_man(const struct dirent *d)
{
	size_t n = strlen(d->d_name);

	return n > 4 && !strcmp(d->d_name + n - 4, ".man");
}

/* The *.man files of directory @dir, in alphabetical order. */
static void etw_mfp_dir(struct etw_mfp *f, const char *dir)
{
	struct dirent **names;
	char path[PATH_MAX];
	struct stat st;
	int i, n = scandir(dir, &names, etw_mfp_is_man, alphasort);

	if (n < 0) {
		if (f->diag)
			fprintf(f->diag, "libetw: %s: %s\n", dir,
				strerror(errno));
		return;
	}
	for (i = 0; i < n; i++) {
		if (snprintf(path, sizeof(path), "%s/%s", dir,
			     names[i]->d_name) < (int)sizeof(path) &&
		    !stat(path, &st) && S_ISREG(st.st_mode))
			etw_mfp_file(f, path);
		free(names[i]);
	}
	free(names);
}

/* One entry of the path: a directory, or a file of any name. */
static void etw_mfp_entry(struct etw_mfp *f, const char *entry)
{
	struct stat st;

	if (!stat(entry, &st) && S_ISDIR(st.st_mode))
		etw_mfp_dir(f, entry);
	else
		etw_mfp_file(f, entry);
}

static void etw_mfp_path(struct etw_mfp *f, const char *path)
{
	char *copy = strdup(path), *entry, *save;

	if (!copy)
		return;
	/* strtok_r skips empty entries ("a::b", a trailing colon). */
	for (entry = strtok_r(copy, ":", &save); entry;
	     entry = strtok_r(NULL, ":", &save))
		etw_mfp_entry(f, entry);
	free(copy);
}

static void etw_mfp_load(void)
{
	struct etw_mfp f = { .tail = &f.head };
	const char *path = secure_getenv("ETW_MANIFEST_PATH");
	const char *debug = secure_getenv("ETW_MANIFEST_DEBUG");
	struct stat st;

	if (debug && *debug)
		f.diag = stderr;
	if (path)
		etw_mfp_path(&f, path);
	/* The installed directory need not exist. */
	if (!stat(ETW_MANIFEST_DIR, &st))
		etw_mfp_dir(&f, ETW_MANIFEST_DIR);
	else if (f.diag)
		fprintf(f.diag, "libetw: %s: %s\n", ETW_MANIFEST_DIR,
			strerror(errno));
	etw_mfp_found = f.head;
}

/**
 * etw_manifest_found - the manifests found on the manifest path
 *
 * Reads them on the first call; later calls, in any thread, return the
 * same list, which is never changed or freed.
 *
 * Context: any thread.
 * Return: the first manifest of the list (linked by next), or NULL.
 */
const struct etw_manifest *etw_manifest_found(void)
{
	pthread_once(&etw_mfp_once, etw_mfp_load);
	return etw_mfp_found;
}
