/* The set*id calls with Linux's rules, as root and as an ordinary user:
 * which ids each call may set, what the saved and file-system ids
 * become, the -1 ("unchanged") arguments, escalations refused with EPERM
 * and nothing changed by a refused call, setfsuid/setfsgid's "old id,
 * never an error", and the capabilities that follow uid changes
 * (capabilities(7)): leaving root drops them, PR_SET_KEEPCAPS keeps the
 * permitted set, an effective uid back to 0 restores the effective set.
 * Every change happens in a child: the test itself stays root. */
#include "cred_util.h"
#include <sys/fsuid.h>

static uint64_t all;

static void root_setuid(void)
{
	ok(uids_are(0, 0, 0) && gids_are(0, 0, 0), "root: every id 0");
	is_errno(setuid(-1), EINVAL, "setuid(-1): EINVAL");
	is_errno(setgid(-1), EINVAL, "setgid(-1): EINVAL");
	ok(setuid(U1) == 0 && uids_are(U1, U1, U1), "root setuid(U1): real, effective, saved U1");
	ok(status_is(0, "Uid:", "Uid:\t61001\t61001\t61001\t61001"), "status Uid: four times U1");
	struct caps c = caps_of(0);
	ok(c.eff == 0 && c.prm == 0 && c.inh == 0, "leaving root dropped every capability");
	is_errno(setuid(0), EPERM, "then setuid(0): EPERM");
	is_errno(setresuid(-1, 0, -1), EPERM, "setresuid(-1, 0, -1): EPERM");
	is_errno(setreuid(0, -1), EPERM, "setreuid(0, -1): EPERM");
	is_errno(setgid(G1), EPERM, "setgid(G1) without CAP_SETGID: EPERM");
	ok(uids_are(U1, U1, U1) && gids_are(0, 0, 0), "the refused calls changed nothing");
	ok(setuid(U1) == 0 && setresuid(-1, -1, -1) == 0, "setuid to its own uid, all -1: fine");
}

/* The "temporarily drop" pattern: euid away from 0 and back via suid. */
static void root_seteuid(void)
{
	ok(seteuid(U1) == 0 && uids_are(0, U1, 0), "root seteuid(U1): only the effective uid");
	struct caps c = caps_of(0);
	ok(c.eff == 0 && c.prm == all, "effective set empty, permitted kept (saved uid 0)");
	ok(status_is(0, "Uid:", "Uid:\t0\t61001\t0\t61001"), "status: fsuid follows euid");
	is_errno(setuid(U2), EPERM, "setuid(U2): EPERM (neither real nor saved)");
	ok(setuid(0) == 0 && uids_are(0, 0, 0), "setuid(0) back through the saved uid");
	ok(caps_of(0).eff == all, "effective uid 0 again: effective set is the permitted one");
}

static void setreuid_rules(void)
{
	ok(setreuid(U1, U2) == 0 && uids_are(U1, U2, U2),
	   "root setreuid(U1, U2): the saved uid follows the effective one");
	is_errno(setreuid(-1, U3), EPERM, "unprivileged setreuid(-1, U3): EPERM");
	is_errno(setreuid(U3, -1), EPERM, "setreuid(U3, -1): EPERM");
	ok(setreuid(U2, -1) == 0 && uids_are(U2, U2, U2), "setreuid(U2, -1): real from effective");
	ok(setreuid(-1, -1) == 0 && uids_are(U2, U2, U2), "setreuid(-1, -1): nothing changes");
}

/* setreuid(-1, e) with e the old real uid leaves the saved uid. */
static void setreuid_saved(void)
{
	ok(setresuid(U1, 0, 0) == 0 && uids_are(U1, 0, 0), "setresuid(U1, 0, 0)");
	ok(caps_of(0).eff == all, "still effective root: capabilities kept");
	ok(setreuid(-1, U1) == 0 && uids_are(U1, U1, 0),
	   "setreuid(-1, real uid): saved uid stays 0");
	ok(setreuid(-1, 0) == 0 && uids_are(U1, 0, 0), "and back to 0 through the saved uid");
	ok(setreuid(0, -1) == 0 && uids_are(0, 0, 0),
	   "setreuid(0, -1): real may become the effective uid");
}

