/*
 * wpcap.dll for System32\Npcap under Wine 8, so that Windows builds of
 * bcdump capture live in CI. Built by .ci/wine/build with mingw-w64.
 *
 * gopacket's pcap package (CGO_ENABLED=0) loads wpcap.dll at run time
 * from System32\Npcap (it calls SetDllDirectory there, then
 * LoadLibraryEx with LOAD_LIBRARY_SEARCH_USER_DIRS|SEARCH_SYSTEM32), and
 * panics at start-up if one of the functions it must have is missing.
 * Wine's built-in wpcap.dll (System32, over the host's libpcap) lacks
 * three of them: pcap_setdirection, pcap_hopen_offline and
 * pcap_set_immediate_mode. Its pcap_next_ex also behaves as Linux
 * libpcap, not as Npcap: with TPACKET_V3 the kernel never hands over an
 * empty block, so a read on a quiet interface blocks for ever instead of
 * returning 0 when the read timeout passes, and bcdump live --duration
 * would never end without traffic.
 *
 * This DLL loads Wine's built-in wpcap.dll from System32 by its full
 * path and passes every call gopacket makes on to it unchanged (a jump
 * through a pointer resolved at load, so each argument arrives as the
 * caller passed it), except:
 *
 *   pcap_set_timeout, pcap_open_live  remember the read timeout;
 *   pcap_set_immediate_mode  accepted and remembered; host libpcap's
 *                    TPACKET_V3 blocks then reach the reader within the
 *                    read timeout, which is what bcdump asks for;
 *   pcap_activate, pcap_open_live  put a live handle in non-blocking mode;
 *   pcap_next_ex     on a live handle polls (1 ms sleeps) until a packet
 *                    arrives or the read timeout passes, then returns 0,
 *                    as Npcap does; a timeout of 0 waits for a packet;
 *   pcap_setdirection  fails with PCAP_ERROR and a message from
 *                    pcap_geterr, as libpcap does where a capture cannot
 *                    choose a direction (bcdump does not call it);
 *   pcap_hopen_offline  fails, saying why: Wine 8's pcap_open_offline
 *                    is a stub that aborts the process (bcdump reads
 *                    capture files itself, not through wpcap.dll);
 *   pcap_close, pcap_geterr  forget a handle / return the message above
 *                    (once; after that, the real one's).
 *
 * Only CI uses it: it is no part of bcdump's releases.
 */
#include <windows.h>
#include <stdio.h>
#include <string.h>

typedef struct pcap pcap_t; /* opaque here */

#define PCAP_ERRBUF_SIZE 256
#define PCAP_ERROR (-1)

/* Passed through unchanged: every other function gopacket may load
 * that Wine's wpcap.dll has. */
#define PASSED(X)                                                           \
	X(pcap_strerror) X(pcap_statustostr) X(pcap_open_offline)              \
	X(pcap_breakloop) X(pcap_stats) X(pcap_compile) X(pcap_freecode)       \
	X(pcap_lookupnet) X(pcap_offline_filter) X(pcap_setfilter)             \
	X(pcap_list_datalinks) X(pcap_free_datalinks)                          \
	X(pcap_datalink_val_to_name) X(pcap_datalink_val_to_description)       \
	X(pcap_open_dead) X(pcap_datalink) X(pcap_set_datalink)                \
	X(pcap_datalink_name_to_val) X(pcap_lib_version) X(pcap_freealldevs)   \
	X(pcap_findalldevs) X(pcap_sendpacket) X(pcap_snapshot)                \
	X(pcap_tstamp_type_val_to_name) X(pcap_tstamp_type_name_to_val)        \
	X(pcap_list_tstamp_types) X(pcap_free_tstamp_types)                    \
	X(pcap_set_tstamp_type) X(pcap_get_tstamp_precision)                   \
	X(pcap_set_tstamp_precision) X(pcap_create) X(pcap_set_snaplen)        \
	X(pcap_set_promisc) X(pcap_can_set_rfmon) X(pcap_set_rfmon)            \
	X(pcap_set_buffer_size) X(pcap_setnonblock) X(pcap_getnonblock)

