/*
 * User namespaces (user_namespace.h): their life, id translation through
 * their maps, capabilities relative to a namespace, the owner of the
 * other namespaces, setns into one, and /proc/<pid>/uid_map, gid_map
 * and setgroups with Linux's rules for writing them.
 */
#include "proc/user_namespace.h"
#include "fs/nsfs.h"
#include "lib/printk.h"
#include "lib/string.h"
#include "mm/heap.h"
#include "mm/layout.h"
#include "proc/cred.h"
#include "proc/proc.h"
#include "proc/group.h"
#include "proc/task.h"
#include "fs/root_cwd.h"
#include "sched/mutex.h"
#include <uapi/errno.h>

/* The initial namespace's maps: every id is itself. */
static struct uid_gid_map identity = {.nr = 1, .extent = {{0, 0, 4294967295U}}};

static const struct ns_ops user_ns_ops;
struct user_namespace init_user_ns = {
    .ns = {NS_USER_INUM, &user_ns_ops},
    .refs = 1,
    .uid_map = &identity,
    .gid_map = &identity,
};

static unsigned long live_user_ns; /* atomic */
/* Writes of the maps and of setgroups (Linux's userns_state_mutex):
 * each is written once, and a gid_map and "deny" exclude each other. */
static struct mutex map_lock = {0, NULL, "userns_map"};

struct user_namespace *current_user_ns(void)
{
	return cred_current()->user_ns;
}

void user_ns_get(struct user_namespace *ns)
{
	__atomic_add_fetch(&ns->refs, 1, __ATOMIC_RELAXED);
}

/* The last reference goes: the maps, then the parent's reference (a
 * loop, not recursion: a chain may be 32 long). */
void user_ns_put(struct user_namespace *ns)
{
	while (ns && !__atomic_sub_fetch(&ns->refs, 1, __ATOMIC_ACQ_REL)) {
		struct user_namespace *parent = ns->parent;

		kfree(ns->uid_map);
		kfree(ns->gid_map);
		kfree(ns);
		__atomic_sub_fetch(&live_user_ns, 1, __ATOMIC_RELAXED);
		ns = parent;
	}
}

unsigned long user_ns_count(void)
{
	return __atomic_load_n(&live_user_ns, __ATOMIC_RELAXED);
}

/* ---- ids ---- */

/* ns's uid or gid map, as published (user_ns_map_write), or NULL. */
static const struct uid_gid_map *map_of(const struct user_namespace *ns, bool gid)
{
	return __atomic_load_n(gid ? &ns->gid_map : &ns->uid_map, __ATOMIC_ACQUIRE);
}

/* Linux's map_id_range_down: the lower id of ids id..id+count-1, all in
 * one extent, or INVALID_ID. */
static uint32_t map_down(const struct uid_gid_map *map, uint32_t id, uint32_t count)
{
	uint32_t last = id + count - 1;

	for (uint32_t i = 0; map && i < map->nr; i++) {
		const struct uid_gid_extent *e = &map->extent[i];

		if (id >= e->first && last >= id && last <= e->first + (e->count - 1))
			return e->lower_first + (id - e->first);
	}
	return INVALID_ID;
}

static uint32_t map_up(const struct uid_gid_map *map, uint32_t id)
{
	for (uint32_t i = 0; map && i < map->nr; i++) {
		const struct uid_gid_extent *e = &map->extent[i];

		if (id >= e->lower_first && id <= e->lower_first + (e->count - 1))
			return e->first + (id - e->lower_first);
	}
	return INVALID_ID;
}

/* The initial namespace's maps are the identity (0..2^32-2, so
 * INVALID_ID stays itself): its ids are not looked up. */
uint32_t make_kuid(const struct user_namespace *ns, uint32_t uid)
{
	return ns == &init_user_ns ? uid : map_down(map_of(ns, false), uid, 1);
}

uint32_t make_kgid(const struct user_namespace *ns, uint32_t gid)
{
	return ns == &init_user_ns ? gid : map_down(map_of(ns, true), gid, 1);
}

uint32_t from_kuid(const struct user_namespace *ns, uint32_t kuid)
{
	return ns == &init_user_ns ? kuid : map_up(map_of(ns, false), kuid);
}

uint32_t from_kgid(const struct user_namespace *ns, uint32_t kgid)
{
	return ns == &init_user_ns ? kgid : map_up(map_of(ns, true), kgid);
}

uint32_t from_kuid_munged(const struct user_namespace *ns, uint32_t kuid)
{
	uint32_t id = from_kuid(ns, kuid);

	return id == INVALID_ID ? OVERFLOW_ID : id;
}

