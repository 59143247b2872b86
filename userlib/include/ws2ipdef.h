/* SPDX-License-Identifier: LGPL-2.1-or-later OR MIT */
/*
 * ws2ipdef.h - Windows' IPv6 socket address, SOCKADDR_IN6 (28 bytes), and
 * SOCKADDR_INET, with the address types of <winsock2.h> and <in6addr.h>.
 */
#ifndef _WS2IPDEF_
#define _WS2IPDEF_

#include <winsock2.h>
#include <in6addr.h>

typedef union _SCOPE_ID {
	_ETW_NAMELESS struct {
		ULONG Zone : 28;
		ULONG Level : 4;
	} DUMMYSTRUCTNAME;
	ULONG Value;
} SCOPE_ID, *PSCOPE_ID;

typedef struct sockaddr_in6 {
	ADDRESS_FAMILY sin6_family;
	USHORT sin6_port;
	ULONG sin6_flowinfo;
	IN6_ADDR sin6_addr;
	_ETW_NAMELESS union {
		ULONG sin6_scope_id;
		SCOPE_ID sin6_scope_struct;
	} DUMMYUNIONNAME;
} SOCKADDR_IN6_LH, *PSOCKADDR_IN6_LH, *LPSOCKADDR_IN6_LH;

typedef SOCKADDR_IN6_LH	SOCKADDR_IN6, *PSOCKADDR_IN6, *LPSOCKADDR_IN6;

typedef union _SOCKADDR_INET {
	SOCKADDR_IN Ipv4;
	SOCKADDR_IN6 Ipv6;
	ADDRESS_FAMILY si_family;
} SOCKADDR_INET, *PSOCKADDR_INET;

#endif /* _WS2IPDEF_ */
