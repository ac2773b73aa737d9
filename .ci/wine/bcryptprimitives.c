/*
 * bcryptprimitives.dll for Wine 8, which lacks it: Go's Windows runtime
 * (1.24 and later) loads it from System32 at start-up and takes all its
 * random bytes from ProcessPrng. Built by .ci/wine/build with mingw-w64;
 * used only by CI to run the Windows test binaries under Wine.
 *
 * ProcessPrng(data, len) fills data with len random bytes and, as on
 * Windows, returns TRUE. The bytes come from RtlGenRandom
 * (advapi32!SystemFunction036), which Wine implements over the host's
 * random source. RtlGenRandom takes a ULONG length, so larger requests
 * are filled in pieces.
 */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len)
{
	while (len > 0) {
		ULONG n = len > 0x40000000 ? 0x40000000 : (ULONG)len;
		if (!SystemFunction036(data, n))
			return FALSE;
		data += n;
		len -= n;
	}
	return TRUE;
}

BOOL WINAPI DllMain(HINSTANCE inst, DWORD reason, LPVOID reserved)
{
	(void)inst;
	(void)reason;
	(void)reserved;
	return TRUE;
}