static void setresuid_rules(void)
{
	ok(setresuid(U1, U2, U3) == 0 && uids_are(U1, U2, U3), "root setresuid(U1, U2, U3)");
	ok(status_is(0, "Uid:", "Uid:\t61001\t61002\t61003\t61002"), "status: the four uids");
	ok(setresuid(U3, U1, U2) == 0 && uids_are(U3, U1, U2), "unprivileged: any permutation");
	is_errno(setresuid(U3, U1, 0), EPERM, "an id outside the three: EPERM");
	ok(uids_are(U3, U1, U2), "and nothing changed");
	ok(setresuid(-1, U3, -1) == 0 && uids_are(U3, U3, U2), "-1 leaves an id");
	ok(setresuid(U2, U2, U2) == 0 && uids_are(U2, U2, U2), "all one of them");
	is_errno(setresuid(U1, -1, -1), EPERM, "a dropped id cannot come back: EPERM");
	is_errno(syscall(SYS_getresuid, (uid_t *)1, (uid_t *)1, (uid_t *)1), EFAULT,
		 "getresuid to a bad address: EFAULT");
	is_errno(syscall(SYS_getresgid, NULL, NULL, NULL), EFAULT, "getresgid(NULL...): EFAULT");
}

static void fsuid_rules(void)
{
	is_int(setfsuid(U1), 0, "root setfsuid(U1) returns the old fsuid, 0");
	ok(status_is(0, "Uid:", "Uid:\t0\t0\t0\t61001"), "status: fsuid U1, the others 0");
	struct caps c = caps_of(0);
	ok(!(c.eff & CAP_CHOWN_BIT) && (c.eff & CAP_KILL_BIT),
	   "fsuid left 0: file-system capabilities dropped, CAP_KILL kept");
	is_int(setfsuid(-1), U1, "setfsuid(-1) only reports: U1");
	is_int(setfsuid(0), U1, "setfsuid(0) returns U1");
	ok(caps_of(0).eff == all, "fsuid 0 again: file-system capabilities back");
	ok(setresuid(U1, U1, U1) == 0, "drop to U1");
	is_int(setfsuid(U2), U1, "unprivileged setfsuid(U2): returns U1 ...");
	is_int(setfsuid(U1), U1, "... and changed nothing");
	is_int(setfsgid(G1), 0, "unprivileged setfsgid(G1) returns the old fsgid, 0");
	is_int(setfsgid(-1), 0, "unchanged");
}

static void gid_rules(void)
{
	ok(setgid(G1) == 0 && gids_are(G1, G1, G1), "root setgid(G1): every gid");
	ok(setregid(G2, G3) == 0 && gids_are(G2, G3, G3), "setregid(G2, G3)");
	ok(setresgid(G1, G2, G3) == 0 && gids_are(G1, G2, G3), "setresgid(G1, G2, G3)");
	ok(status_is(0, "Gid:", "Gid:\t62001\t62002\t62003\t62002"), "status Gid: the four gids");
	ok(setuid(U1) == 0, "leave root");
	is_errno(setgid(0), EPERM, "setgid(0): EPERM");
	ok(setgid(G3) == 0 && gids_are(G1, G3, G3), "setgid(saved gid): only the effective one");
	is_errno(setregid(-1, 0), EPERM, "setregid(-1, 0): EPERM");
	is_errno(setregid(G2, -1), EPERM, "setregid(G2, -1): EPERM (neither real nor effective)");
	ok(setregid(G3, -1) == 0 && gids_are(G3, G3, G3), "setregid(G3, -1): real from effective");
	is_errno(setresgid(-1, -1, 0), EPERM, "setresgid(-1, -1, 0): EPERM");
	ok(gids_are(G3, G3, G3), "and nothing changed");
	ok(setresgid(-1, -1, -1) == 0, "setresgid(-1, -1, -1): 0");
}

static void keepcaps(void)
{
	is_int(prctl(PR_GET_KEEPCAPS), 0, "PR_GET_KEEPCAPS: 0 at first");
	is_errno(prctl(PR_SET_KEEPCAPS, 2), EINVAL, "PR_SET_KEEPCAPS(2): EINVAL");
	ok(prctl(PR_SET_KEEPCAPS, 1) == 0 && prctl(PR_GET_KEEPCAPS) == 1, "PR_SET_KEEPCAPS(1)");
	ok(setresuid(U1, U1, U1) == 0, "leave root with keepcaps");
	struct caps c = caps_of(0);
	ok(c.prm == all && c.eff == 0, "permitted set kept, effective set empty");
	ok(caps_set(1ULL << CAP_SETUID_N, all, 0) == 0 && setuid(U2) == 0 && uids_are(U2, U2, U2),
	   "CAP_SETUID made effective again: setuid to anyone works");
}

int main(void)
{
	plan(69);
	all = root_caps();
	require(getuid() == 0 && caps_of(0).eff == all, "the test runs as root");
	in_child("setuid", root_setuid);
	in_child("seteuid", root_seteuid);
	in_child("setreuid", setreuid_rules);
	in_child("setreuid saved", setreuid_saved);
	in_child("setresuid", setresuid_rules);
	in_child("setfsuid", fsuid_rules);
	in_child("gids", gid_rules);
	in_child("keepcaps", keepcaps);
	ok(uids_are(0, 0, 0) && gids_are(0, 0, 0), "the test itself is still root");
	return done();
}