uint32_t from_kgid_munged(const struct user_namespace *ns, uint32_t kgid)
{
	uint32_t id = from_kgid(ns, kgid);

	return id == INVALID_ID ? OVERFLOW_ID : id;
}

/* ---- capabilities ---- */

bool cred_ns_capable(const struct cred *c, const struct user_namespace *ns, int cap)
{
	for (;;) {
		if (ns == c->user_ns)
			return c->cap_effective & CAP_TO_MASK(cap);
		/* Not below c's namespace: nothing of c's counts there. */
		if (ns->level <= c->user_ns->level)
			return false;
		if (ns->parent == c->user_ns && ns->owner == c->euid)
			return true;
		ns = ns->parent;
	}
}

bool ns_capable(const struct user_namespace *ns, int cap)
{
	return cred_ns_capable(cred_current(), ns, cap);
}

bool user_ns_visible(const struct user_namespace *ns)
{
	const struct user_namespace *mine = current_user_ns();

	for (; ns; ns = ns->parent)
		if (ns == mine)
			return true;
	return false;
}

/* ---- making one, entering one ---- */

/* new's creds in namespace ns (referenced by the caller for new): every
 * capability there, none inherited (Linux's set_cred_user_ns). */
static void cred_enter(struct cred *new, struct user_namespace *ns)
{
	user_ns_put(new->user_ns);
	new->user_ns = ns;
	new->securebits = 0;
	new->cap_inheritable = new->cap_ambient = 0;
	new->cap_permitted = new->cap_effective = new->cap_bset = CAP_VALID_MASK;
}

int user_ns_create(struct cred *new)
{
	struct user_namespace *parent = new->user_ns, *ns;

	if (parent->level >= USERNS_MAX_LEVEL)
		return -ENOSPC;
	/* Its creator's ids must mean something where it is (Linux). */
	if (from_kuid(parent, new->euid) == INVALID_ID ||
	    from_kgid(parent, new->egid) == INVALID_ID)
		return -EPERM;
	if (!(ns = kzalloc(sizeof(*ns))))
		return -ENOMEM;
	ns->ns = (struct ns_common){.inum = nsfs_alloc_inum(), .ops = &user_ns_ops};
	ns->refs = 1; /* new's */
	user_ns_get(parent);
	ns->parent = parent;
	ns->level = parent->level + 1;
	ns->owner = new->euid;
	ns->group = new->egid;
	__atomic_add_fetch(&live_user_ns, 1, __ATOMIC_RELAXED);
	cred_enter(new, ns);
	return 0;
}

struct user_namespace *to_user_ns(struct ns_common *ns)
{
	return container_of(ns, struct user_namespace, ns);
}

static void user_ns_get_common(struct ns_common *ns)
{
	user_ns_get(to_user_ns(ns));
}

static void user_ns_put_common(struct ns_common *ns)
{
	user_ns_put(to_user_ns(ns));
}

/*
 * setns into a user namespace (Linux's userns_install): not the caller's
 * own, nor while it shares its thread group or fs_struct (EINVAL: they
 * would straddle two namespaces); CAP_SYS_ADMIN over it (EPERM), so
 * only into a namespace below the caller's, never back up.
 */
static int user_ns_install(struct ns_common *common)
{
	struct user_namespace *ns = to_user_ns(common);
	struct task *t = current();
	struct cred *new;

	if (ns == current_user_ns())
		return -EINVAL;
	if (__atomic_load_n(&t->group->live, __ATOMIC_ACQUIRE) > 1 ||
	    __atomic_load_n(&t->fs->refs, __ATOMIC_ACQUIRE) > 1)
		return -EINVAL;
	if (!ns_capable(ns, CAP_SYS_ADMIN))
		return -EPERM;
	if (!(new = cred_prepare()))
		return -ENOMEM;
	user_ns_get(ns);
	cred_enter(new, ns);
	cred_commit(new);
	return 0;
}

/* NS_GET_PARENT: the parent, referenced; EPERM for the initial one's
 * (none) or one outside the caller's namespace (Linux's ns_get_owner). */
static struct ns_common *user_ns_parent(struct ns_common *common, int *err)
{
	struct user_namespace *parent = to_user_ns(common)->parent;

	if (!parent || !user_ns_visible(parent)) {
		*err = -EPERM;
		return NULL;
	}
	user_ns_get(parent);
	return &parent->ns;
}

static const struct ns_ops user_ns_ops = {
    .kind = NS_USER,
    .get = user_ns_get_common,
    .put = user_ns_put_common,
    .install = user_ns_install,
    .parent = user_ns_parent,
};

