// SPDX-License-Identifier: GPL-2.0
/*
 * cmd_providers.c: "etwctl providers": every provider registration, its
 * process and its combined enable state (ETW_IOC_LIST_PROVIDERS; libetw
 * has no Windows API for this), and resolving provider names.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "etwctl.h"
#include "etw_lib.h"

static const char etwctl_providers_usage[] =
"usage: etwctl providers\n"
"Print every registered provider: GUID, process, group, enable state\n"
"(level, MatchAnyKeyword, MatchAllKeyword), the name from its traits and\n"
"the sessions it logs to.\n";

/*
 * All registrations, a page (ETW_LIST_PROVIDERS_MAX entries at most) per
 * call; *out is malloc'ed.  Registrations may come and go meanwhile.
 */
static int etwctl_list_providers(struct etw_provider_info **out,
				 uint32_t *count)
{
	struct etw_list_providers_args a;
	struct etw_provider_info *v = NULL, *nv;
	uint32_t have = 0, cap = 0;
	int ret;

	for (;;) {
		memset(&a, 0, sizeof(a));
		a.size = sizeof(a);
		a.count = cap - have;
		a.info_ptr = v ? (uintptr_t)(v + have) : 0;
		a.info_size = sizeof(*v);
		a.start = have;
		ret = etw_dev_ioctl(ETW_IOC_LIST_PROVIDERS, &a);
		if (ret)
			break;
		have += a.count;
		if (have >= a.total || (!a.count && cap > have))
			break;
		if (have == cap) {
			/* Room for those seen plus some registering meanwhile. */
			cap = a.total + 16;
			nv = realloc(v, cap * sizeof(*v));
			if (!nv) {
				ret = -ENOMEM;
				break;
			}
			v = nv;
		}
	}
	if (ret) {
		free(v);
		return ret;
	}
	*out = v;
	*count = have;
	return 0;
}

/**
 * etwctl_provider_resolve - the GUID a provider spec stands for
 * @spec: a parsed spec
 * @guid: out: the GUID
 *
 * A plain name is first looked up among the names registered providers
 * gave in their traits, then as TraceLogging and EventSource providers
 * name themselves: the name-hash GUID, which must be registered.
 *
 * Return: 0, -ENOENT when no provider with that name is registered, or
 * another negative errno.
 */
int etwctl_provider_resolve(const struct etwctl_provider_spec *spec,
			    GUID *guid)
{
	struct etw_provider_info *v;
	uint32_t n, i;
	int ret;

	if (spec->has_guid) {
		*guid = spec->guid;
		return 0;
	}
	ret = etwctl_list_providers(&v, &n);
	if (ret)
		return ret;
	ret = -ENOENT;
	for (i = 0; i < n && ret; i++) {
		if (!strcmp(v[i].name, spec->name)) {
			memcpy(guid, &v[i].guid, sizeof(*guid));
			ret = 0;
		}
	}
	if (ret && !EtwProviderGuidFromName(spec->name, guid))
		for (i = 0; i < n && ret; i++)
			if (!memcmp(&v[i].guid, guid, sizeof(*guid)))
				ret = 0;
	free(v);
	return ret;
}

static void etwctl_print_sessions(uint64_t mask)
{
	bool any = false;
	int i;

	for (i = 0; i < 64; i++) {
		if (!(mask & (1ull << i)))
			continue;
		printf("%s%d", any ? "," : "", i + 1);
		any = true;
	}
	printf("%s\n", any ? "" : "-");
}

static void etwctl_print_provider(const struct etw_provider_info *p)
{
	static const struct etw_guid zero;
	char g[ETWCTL_GUID_LEN], grp[ETWCTL_GUID_LEN] = "-";

	etwctl_guid_format((const GUID *)&p->guid, g);
	if (memcmp(&p->group, &zero, sizeof(zero)))
		etwctl_guid_format((const GUID *)&p->group, grp);
	printf("%s %7u %-7s %-36s %-3s %3u 0x%016llx 0x%016llx ", g, p->pid,
	       p->flags & ETW_REGISTER_CLASSIC ? "classic" : "modern", grp,
	       p->enabled ? "yes" : "no", p->level,
	       (unsigned long long)p->match_any,
	       (unsigned long long)p->match_all);
	printf("%-20s ", p->name[0] ? p->name : "-");
	etwctl_print_sessions(p->session_mask);
}

/**
 * etwctl_cmd_providers - "etwctl providers"
 * @argc: argument count
 * @argv: arguments
 *
 * Return: exit status.
 */
int etwctl_cmd_providers(int argc, char **argv)
{
	static const struct option options[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct etw_provider_info *v;
	uint32_t n, i;
	int c, ret;

	etwctl_getopt_reset();
	while ((c = getopt_long(argc, argv, ":h", options, NULL)) != -1) {
		if (c == 'h')
			return etwctl_help(etwctl_providers_usage);
		return etwctl_bad_option("providers", c, argv);
	}
	if (optind != argc)
		return etwctl_usage("providers", "unexpected argument '%s'",
				    argv[optind]);
	ret = etwctl_need_device("providers");
	if (ret)
		return ret;
	ret = etwctl_list_providers(&v, &n);
	if (ret)
		return etwctl_fail("providers", "%s", strerror(-ret));
	printf("%-36s %7s %-7s %-36s %-3s %3s %-18s %-18s %-20s %s\n",
	       "provider", "pid", "type", "group", "on", "lvl", "match_any",
	       "match_all", "name", "sessions");
	for (i = 0; i < n; i++)
		etwctl_print_provider(&v[i]);
	free(v);
	return 0;
}
