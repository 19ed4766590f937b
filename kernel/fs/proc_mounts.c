/*
 * /proc/<pid>/mounts and mountinfo: the table of the process's mount
 * namespace as the process sees it from its root.  The table is copied first (mount_snapshot, each
 * copy holding its mount), and the paths are found after mount_lock is dropped (getcwd takes
 * directory locks), so a concurrent umount changes nothing the lines are made from.
 */
#include "fs/mount_table.h"
#include "fs/event/poll.h"
#include "fs/mount_tree.h"
#include "fs/root_cwd.h"
#include "fs/super.h"
#include "fs/vfs.h"
#include "lib/printk.h"
#include "lib/string.h"
#include "mm/heap.h"
#include "proc/task.h"

/* The MNT_* flags shown, in Linux's show_mnt_opts order (strictatime,
 * no atime flag, shows nothing). */
static const struct {
	unsigned int flag;
	const char *name;
} mnt_opts[] = {
    {MNT_NOSUID, ",nosuid"},	       {MNT_NODEV, ",nodev"},		{MNT_NOEXEC, ",noexec"},
    {MNT_NOATIME, ",noatime"},	       {MNT_NODIRATIME, ",nodiratime"}, {MNT_RELATIME, ",relatime"},
    {MNT_NOSYMFOLLOW, ",nosymfollow"},
};

/* The options of a line: the mount's ("rw"/"ro" and its MNT_* flags),
 * then, for mounts only, the instance's. */
static void format_opts(const struct mount_snap *s, bool rdonly, bool sb_opts, char *buf,
			size_t size)
{
	size_t n = strlcpy(buf, rdonly ? "ro" : "rw", size);

	for (size_t i = 0; i < sizeof(mnt_opts) / sizeof(mnt_opts[0]); i++)
		if (s->flags & mnt_opts[i].flag)
			n += snprintk(buf + n, size - n, "%s", mnt_opts[i].name);
	if (sb_opts && n < size)
		strlcpy(buf + n, s->sb_opts, size - n);
}

/* mounts: "ro" when the mount or its instance is (Linux's show_vfsmnt). */
static long mounts_line(const struct mount_snap *s, const char *where, const char *root, char *buf,
			size_t size)
{
	char opts[160];

	(void)root;
	format_opts(s, (s->flags & MNT_READONLY) || s->sb_rdonly, true, opts, sizeof(opts));
	return snprintk(buf, size, "%s %s %s %s 0 0\n", s->source, where, s->type, opts);
}

/* mountinfo: the root is what the mount shows inside its instance ("/"
 * but for bind mounts), the mount's options, then the instance's. */
static long mountinfo_line(const struct mount_snap *s, const char *where, const char *root,
			   char *buf, size_t size)
{
	char opts[160];

	format_opts(s, s->flags & MNT_READONLY, false, opts, sizeof(opts));
	return snprintk(buf, size, "%d %d 0:%u %s %s %s - %s %s %s%s\n", s->id, s->parent_id,
			s->dev, root, where, opts, s->type, s->source, s->sb_rdonly ? "ro" : "rw",
			s->sb_opts);
}

typedef long (*mount_line_fn)(const struct mount_snap *s, const char *where, const char *root,
			      char *buf, size_t size);

static long mounts_format(struct fs_struct *fs, mount_line_fn line, char *buf, size_t size)
{
	size_t n = 0, count = 0, cap = mount_count() + 8;
	struct mount_snap *snap = kzalloc(cap * sizeof(*snap));
	char *where = kmalloc(PATH_MAX), *root = kmalloc(PATH_MAX);
	struct mnt_namespace *ns;
	struct path proc_root;

	if (!snap || !where || !root)
		goto out;
	spin_lock_task(&fs->lock);
	mnt_ns_get(ns = fs->mnt_ns);
	spin_unlock_task(&fs->lock);
	count = mount_snapshot(ns, snap, cap);
	mnt_ns_put(ns);
	fs_get_root(fs, &proc_root);
	for (size_t i = 0; i < count && n < size; i++) {
		/* As Linux: the process's root is "/", mounts outside it are not shown. */
		long len = vfs_getcwd_at(&proc_root, &snap[i].at, where, PATH_MAX);
		if (len > 0 && where[0] == '/' &&
		    vfs_mount_root_path(&snap[i].at, root, PATH_MAX) > 0)
			n += line(&snap[i], where, root, buf + n, size - n);
	}
	path_put(&proc_root);
out:
	for (size_t i = 0; i < count; i++)
		path_put_keep_mark(&snap[i].at); /* reading the table uses no mount */
	kfree(snap);
	kfree(where);
	kfree(root);
	return n < size ? (long)n : (long)size;
}

uint32_t mounts_event(struct ns_common *ns)
{
	return __atomic_load_n(&container_of(ns, struct mnt_namespace, ns)->event,
			       __ATOMIC_ACQUIRE);
}

unsigned mounts_poll(struct file *f, struct ns_common *ns, uint32_t *seen, struct poll_table *pt)
{
	unsigned mask = POLLIN | POLLRDNORM;
	uint32_t event;

	poll_wait(f, &container_of(ns, struct mnt_namespace, ns)->poll, pt); /* f holds ns */
	event = mounts_event(ns);
	/* Each change is reported once to the file's pollers together. */
	if (__atomic_exchange_n(seen, event, __ATOMIC_RELAXED) != event)
		mask |= POLLERR | POLLPRI;
	return mask;
}

long mounts_text(struct fs_struct *fs, char *buf, size_t size)
{
	return mounts_format(fs, mounts_line, buf, size);
}

long mountinfo_text(struct fs_struct *fs, char *buf, size_t size)
{
	return mounts_format(fs, mountinfo_line, buf, size);
}
