/* SPDX-License-Identifier: LGPL-2.1-or-later OR MIT */
/*
 * in6addr.h - Windows' IPv6 address type, IN6_ADDR (16 bytes, network
 * order), as TDH_OUTTYPE_IPV6 fields and SOCKADDR_IN6 hold it.  Like
 * <winsock2.h>, it has glibc's name (struct in6_addr): a unit uses this
 * or <netinet/in.h>, not both.
 */
#ifndef _ETW_IN6ADDR_H
#define _ETW_IN6ADDR_H

#include <windows.h>

#if defined(_NETINET_IN_H)
#error "<in6addr.h> defines Windows' struct in6_addr: include it or glibc's <netinet/in.h>, not both"
#endif

typedef struct in6_addr {
	union {
		UCHAR Byte[16];
		USHORT Word[8];
	} u;
} IN6_ADDR, *PIN6_ADDR, *LPIN6_ADDR;

#define in_addr6	in6_addr
#define _S6_un		u
#define _S6_u8		Byte
#define s6_addr		_S6_un._S6_u8
#define s6_bytes	u.Byte
#define s6_words	u.Word

#endif /* _ETW_IN6ADDR_H */
