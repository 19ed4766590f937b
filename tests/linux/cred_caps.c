/* Capabilities: capget/capset's version negotiation (an unknown version
 * is EINVAL with the preferred one written back; with a NULL data
 * pointer it is the query, 0), v1's 32 bits, another process's sets,
 * capset's rules (only the caller, permitted only shrinks, effective
 * within permitted, inheritable within the bounding set), the bounding
 * set (PR_CAPBSET_READ/DROP), the ambient set, no_new_privs, the
 * securebits (each one's effect, the locks, CAP_SETPCAP), and what
 * execve makes of them -- with AT_SECURE and the auxv's ids -- reported
 * by this program exec'd again ("report" mode, on fd 3). */
#include "cred_util.h"
#include <sys/auxv.h>

#define KILL_BIT (1ULL << 5)

static uint64_t all;

/* The exec'd program's view: uids, permitted, effective, ambient, AT_SECURE, AT_EUID. */
static int report(void)
{
	uid_t r, e, s;
	uint64_t amb = 0;
	struct caps c = caps_of(0);

	for (int cap = 0; cap < 64; cap++)
		if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_IS_SET, cap, 0, 0) == 1)
			amb |= 1ULL << cap;
	getresuid(&r, &e, &s);
	dprintf(3, "%u %u %u %llx %llx %llx %lu %lu\n", r, e, s, (unsigned long long)c.prm,
		(unsigned long long)c.eff, (unsigned long long)amb, getauxval(AT_SECURE),
		getauxval(AT_EUID));
	return 0;
}

/* setup() in a child that then execs this program in report mode: the
 * report's fields, false if it did not come. */
