/* In-kernel self-test bookkeeping (see lib/ktest.h). */
#include "lib/ktest.h"
#include "lib/printk.h"

struct ktest_counts ktest_counts;

bool ktest_ok(bool cond, const char *fmt, ...)
{
	char desc[160];
	va_list ap;

	va_start(ap, fmt);
	vsnprintk(desc, sizeof(desc), fmt, ap);
	va_end(ap);
	if (cond)
		ktest_counts.passed++;
	else
		ktest_counts.failed++;
	printk("%sok %d - %s\n", cond ? "" : "not ", ktest_counts.passed + ktest_counts.failed,
	       desc);
	return cond;
}