/* ---- the owner of the other namespaces ---- */

struct user_namespace *ns_owner(struct ns_common *ns)
{
	struct user_namespace *owner = ns->ops->owner ? ns->ops->owner(ns) : NULL;

	return owner ? owner : &init_user_ns;
}

bool ns_may_install(struct ns_common *ns)
{
	return ns_capable(ns_owner(ns), CAP_SYS_ADMIN) &&
	       ns_capable(current_user_ns(), CAP_SYS_ADMIN);
}

/* ---- /proc/<pid>/uid_map, gid_map, setgroups ---- */

static struct uid_gid_map **slot_of(struct user_namespace *ns, bool gid)
{
	return gid ? &ns->gid_map : &ns->uid_map;
}

/*
 * Linux's uid_m_show: each line as the reader's namespace sees the lower
 * ids (its parent's when the reader is the namespace itself); a lower id
 * the reader cannot name shows as 4294967295, as Linux prints it.
 */
long user_ns_map_text(const struct user_namespace *ns, const struct user_namespace *reader,
		      bool gid, char *buf, size_t size)
{
	const struct uid_gid_map *map = map_of(ns, gid);
	const struct user_namespace *lower = reader == ns && ns->parent ? ns->parent : reader;
	size_t len = 0;

	for (uint32_t i = 0; map && i < map->nr; i++) {
		const struct uid_gid_extent *e = &map->extent[i];
		uint32_t id =
		    gid ? from_kgid(lower, e->lower_first) : from_kuid(lower, e->lower_first);

		appendk(buf, size, &len, "%10u %10u %10u\n", e->first, id, e->count);
	}
	return (long)len;
}

long user_ns_setgroups_text(const struct user_namespace *ns, char *buf, size_t size)
{
	size_t len = 0;

	appendk(buf, size, &len, "%s\n", ns->setgroups_denied ? "deny" : "allow");
	return (long)len;
}

static const char *skip_spaces(const char *s)
{
	while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\v' || *s == '\f' || *s == '\r')
		s++;
	return s;
}

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

/* A decimal number as Linux's simple_strtoul reads it (wrapping at 32
 * bits as its u32 store does), *s moved past the digits. */
static uint32_t read_u32(const char **s)
{
	uint32_t n = 0;

	for (; **s >= '0' && **s <= '9'; (*s)++)
		n = n * 10 + (uint32_t)(**s - '0');
	return n;
}

/* One line, "first lower_first count", blanks around: 0 or -EINVAL. */
static int parse_extent(const char *line, struct uid_gid_extent *e)
{
	const char *p = skip_spaces(line);

	e->first = read_u32(&p);
	if (!is_space(*p))
		return -EINVAL;
	p = skip_spaces(p);
	e->lower_first = read_u32(&p);
	if (!is_space(*p))
		return -EINVAL;
	p = skip_spaces(p);
	e->count = read_u32(&p);
	if (*p && !is_space(*p))
		return -EINVAL;
	if (*skip_spaces(p))
		return -EINVAL;
	/* Valid starts, a count that is not 0 and does not wrap. */
	if (e->first == INVALID_ID || e->lower_first == INVALID_ID)
		return -EINVAL;
	if (e->first + e->count <= e->first || e->lower_first + e->count <= e->lower_first)
		return -EINVAL;
	return 0;
}

static bool ranges_overlap(uint32_t a, uint32_t b, uint32_t count_a, uint32_t count_b)
{
	return a <= b + (count_b - 1) && b <= a + (count_a - 1);
}

/* Lines separated by newlines (the last one's optional), at most
 * UID_GID_MAP_MAX, none overlapping another above or below: 0 or
 * -EINVAL.  text is modified (the newlines become NULs). */
static int parse_map(char *text, struct uid_gid_map *map)
{
	map->nr = 0;
	for (char *line = text, *next; line; line = next) {
		struct uid_gid_extent e;

		if ((next = strchr(line, '\n'))) {
			*next++ = '\0';
			if (!*next)
				next = NULL;
		}
		if (parse_extent(line, &e) || map->nr == UID_GID_MAP_MAX)
			return -EINVAL;
		for (uint32_t i = 0; i < map->nr; i++)
			if (ranges_overlap(map->extent[i].first, e.first, map->extent[i].count,
					   e.count) ||
			    ranges_overlap(map->extent[i].lower_first, e.lower_first,
					   map->extent[i].count, e.count))
				return -EINVAL;
		map->extent[map->nr++] = e;
	}
	return map->nr ? 0 : -EINVAL;
}