static bool exec_report(void (*setup)(void), uid_t ids[3], uint64_t sets[3], unsigned long aux[2])
{
	char buf[256] = "";
	int p[2], st;
	pid_t pid;

	if (pipe(p))
		return false;
	if ((pid = fork()) == 0) {
		close(p[0]);
		setup();
		dup2(p[1], 3);
		execl("/proc/self/exe", "cred_caps", "report", (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	ssize_t n = read(p[0], buf, sizeof buf - 1);
	close(p[0]);
	waitpid(pid, &st, 0);
	unsigned long long s0, s1, s2;
	if (n <= 0 || sscanf(buf, "%u %u %u %llx %llx %llx %lu %lu", &ids[0], &ids[1], &ids[2], &s0,
			     &s1, &s2, &aux[0], &aux[1]) != 8)
		return false;
	sets[0] = s0, sets[1] = s1, sets[2] = s2;
	return true;
}

static void versions(void)
{
	struct cap_header h = {0, 0};
	struct cap_data d[2] = {{0}};

	ok(syscall(SYS_capget, &h, NULL) == 0 && h.version == CAP_VERSION_3,
	   "capget(version 0, NULL): 0, the preferred version written back");
	h.version = 0x12345678;
	is_errno(syscall(SYS_capget, &h, d), EINVAL, "capget with an unknown version: EINVAL");
	ok(h.version == CAP_VERSION_3, "... and the preferred version written back");
	h.version = 1;
	is_errno(syscall(SYS_capset, &h, d), EINVAL, "capset with an unknown version: EINVAL");
	is_errno(syscall(SYS_capget, (void *)1, d), EFAULT, "capget from a bad header: EFAULT");
	h = (struct cap_header){CAP_VERSION_3, 0};
	is_errno(syscall(SYS_capget, &h, (void *)1), EFAULT, "capget to bad data: EFAULT");
	h.pid = -1;
	is_errno(syscall(SYS_capget, &h, d), EINVAL, "capget of pid -1: EINVAL");
	h.pid = 0x3ffffff;
	is_errno(syscall(SYS_capget, &h, d), ESRCH, "capget of no such pid: ESRCH");
	d[1].effective = 0xdeadbeef;
	h = (struct cap_header){CAP_VERSION_1, 0};
	ok(syscall(SYS_capget, &h, d) == 0 && d[0].effective == (uint32_t)all &&
	       d[1].effective == 0xdeadbeef,
	   "v1: the low 32 bits, one struct written");
	h = (struct cap_header){CAP_VERSION_2, getppid()};
	ok(syscall(SYS_capget, &h, d) == 0 && d[1].permitted == (uint32_t)(all >> 32),
	   "v2: 64 bits, another process's sets");
}

static void capset_rules(void)
{
	struct cap_header h = {CAP_VERSION_3, getppid()};
	struct cap_data d[2] = {{0}};

	is_errno(syscall(SYS_capset, &h, d), EPERM, "capset of another process: EPERM");
	is_errno(caps_set(all, all & ~KILL_BIT, 0), EPERM, "effective beyond permitted: EPERM");
	ok(caps_set(all & ~KILL_BIT, all & ~KILL_BIT, 0) == 0, "drop CAP_KILL from both");
	ok(caps_of(0).prm == (all & ~KILL_BIT), "capget says so");
	char want[64];
	snprintf(want, sizeof want, "CapPrm:\t%016llx", (unsigned long long)(all & ~KILL_BIT));
	ok(status_is(0, "CapPrm:", want), "and /proc/self/status's CapPrm");
	is_errno(caps_set(0, all, 0), EPERM, "permitted cannot grow back: EPERM");
	uint64_t setpcap = 1ULL << CAP_SETPCAP_N;
	ok(caps_set(setpcap, setpcap, 0) == 0 && caps_set(setpcap, setpcap, KILL_BIT) == 0,
	   "with only CAP_SETPCAP, inheritable may take what permitted lacks");
}

static void capset_user(void)
{
	ok(setuid(U1) == 0 && caps_of(0).prm == 0, "leave root: nothing permitted");
	is_errno(caps_set(0, 0, KILL_BIT), EPERM, "then inheritable cannot grow: EPERM");
	ok(caps_set(0, 0, 0) == 0, "capset of the sets it has: 0");
}

static void drop_kill_bset(void)
{
	prctl(PR_CAPBSET_DROP, 5);
}

static void nnp_after_drop(void)
{
	caps_set(all & ~KILL_BIT, all & ~KILL_BIT, 0);
	prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
}

static void drop_without_nnp(void)
{
	caps_set(all & ~KILL_BIT, all & ~KILL_BIT, 0);
}

static void bounding_and_exec(void)
{
	uid_t ids[3];
	uint64_t sets[3];
	unsigned long aux[2];

	is_int(prctl(PR_CAPBSET_READ, 5), 1, "PR_CAPBSET_READ(CAP_KILL): 1");
	is_errno(prctl(PR_CAPBSET_READ, 64), EINVAL, "PR_CAPBSET_READ(64): EINVAL");
	is_errno(prctl(PR_CAPBSET_DROP, 64), EINVAL, "PR_CAPBSET_DROP(64): EINVAL");
	ok(exec_report(drop_kill_bset, ids, sets, aux) && sets[0] == (all & ~KILL_BIT) &&
	       sets[1] == sets[0] && aux[0] == 0,
	   "root exec after dropping CAP_KILL from the bounding set: not regained, AT_SECURE 0");
	ok(exec_report(drop_without_nnp, ids, sets, aux) && sets[0] == all,
	   "root exec regains a permitted capability the bounding set has");
	ok(exec_report(nnp_after_drop, ids, sets, aux) && sets[0] == (all & ~KILL_BIT),
	   "... but not with no_new_privs");
	ok(prctl(PR_CAPBSET_DROP, 5) == 0 && prctl(PR_CAPBSET_READ, 5) == 0, "PR_CAPBSET_DROP");
	char want[64];
	snprintf(want, sizeof want, "CapBnd:\t%016llx", (unsigned long long)(all & ~KILL_BIT));
	ok(status_is(0, "CapBnd:", want), "status CapBnd lacks it");
	ok(setuid(U1) == 0, "leave root");
	is_errno(prctl(PR_CAPBSET_DROP, 6), EPERM, "PR_CAPBSET_DROP without CAP_SETPCAP: EPERM");
	is_errno(prctl(PR_CAPBSET_DROP, 64), EPERM, "EPERM before the number's EINVAL");
}

static void to_euid0(void)
{
	setresuid(U1, 0, 0);
}

static void to_user(void)
{
	setresuid(U1, U1, U1);
}

static void ambient_user(void)
{
	prctl(PR_SET_KEEPCAPS, 1);
	setresuid(U1, U1, U1);
	caps_set(0, KILL_BIT, KILL_BIT);
	prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, 5, 0, 0);
}

static void exec_ids(void)
{
	uid_t ids[3];
	uint64_t sets[3];
	unsigned long aux[2];

	ok(exec_report(to_euid0, ids, sets, aux) && ids[0] == U1 && ids[1] == 0 && ids[2] == 0 &&
	       aux[0] == 1 && aux[1] == 0 && sets[1] == all,
	   "exec with real uid U1, effective 0: AT_SECURE 1, AT_EUID 0, every capability");
	ok(exec_report(to_user, ids, sets, aux) && ids[0] == U1 && ids[1] == U1 && aux[0] == 0 &&
	       sets[0] == 0 && sets[1] == 0,
	   "exec as an ordinary user: no capability, AT_SECURE 0");
	ok(exec_report(ambient_user, ids, sets, aux) && ids[1] == U1 && sets[0] == KILL_BIT &&
	       sets[1] == KILL_BIT && sets[2] == KILL_BIT && aux[0] == 0,
	   "an ambient capability survives an ordinary user's exec");
}

static void ambient_rules(void)
{
	is_errno(prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, 5, 0, 0), EPERM,
		 "raising an ambient capability not inheritable: EPERM");
	is_errno(prctl(PR_CAP_AMBIENT, 99, 5, 0, 0), EINVAL, "an unknown ambient op: EINVAL");
	is_errno(prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 1, 0, 0), EINVAL,
		 "CLEAR_ALL with an argument: EINVAL");
	is_errno(prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_IS_SET, 64, 0, 0), EINVAL,
		 "IS_SET(64): EINVAL");
	ok(caps_set(all, all, KILL_BIT) == 0 &&
	       prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, 5, 0, 0) == 0 &&
	       prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_IS_SET, 5, 0, 0) == 1,
	   "inheritable and permitted: RAISE, then IS_SET 1");
	ok(status_is(0, "CapAmb:", "CapAmb:\t0000000000000020"), "status CapAmb");
	ok(caps_set(all, all, 0) == 0 && prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_IS_SET, 5, 0, 0) == 0,
	   "no longer inheritable: gone from the ambient set");
}

