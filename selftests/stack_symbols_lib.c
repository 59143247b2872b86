// SPDX-License-Identifier: GPL-2.0
/*
 * The library stack_symbols_test dlopen()s: one frame of a known function
 * between the test's caller and its call chain.  Built with frame pointers
 * (Makefile), so that the kernel's walk passes through it.
 */

/**
 * stack_lib_call - call @fn(@id) from a frame of this library
 * @fn: the function to call
 * @id: its argument
 *
 * Return: what @fn returns.
 */
__attribute__((noipa))
unsigned long stack_lib_call(unsigned long (*fn)(unsigned short), unsigned short id)
{
	unsigned long ret = fn(id);

	/* Not a tail call: this frame stays on the stack. */
	__asm__ volatile("" ::: "memory");
	return ret;
}
