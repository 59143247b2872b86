/* SPDX-License-Identifier: LGPL-2.1-or-later OR MIT */
/*
 * winsock2.h - of Windows Sockets, the address types and constants, with
 * Windows' layouts and values (AF_INET6 is 23), as ETW events carry them
 * (TDH_OUTTYPE_SOCKETADDRESS, TDH_OUTTYPE_IPV4).  There are no sockets
 * functions.  The types have the SDK's names, which are also glibc's
 * (struct in_addr, struct sockaddr ...): a unit uses these or
 * <netinet/in.h>, not both.
 */
#ifndef _WINSOCK2API_
#define _WINSOCK2API_

#include <windows.h>

#if defined(_NETINET_IN_H) || defined(_SYS_SOCKET_H)
#error "<winsock2.h> defines Windows' socket address types: include it or glibc's <netinet/in.h> and <sys/socket.h>, not both"
#endif

typedef USHORT ADDRESS_FAMILY;

#define AF_UNSPEC	0
#define AF_UNIX		1
#define AF_INET		2
#define AF_INET6	23
#define PF_UNSPEC	AF_UNSPEC
#define PF_INET		AF_INET
#define PF_INET6	AF_INET6

/* inaddr.h: an IPv4 address, in network byte order. */
typedef struct in_addr {
	union {
		struct {
			UCHAR s_b1, s_b2, s_b3, s_b4;
		} S_un_b;
		struct {
			USHORT s_w1, s_w2;
		} S_un_w;
		ULONG S_addr;
	} S_un;
} IN_ADDR, *PIN_ADDR, *LPIN_ADDR;

#define s_addr		S_un.S_addr
#define s_host		S_un.S_un_b.s_b2
#define s_net		S_un.S_un_b.s_b1
#define s_imp		S_un.S_un_w.s_w2
#define s_impno		S_un.S_un_b.s_b4
#define s_lh		S_un.S_un_b.s_b3

/* ws2def.h */
typedef struct sockaddr {
	ADDRESS_FAMILY sa_family;
	CHAR sa_data[14];
} SOCKADDR, *PSOCKADDR, *LPSOCKADDR;

typedef struct sockaddr_in {
	ADDRESS_FAMILY sin_family;
	USHORT sin_port;
	IN_ADDR sin_addr;
	CHAR sin_zero[8];
} SOCKADDR_IN, *PSOCKADDR_IN, *LPSOCKADDR_IN;

#define _SS_MAXSIZE	128
#define _SS_ALIGNSIZE	(sizeof(LONGLONG))
#define _SS_PAD1SIZE	(_SS_ALIGNSIZE - sizeof(USHORT))
#define _SS_PAD2SIZE \
	(_SS_MAXSIZE - (sizeof(USHORT) + _SS_PAD1SIZE + _SS_ALIGNSIZE))

typedef struct sockaddr_storage {
	ADDRESS_FAMILY ss_family;
	CHAR __ss_pad1[_SS_PAD1SIZE];
	LONGLONG __ss_align;
	CHAR __ss_pad2[_SS_PAD2SIZE];
} SOCKADDR_STORAGE, *PSOCKADDR_STORAGE, *LPSOCKADDR_STORAGE;

#endif /* _WINSOCK2API_ */