static void noroot(void)
{
	prctl(PR_SET_SECUREBITS, 1 /* SECBIT_NOROOT */);
}

static void securebits(void)
{
	uid_t ids[3];
	uint64_t sets[3];
	unsigned long aux[2];

	is_int(prctl(PR_GET_SECUREBITS), 0, "PR_GET_SECUREBITS: 0");
	is_errno(prctl(PR_SET_SECUREBITS, 1 << 12), EPERM, "an unknown bit: EPERM");
	ok(exec_report(noroot, ids, sets, aux) && ids[1] == 0 && sets[0] == 0 && sets[1] == 0,
	   "SECBIT_NOROOT: root's exec grants no capability");
	ok(prctl(PR_SET_SECUREBITS, 0x30) == 0 && prctl(PR_GET_KEEPCAPS) == 1,
	   "KEEP_CAPS with its lock: PR_GET_KEEPCAPS 1");
	is_errno(prctl(PR_SET_KEEPCAPS, 0), EPERM, "PR_SET_KEEPCAPS on a locked bit: EPERM");
	is_errno(prctl(PR_SET_SECUREBITS, 0x10), EPERM, "unlocking: EPERM");
	ok(prctl(PR_SET_SECUREBITS, 0x34 | 0x40) == 0, "NO_SETUID_FIXUP and NO_CAP_AMBIENT_RAISE");
	ok(caps_set(all, all, KILL_BIT) == 0, "CAP_KILL inheritable");
	is_errno(prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, 5, 0, 0), EPERM,
		 "raising an ambient capability under NO_CAP_AMBIENT_RAISE: EPERM");
	ok(setresuid(U1, U1, U1) == 0 && caps_of(0).eff == all,
	   "NO_SETUID_FIXUP: leaving root keeps every capability");
	ok(setuid(U2) == 0, "so setuid to anyone still works");
}

static void securebits_user(void)
{
	ok(setuid(U1) == 0, "leave root");
	is_errno(prctl(PR_SET_SECUREBITS, 0), EPERM, "PR_SET_SECUREBITS without CAP_SETPCAP: EPERM");
}

static void nnp_rules(void)
{
	is_int(prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0), 0, "PR_GET_NO_NEW_PRIVS: 0");
	ok(status_is(0, "NoNewPrivs:", "NoNewPrivs:\t0"), "status NoNewPrivs: 0");
	is_errno(prctl(PR_SET_NO_NEW_PRIVS, 0, 0, 0, 0), EINVAL, "PR_SET_NO_NEW_PRIVS(0): EINVAL");
	is_errno(prctl(PR_SET_NO_NEW_PRIVS, 1, 1, 0, 0), EINVAL, "an extra argument: EINVAL");
	is_errno(prctl(PR_GET_NO_NEW_PRIVS, 1, 0, 0, 0), EINVAL, "GET with an argument: EINVAL");
	ok(prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0 &&
	       prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) == 1,
	   "PR_SET_NO_NEW_PRIVS(1)");
	ok(status_is(0, "NoNewPrivs:", "NoNewPrivs:\t1"), "status NoNewPrivs: 1");
	pid_t pid = fork();
	if (pid == 0)
		_exit(prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) == 1 ? 0 : 1);
	int st;
	ok(pid > 0 && waitpid(pid, &st, 0) == pid && exited_with(st, 0), "inherited by fork");
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "report") == 0)
		return report();
	plan(62);
	all = root_caps();
	require(getuid() == 0 && caps_of(0).eff == all, "the test runs as root");
	in_child("versions", versions);
	in_child("capset", capset_rules);
	in_child("capset unprivileged", capset_user);
	in_child("bounding set", bounding_and_exec);
	in_child("exec", exec_ids);
	in_child("ambient", ambient_rules);
	in_child("no_new_privs", nnp_rules);
	in_child("securebits", securebits);
	in_child("securebits unprivileged", securebits_user);
	return done();
}