/*
 * Linux's new_idmap_permitted: one line mapping the opener's own
 * effective id (a gid only once setgroups is denied) when the opener
 * owns ns; anything else needs CAP_SETUID (CAP_SETGID) over the parent
 * namespace, in both the writer's creds and the opener's.
 */
static bool map_permitted(const struct user_namespace *ns, const struct cred *opener, bool gid,
			  const struct uid_gid_map *map)
{
	int cap = gid ? CAP_SETGID : CAP_SETUID;

	if (map->nr == 1 && map->extent[0].count == 1 && ns->owner == opener->euid) {
		uint32_t id = map->extent[0].lower_first;

		if (!gid && make_kuid(ns->parent, id) == opener->euid)
			return true;
		if (gid && ns->setgroups_denied && make_kgid(ns->parent, id) == opener->egid)
			return true;
	}
	return ns_capable(ns->parent, cap) && cred_ns_capable(opener, ns->parent, cap);
}

/* The checks of proc_uid_map_write and map_write that come before the
 * text is read. */
static long map_write_check(const struct user_namespace *ns, const struct cred *opener, size_t len,
			    uint64_t pos)
{
	/* Only from the namespace or its parent, never the initial one's. */
	if (!ns->parent || (opener->user_ns != ns && opener->user_ns != ns->parent))
		return -EPERM;
	if (pos || len >= PAGE_SIZE)
		return -EINVAL;
	return 0;
}

long user_ns_map_write(struct user_namespace *ns, const struct cred *opener, bool gid,
		       const char *text, size_t len, uint64_t pos)
{
	struct uid_gid_map *map, *fit = NULL; /* parsed; published (its size) */
	char *copy;
	long err = map_write_check(ns, opener, len, pos);

	if (err)
		return err;
	if (!(copy = kmalloc(len + 1)) ||
	    !(map = kmalloc(sizeof(*map) + UID_GID_MAP_MAX * sizeof(map->extent[0])))) {
		kfree(copy);
		return -ENOMEM;
	}
	memcpy(copy, text, len);
	copy[len] = '\0';
	mutex_lock(&map_lock);
	err = -EPERM; /* written already, or no CAP_SYS_ADMIN over ns */
	if (*slot_of(ns, gid) || !cred_ns_capable(opener, ns, CAP_SYS_ADMIN))
		goto out;
	if ((err = parse_map(copy, map)))
		goto out;
	err = -EPERM;
	if (!map_permitted(ns, opener, gid, map))
		goto out;
	/* The lower ids, the parent's, become kernel ids: each line wholly
	 * inside one of the parent's. */
	for (uint32_t i = 0; i < map->nr; i++) {
		struct uid_gid_extent *e = &map->extent[i];
		const struct uid_gid_map *up = map_of(ns->parent, gid);

		if ((e->lower_first = map_down(up, e->lower_first, e->count)) == INVALID_ID)
			goto out;
	}
	err = -ENOMEM;
	if (!(fit = kmalloc(sizeof(*fit) + map->nr * sizeof(fit->extent[0]))))
		goto out;
	memcpy(fit, map, sizeof(*fit) + map->nr * sizeof(fit->extent[0]));
	__atomic_store_n(slot_of(ns, gid), fit, __ATOMIC_RELEASE);
	err = (long)len;
out:
	mutex_unlock(&map_lock);
	kfree(map);
	kfree(copy);
	return err;
}

long user_ns_setgroups_write(struct user_namespace *ns, const struct cred *opener, const char *text,
			     size_t len, uint64_t pos)
{
	char buf[8];
	const char *p = buf;
	bool allow;
	long err = 0;

	(void)opener; /* checked at open (proc_pid_open) */
	if (pos || len >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, text, len);
	buf[len] = '\0';
	if (!strncmp(p, "allow", 5))
		p += 5, allow = true;
	else if (!strncmp(p, "deny", 4))
		p += 4, allow = false;
	else
		return -EINVAL;
	if (*skip_spaces(p))
		return -EINVAL;
	mutex_lock(&map_lock);
	/* Denied stays denied; once a gid_map exists it stays allowed. */
	if (allow ? ns->setgroups_denied : ns->gid_map != NULL)
		err = -EPERM;
	else
		ns->setgroups_denied = !allow;
	mutex_unlock(&map_lock);
	return err ? err : (long)len;
}

bool user_ns_may_setgroups(const struct user_namespace *ns)
{
	bool ok;

	mutex_lock(&map_lock);
	ok = ns->gid_map && !ns->setgroups_denied;
	mutex_unlock(&map_lock);
	return ok;
}
