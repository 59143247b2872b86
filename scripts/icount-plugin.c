// SPDX-License-Identifier: GPL-2.0
/*
 * icount-plugin: a QEMU TCG plugin that counts the guest instructions run
 * between two markers, for `make bench` (Documentation/performance.rst).
 *
 * A marker is a translation block that holds ETW_ICOUNT_MARKER, a NOP no
 * compiler emits; a guest program runs one before and after a loop of
 * operations.  For every such pair the plugin appends one line to its
 * output file:
 *
 *   <user instructions> <kernel instructions>
 *
 * summed over every vCPU, so the guest should run one vCPU.  With
 * blocks=N it also lists the N blocks that ran the most instructions
 * (start address, length, instructions), to find them in System.map or
 * /proc/kallsyms.
 *
 * Options: out=FILE (required), blocks=N.
 *
 * Instruction counts do not depend on the host, its load or TCG's
 * translation: they are the figures that compare paths exactly, where
 * times under TCG move by 20% between runs.  QEMU's plugin API is a
 * stable C ABI (version 1 since QEMU 4.2); the few declarations used are
 * repeated here, so the plugin builds without QEMU's source tree.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef uint64_t qemu_plugin_id_t;

typedef struct {
	const char *target_name;
	struct {
		int min;
		int cur;
	} version;
	bool system_emulation;
	union {
		struct {
			int smp_vcpus;
			int max_vcpus;
		} system;
	};
} qemu_info_t;

struct qemu_plugin_tb;
struct qemu_plugin_insn;

enum { QEMU_PLUGIN_CB_NO_REGS };

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id,
		void (*cb)(qemu_plugin_id_t id, struct qemu_plugin_tb *tb));
void qemu_plugin_register_vcpu_tb_exec_cb(struct qemu_plugin_tb *tb,
		void (*cb)(unsigned int vcpu, void *data), int flags,
		void *data);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb,
						 size_t idx);
const void *qemu_plugin_insn_data(const struct qemu_plugin_insn *insn);
size_t qemu_plugin_insn_size(const struct qemu_plugin_insn *insn);

__attribute__((visibility("default"))) int qemu_plugin_version = 1;

/* nopl 0x4b4d5445(%rax): "ETMK", the bytes the guest's marker starts with */
static const uint8_t ETW_ICOUNT_MARKER[] = {
	0x0f, 0x1f, 0x80, 0x45, 0x54, 0x4d, 0x4b,
};

#define X86_KERNEL_START	0xffff800000000000ull
#define BLOCK_TABLE_SIZE	(1u << 20)	/* a power of two */

/* One translated block, keyed by start address and length. */
struct icount_block {
	uint64_t vaddr;
	uint64_t insns;
	uint64_t ran;		/* instructions run since the last marker */
	bool marker;
};

static struct icount_block *blocks[BLOCK_TABLE_SIZE];
static FILE *out;
static unsigned int top_blocks;
static bool counting;
static uint64_t user_insns, kernel_insns;

static struct icount_block *icount_block_get(uint64_t vaddr, uint64_t insns)
{
	uint32_t h = (uint32_t)((vaddr * 0x9e3779b97f4a7c15ull) >> 40) ^ insns;

	for (;; h++) {
		struct icount_block **slot = &blocks[h & (BLOCK_TABLE_SIZE - 1)];

		if (!*slot) {
			*slot = calloc(1, sizeof(**slot));
			if (!*slot) {
				perror("icount-plugin");
				exit(1);
			}
			(*slot)->vaddr = vaddr;
			(*slot)->insns = insns;
			return *slot;
		}
		if ((*slot)->vaddr == vaddr && (*slot)->insns == insns)
			return *slot;
	}
}

static int icount_block_cmp(const void *a, const void *b)
{
	const struct icount_block *x = *(struct icount_block *const *)a;
	const struct icount_block *y = *(struct icount_block *const *)b;

	return x->ran < y->ran ? 1 : x->ran > y->ran ? -1 : 0;
}

static void icount_report(void)
{
	static struct icount_block *hot[BLOCK_TABLE_SIZE];
	unsigned int i, n = 0;

	fprintf(out, "%llu %llu\n", (unsigned long long)user_insns,
		(unsigned long long)kernel_insns);
	for (i = 0; i < BLOCK_TABLE_SIZE; i++) {
		if (blocks[i] && blocks[i]->ran)
			hot[n++] = blocks[i];
	}
	if (top_blocks) {
		qsort(hot, n, sizeof(hot[0]), icount_block_cmp);
		for (i = 0; i < n && i < top_blocks; i++)
			fprintf(out, "# %016llx %3llu %llu\n",
				(unsigned long long)hot[i]->vaddr,
				(unsigned long long)hot[i]->insns,
				(unsigned long long)hot[i]->ran);
	}
	for (i = 0; i < n; i++)
		hot[i]->ran = 0;
	fflush(out);
}

static void icount_block_ran(unsigned int vcpu, void *data)
{
	struct icount_block *b = data;

	if (b->marker) {
		counting = !counting;
		if (counting)
			user_insns = kernel_insns = 0;
		else
			icount_report();
		return;
	}
	if (!counting)
		return;
	b->ran += b->insns;
	if (b->vaddr >= X86_KERNEL_START)
		kernel_insns += b->insns;
	else
		user_insns += b->insns;
}

static bool icount_is_marker(const struct qemu_plugin_tb *tb)
{
	size_t i, n = qemu_plugin_tb_n_insns(tb);

	for (i = 0; i < n; i++) {
		const struct qemu_plugin_insn *insn =
			qemu_plugin_tb_get_insn(tb, i);

		if (qemu_plugin_insn_size(insn) == sizeof(ETW_ICOUNT_MARKER) &&
		    !memcmp(qemu_plugin_insn_data(insn), ETW_ICOUNT_MARKER,
			    sizeof(ETW_ICOUNT_MARKER)))
			return true;
	}
	return false;
}

static void icount_translated(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	struct icount_block *b = icount_block_get(qemu_plugin_tb_vaddr(tb),
						  qemu_plugin_tb_n_insns(tb));

	b->marker = icount_is_marker(tb);
	qemu_plugin_register_vcpu_tb_exec_cb(tb, icount_block_ran,
					     QEMU_PLUGIN_CB_NO_REGS, b);
}

__attribute__((visibility("default")))
int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
			int argc, char **argv)
{
	int i;

	for (i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "out=", 4)) {
			out = fopen(argv[i] + 4, "w");
			if (!out) {
				perror(argv[i] + 4);
				return 1;
			}
		} else if (!strncmp(argv[i], "blocks=", 7)) {
			top_blocks = strtoul(argv[i] + 7, NULL, 0);
		} else {
			fprintf(stderr, "icount-plugin: unknown option %s\n",
				argv[i]);
			return 1;
		}
	}
	if (!out) {
		fprintf(stderr, "icount-plugin: out=FILE is required\n");
		return 1;
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, icount_translated);
	return 0;
}
