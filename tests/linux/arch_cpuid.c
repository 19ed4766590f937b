/* arch_prctl's CPUID faulting controls agree with /proc/cpuinfo: CPUID is
 * enabled (ARCH_GET_CPUID is 1), and ARCH_SET_CPUID works only on a CPU
 * whose flags have cpuid_fault (ENODEV otherwise, as Linux). */
#define _GNU_SOURCE
#include <sys/syscall.h>

#include "testutil.h"

#define ARCH_GET_CPUID 0x1011
#define ARCH_SET_CPUID 0x1012

static char text[64 * 1024];

int main(void)
{
	bool fault;

	plan(3);
	require(read_text("/proc/cpuinfo", text, sizeof text) > 0, "read /proc/cpuinfo");
	fault = strstr(text, " cpuid_fault") != NULL;
	is_int(syscall(SYS_arch_prctl, ARCH_GET_CPUID, 0), 1, "ARCH_GET_CPUID: enabled");
	if (fault) {
		ok(syscall(SYS_arch_prctl, ARCH_SET_CPUID, 1) == 0,
		   "ARCH_SET_CPUID 1 with cpuid_fault");
		ok(syscall(SYS_arch_prctl, ARCH_GET_CPUID, 0) == 1, "still enabled");
	} else {
		is_errno(syscall(SYS_arch_prctl, ARCH_SET_CPUID, 1), ENODEV,
			 "ARCH_SET_CPUID without cpuid_fault: ENODEV");
		is_errno(syscall(SYS_arch_prctl, ARCH_SET_CPUID, 0), ENODEV, "... disabling too");
	}
	return done();
}