/* A passed-through function is a jump through its pointer: on x86-64
 * the arguments are in registers and on the stack where the caller put
 * them, so the callee sees the call as if made directly. */
#define THUNK(name)                                                         \
	void *real_##name;                                                     \
	__attribute__((naked)) void name(void)                                 \
	{                                                                      \
		__asm__("jmp *real_" #name "(%rip)");                              \
	}
PASSED(THUNK)

/* The functions wrapped here call the real ones through these. */
static pcap_t *(*real_open_live)(const char *, int, int, int, char *);
static int (*real_set_timeout)(pcap_t *, int);
static int (*real_activate)(pcap_t *);
static int (*real_next_ex)(pcap_t *, void **, const unsigned char **);
static void (*real_close)(pcap_t *);
static char *(*real_geterr)(pcap_t *);
static int (*setnonblock)(pcap_t *, int, char *);

/* What this DLL knows of a handle. */
struct handle {
	pcap_t *p;
	int timeout_ms; /* read timeout; 0 for none */
	int live;       /* activated live capture, in non-blocking mode */
	int immediate;  /* pcap_set_immediate_mode's setting */
	char err[PCAP_ERRBUF_SIZE]; /* set by pcap_setdirection */
	int err_new; /* err not yet returned by pcap_geterr */
};

#define MAX_HANDLES 256
static struct handle handles[MAX_HANDLES];
static CRITICAL_SECTION lock;

/* find returns p's entry, adding one when add is set (NULL when the
 * table is full or p unknown). Call with lock held. */
static struct handle *find(pcap_t *p, int add)
{
	struct handle *free_slot = NULL;
	for (int i = 0; i < MAX_HANDLES; i++) {
		if (handles[i].p == p)
			return &handles[i];
		if (!handles[i].p && !free_slot)
			free_slot = &handles[i];
	}
	if (!add || !free_slot)
		return NULL;
	memset(free_slot, 0, sizeof *free_slot);
	free_slot->p = p;
	return free_slot;
}

int pcap_set_timeout(pcap_t *p, int ms)
{
	int r = real_set_timeout(p, ms);
	if (r == 0) {
		EnterCriticalSection(&lock);
		struct handle *h = find(p, 1);
		if (h)
			h->timeout_ms = ms > 0 ? ms : 0;
		LeaveCriticalSection(&lock);
	}
	return r;
}

int pcap_set_immediate_mode(pcap_t *p, int on)
{
	EnterCriticalSection(&lock);
	struct handle *h = find(p, 1);
	if (h)
		h->immediate = on != 0;
	LeaveCriticalSection(&lock);
	return 0;
}

/* makeLive puts an activated capture in non-blocking mode so that
 * pcap_next_ex can keep the read timeout itself. */
static void make_live(pcap_t *p, int timeout_ms, int set_timeout)
{
	char errbuf[PCAP_ERRBUF_SIZE];
	if (setnonblock(p, 1, errbuf) < 0)
		return; /* reads block as the host's libpcap does */
	EnterCriticalSection(&lock);
	struct handle *h = find(p, 1);
	if (h) {
		h->live = 1;
		if (set_timeout)
			h->timeout_ms = timeout_ms > 0 ? timeout_ms : 0;
	}
	LeaveCriticalSection(&lock);
}

int pcap_activate(pcap_t *p)
{
	int r = real_activate(p);
	if (r >= 0)
		make_live(p, 0, 0);
	return r;
}

pcap_t *pcap_open_live(const char *dev, int snaplen, int promisc, int to_ms, char *errbuf)
{
	pcap_t *p = real_open_live(dev, snaplen, promisc, to_ms, errbuf);
	if (p)
		make_live(p, to_ms, 1);
	return p;
}

int pcap_next_ex(pcap_t *p, void **hdr, const unsigned char **data)
{
	int live = 0, timeout_ms = 0;
	EnterCriticalSection(&lock);
	struct handle *h = find(p, 0);
	if (h) {
		live = h->live;
		timeout_ms = h->timeout_ms;
	}
	LeaveCriticalSection(&lock);
	if (!live)
		return real_next_ex(p, hdr, data);
	ULONGLONG deadline = GetTickCount64() + (ULONGLONG)timeout_ms;
	for (;;) {
		int r = real_next_ex(p, hdr, data);
		if (r != 0)
			return r;
		if (timeout_ms > 0 && GetTickCount64() >= deadline)
			return 0;
		Sleep(1);
	}
}

void pcap_close(pcap_t *p)
{
	EnterCriticalSection(&lock);
	struct handle *h = find(p, 0);
	if (h)
		memset(h, 0, sizeof *h);
	LeaveCriticalSection(&lock);
	real_close(p);
}

int pcap_setdirection(pcap_t *p, int dir)
{
	(void)dir;
	EnterCriticalSection(&lock);
	struct handle *h = find(p, 1);
	if (h) {
		snprintf(h->err, sizeof h->err, "Setting direction is not supported on this device");
		h->err_new = 1;
	}
	LeaveCriticalSection(&lock);
	return PCAP_ERROR;
}

char *pcap_geterr(pcap_t *p)
{
	char *msg = NULL;
	EnterCriticalSection(&lock);
	struct handle *h = find(p, 0);
	if (h && h->err_new) {
		/* Once: later errors are the real wpcap.dll's. The text
		 * lives until pcap_close, as libpcap's does. */
		msg = h->err;
		h->err_new = 0;
	}
	LeaveCriticalSection(&lock);
	return msg ? msg : real_geterr(p);
}

pcap_t *pcap_hopen_offline(INT_PTR osfd, char *errbuf)
{
	(void)osfd;
	snprintf(errbuf, PCAP_ERRBUF_SIZE, "pcap_hopen_offline: Wine's wpcap.dll cannot read capture files (its pcap_open_offline is a stub)");
	return NULL;
}

/* load finds Wine's wpcap.dll in System32 and every function above in
 * it. A missing one fails the load: better no wpcap.dll (gopacket then
 * reports Npcap missing) than a jump to nowhere. */
static BOOL load(void)
{
	char path[MAX_PATH];
	UINT n = GetSystemDirectoryA(path, MAX_PATH - 16);
	if (n == 0 || n >= MAX_PATH - 16)
		return FALSE;
	strcpy(path + n, "\\wpcap.dll");
	HMODULE real = LoadLibraryA(path);
	if (!real)
		return FALSE;
	HMODULE self = NULL;
	GetModuleHandleExA(GET_MODULE_HANDLE_EX_FLAG_FROM_ADDRESS | GET_MODULE_HANDLE_EX_FLAG_UNCHANGED_REFCOUNT,
		(LPCSTR)load, &self);
	if (real == self)
		return FALSE; /* the loader gave this DLL back: no built-in one */
	BOOL ok = TRUE;
#define RESOLVE(name) ok &= (real_##name = (void *)GetProcAddress(real, #name)) != NULL;
	PASSED(RESOLVE)
#define RESOLVE_AS(var, name) ok &= (*(void **)&var = (void *)GetProcAddress(real, name)) != NULL;
	RESOLVE_AS(real_open_live, "pcap_open_live")
	RESOLVE_AS(real_set_timeout, "pcap_set_timeout")
	RESOLVE_AS(real_activate, "pcap_activate")
	RESOLVE_AS(real_next_ex, "pcap_next_ex")
	RESOLVE_AS(real_close, "pcap_close")
	RESOLVE_AS(real_geterr, "pcap_geterr")
	RESOLVE_AS(setnonblock, "pcap_setnonblock")
	return ok;
}

BOOL WINAPI DllMain(HINSTANCE inst, DWORD reason, LPVOID reserved)
{
	(void)inst;
	(void)reserved;
	if (reason == DLL_PROCESS_ATTACH) {
		InitializeCriticalSection(&lock);
		return load();
	}
	return TRUE;
}
