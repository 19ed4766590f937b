/* getcpu: a CPU the caller may run on (in its affinity mask) and node 0;
 * NULL pointers allowed, the third argument ignored; EFAULT. */
#include <errno.h>
#include <fdkernel.h>
#include <stdint.h>
#include <unistd.h>

#include "tap.h"

#define NR_getcpu	     309
#define NR_sched_getaffinity 204

int main(void)
{
	unsigned int cpu = ~0U, node = ~0U;
	uint64_t mask[16] = {0};

	plan(6);
	ok(syscall(NR_getcpu, &cpu, &node, NULL) == 0, "getcpu");
	ok(syscall(NR_sched_getaffinity, 0, sizeof mask, mask) > 0 && cpu < 1024 &&
	       (mask[cpu / 64] >> (cpu % 64) & 1),
	   "a CPU of the affinity mask (%u)", cpu);
	ok(node == 0, "node 0");
	ok(syscall(NR_getcpu, NULL, NULL, (void *)1) == 0,
	   "NULL pointers; the cache argument ignored");
	is_errno(syscall(NR_getcpu, (void *)1, NULL, NULL), EFAULT, "cpu at (void *)1: EFAULT");
	is_errno(syscall(NR_getcpu, NULL, (void *)1, NULL), EFAULT, "node at (void *)1: EFAULT");
	return tap_failed != 0;
}
