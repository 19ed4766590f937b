/*
 * User namespaces (Linux's struct user_namespace): which user and group
 * ids a process sees and names, and over which objects its capabilities
 * count.  docs/namespaces.md, "User namespaces".
 *
 * Ids inside the kernel are always the initial namespace's (Linux's
 * kuid_t and kgid_t, plain uint32_t here): creds, inodes, IPC objects
 * hold them.  A namespace's uid_map and gid_map say which of them it
 * shows and under which numbers; ids cross the user boundary through
 * the caller's namespace: make_kuid on the way in (an unmapped id is
 * refused), from_kuid_munged on the way out (an unmapped one shows as
 * the overflow id, 65534).
 *
 * A process's capabilities (its cred's sets) are its user namespace's:
 * capable() asks about the initial namespace, which owns every host
 * object (files, mounts, clocks, modules), so a process in another
 * namespace passes no capable() check at all; ns_capable() asks about a
 * namespace, for objects a namespace owns (a uts namespace's names).
 */
#ifndef PROC_USER_NAMESPACE_H
#define PROC_USER_NAMESPACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "fs/nsfs.h"

struct cred;

#define INVALID_ID	 ((uint32_t)-1) /* no id: make_kuid's and from_kuid's failure */
#define OVERFLOW_ID	 65534		/* what an unmapped id shows as (overflowuid) */
#define USERNS_MAX_LEVEL 33		/* nesting below the initial namespace (ENOSPC) */
#define UID_GID_MAP_MAX	 340		/* lines of a map (Linux's, since 4.15) */

/* One line of a map: ids first..first+count-1 inside are lower_first..
 * of the initial namespace (Linux stores the lower ids as kernel ids
 * too: translated through the parent's map when written). */
struct uid_gid_extent {
	uint32_t first, lower_first, count;
};

/* A written map: constant once published (a map is written once). */
struct uid_gid_map {
	uint32_t nr;
	struct uid_gid_extent extent[];
};

/*
 * Lifetime: refs counts the creds in it, the nsfs inodes naming it, its
 * child user namespaces (parent) and the namespaces of other kinds it
 * owns (ns_common.owner); the last put frees it and puts its parent.
 * The initial one is static and never freed.
 */
struct user_namespace {
	struct ns_common ns;
	int refs;		       /* atomic */
	struct user_namespace *parent; /* referenced; NULL for the initial one */
	int level;		       /* 0 for the initial one */
	uint32_t owner, group;	       /* its creator's effective ids (kernel ids) */
	/* Published once each, with a release store, under map_lock; NULL
	 * until written (then nothing maps: every id is unmapped). */
	struct uid_gid_map *uid_map, *gid_map;
	bool setgroups_denied; /* "deny" written to /proc/<pid>/setgroups (map_lock) */
};

extern struct user_namespace init_user_ns;

/* The caller's namespace: its cred's, alive while the cred is (cred.h). */
struct user_namespace *current_user_ns(void);
void user_ns_get(struct user_namespace *ns);
void user_ns_put(struct user_namespace *ns);

/* Ids through ns: a kernel id for ns's id (INVALID_ID when unmapped). */
uint32_t make_kuid(const struct user_namespace *ns, uint32_t uid);
uint32_t make_kgid(const struct user_namespace *ns, uint32_t gid);
/* ns's id for a kernel id: INVALID_ID when unmapped, or OVERFLOW_ID
 * (_munged: what getuid, stat and /proc show). */
uint32_t from_kuid(const struct user_namespace *ns, uint32_t kuid);
uint32_t from_kgid(const struct user_namespace *ns, uint32_t kgid);
uint32_t from_kuid_munged(const struct user_namespace *ns, uint32_t kuid);
uint32_t from_kgid_munged(const struct user_namespace *ns, uint32_t kgid);

/* Linux's cap_capable: whether c has cap over ns -- its own namespace
 * and cap in its effective set, or ns a descendant of c's namespace
 * whose parent is c's and whose owner is c's effective uid (a creator
 * has every capability in what it created). */
bool cred_ns_capable(const struct cred *c, const struct user_namespace *ns, int cap);
/* The caller over ns. */
bool ns_capable(const struct user_namespace *ns, int cap);

/*
 * new (a private copy, not yet published) becomes the creds of the
 * first process of a new namespace, child of new's: owner and group its
 * effective ids, every capability in it and none else (Linux's
 * create_user_ns and set_cred_user_ns).  0, -ENOSPC past 32 levels,
 * -EPERM when its ids are not mapped in its namespace, -ENOMEM.
 */
int user_ns_create(struct cred *new);

/* The namespace owning ns of another kind (its ops->owner). */
struct user_namespace *ns_owner(struct ns_common *ns);
/* setns into ns of another kind: Linux's check, CAP_SYS_ADMIN over its
 * owner and over the caller's namespace. */
bool ns_may_install(struct ns_common *ns);
/* For NS_GET_USERNS and NS_GET_PARENT: whether the caller's namespace
 * is ns or an ancestor of it (else EPERM: it lies outside). */
bool user_ns_visible(const struct user_namespace *ns);

struct user_namespace *to_user_ns(struct ns_common *ns);

/* /proc/<pid>/uid_map, gid_map and setgroups, as reader opener sees
 * them (Linux's seq_user_ns: the opener's namespace): the text. */
long user_ns_map_text(const struct user_namespace *ns, const struct user_namespace *reader,
		      bool gid, char *buf, size_t size);
long user_ns_setgroups_text(const struct user_namespace *ns, char *buf, size_t size);
/* A write of text (len bytes, NUL-terminated, at position pos) to them by
 * the caller, the file opened with creds opener: len or -errno. */
long user_ns_map_write(struct user_namespace *ns, const struct cred *opener, bool gid,
		       const char *text, size_t len, uint64_t pos);
long user_ns_setgroups_write(struct user_namespace *ns, const struct cred *opener, const char *text,
			     size_t len, uint64_t pos);
/* setgroups may be called in ns: its gid_map written and setgroups not
 * denied (Linux's userns_may_setgroups). */
bool user_ns_may_setgroups(const struct user_namespace *ns);

/* Live namespaces but the initial one (the leak check). */
unsigned long user_ns_count(void);

#endif
