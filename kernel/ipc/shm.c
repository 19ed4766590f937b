/*
 * System V shared memory: shmget, shmat, shmdt, shmctl, /proc/sysvipc/shm.
 * A segment's pages are an unnamed ramfs file of its size, as Linux's are
 * a shmem file: an attach is a shared mapping of that file (mm/vma.c),
 * so every attacher maps the same frames, faulted in on first touch and
 * charged to the ramfs size limit, and fork, munmap, mremap, mprotect,
 * exec and exit treat attaches as the mappings they are.  The attach's
 * vma carries shm_vma_ops, so the segment counts the vmas mapping it.
 */
#include "arch/x86_64/uaccess.h"
#include "fs/file.h"
#include "fs/inode.h"
#include "fs/super.h"
#include "fs/snapshot.h"
#include "ipc/ids.h"
#include "ipc/ipc.h"
#include "lib/printk.h"
#include "mm/frame.h"
#include "mm/heap.h"
#include "proc/task.h"
#include "mm/uvm.h"
#include "mm/vma.h"
#include "sys/syscall.h"
#include <uapi/errno.h>
#include <uapi/mman.h>

struct shm_seg {
	struct kern_ipc_perm perm;
	/* The pages: an unnamed regular inode of segsz bytes.  Referenced by
	 * the segment until it is freed, and by each attach's vma (vma->file),
	 * so a page fault in an attach never outlives its file. */
	struct inode *file;
	uint64_t segsz;
	int32_t name_key; /* the key it was made with, its name in maps (constant) */
	int64_t atime, dtime, ctime;
	int cpid, lpid;
	/* The vmas mapping the segment (shm_vma_ops) and the shmats in
	 * progress.  Lifetime: the segment lives while it is registered and
	 * not removed, or while nattch > 0; IPC_RMID of an attached segment
	 * marks it SHM_DEST and the last detach frees it. */
	unsigned long nattch;
	/* The namespace whose registry holds it (constant): alive while the
	 * segment is, each attach's vma holding a reference on it. */
	struct ipc_namespace *ns;
};

/* ns->shm_ids.lock: the registry, every segment's fields, and shm_tot. */
static unsigned long all_segs; /* atomic: segments of every namespace */

static const struct vma_ops shm_vma_ops;

static struct shm_seg *seg_of(struct kern_ipc_perm *p)
{
	return container_of(p, struct shm_seg, perm);
}

/* The segment with this id in ns (its lock held), or NULL. */
static struct shm_seg *seg_find(struct ipc_namespace *ns, int shmid)
{
	struct kern_ipc_perm *p = ipc_find(&ns->shm_ids, shmid);

	return p ? seg_of(p) : NULL;
}

static uint64_t seg_pages(const struct shm_seg *seg)
{
	return PAGE_ALIGN_UP(seg->segsz) >> PAGE_SHIFT;
}

/* Takes a segment that can no longer be reached out of the registry
 * (shm_ids.lock held): the caller frees it with seg_free, unlocked. */
static void seg_unregister(struct shm_seg *seg)
{
	seg->ns->shm_tot -= seg_pages(seg);
	ipc_rmid(&seg->ns->shm_ids, &seg->perm);
}

static void seg_free(struct shm_seg *seg)
{
	if (seg->file)
		inode_put(seg->file);
	kfree(seg);
}

/* Whether a segment must go now: removed and no longer attached. */
static bool seg_dying(const struct shm_seg *seg)
{
	return !seg->nattch && (seg->perm.mode & SHM_DEST);
}

/* Drops an attach (a vma, with its namespace reference, or a shmat's
 * pin): the last of a removed segment frees it. */
static void seg_detach(struct shm_seg *seg, bool vma)
{
	struct ipc_namespace *ns = seg->ns;
	bool dying;

	spin_lock(&ns->shm_ids.lock);
	if (vma) {
		seg->lpid = ipc_tgid();
		seg->dtime = ipc_now();
	}
	seg->nattch--;
	if ((dying = seg_dying(seg)))
		seg_unregister(seg);
	spin_unlock(&ns->shm_ids.lock);
	if (dying)
		seg_free(seg);
	if (vma)
		ipc_ns_put(ns);
}

/* A vma now maps v->priv: shmat's, a fork's copy, a split's half. */
static void shm_vma_open(struct vma *v)
{
	struct shm_seg *seg = v->priv;

	ipc_ns_get(seg->ns);
	spin_lock(&seg->ns->shm_ids.lock);
	seg->atime = ipc_now();
	seg->lpid = ipc_tgid();
	seg->nattch++;
	spin_unlock(&seg->ns->shm_ids.lock);
}

static void shm_vma_close(struct vma *v)
{
	seg_detach(v->priv, true);
}

/* As Linux's maps show an attach: the shm device 00:01, the id as inode,
 * "/SYSV<the key it was made with, in hex> (deleted)" (the uvm's lock
 * held: order uvm, shm_ids). */
static void shm_vma_describe(const struct vma *v, uint64_t *dev, uint64_t *ino, char *name,
			     size_t size)
{
	struct shm_seg *seg = v->priv;

	spin_lock(&seg->ns->shm_ids.lock);
	*ino = (uint64_t)seg->perm.id;
	snprintk(name, size, "/SYSV%08x (deleted)", (uint32_t)seg->name_key);
	spin_unlock(&seg->ns->shm_ids.lock);
	*dev = 1;
}

/* Another attach holds it, or it was not removed (see vma_ops). */
static bool shm_vma_remappable(struct vma *pin)
{
	struct shm_seg *seg = pin->priv;
	bool ok;

	spin_lock(&seg->ns->shm_ids.lock);
	ok = seg->nattch > 1 || !(seg->perm.mode & SHM_DEST);
	spin_unlock(&seg->ns->shm_ids.lock);
	return ok;
}

static const struct vma_ops shm_vma_ops = {.open = shm_vma_open,
					   .close = shm_vma_close,
					   .describe = shm_vma_describe,
					   .remappable = shm_vma_remappable};

/* ---- shmget ---- */

/* Linux's newseg checks, in its order (get_lock held): 0 or -errno. */
static int newseg_check(struct ipc_namespace *ns, const struct ipc_params *p)
{
	uint64_t pages = PAGE_ALIGN_UP(p->size) >> PAGE_SHIFT;
	bool over;

	if (p->size < SHMMIN || p->size > __atomic_load_n(&ns->shm_ctlmax, __ATOMIC_RELAXED))
		return -EINVAL;
	if (pages << PAGE_SHIFT < p->size)
		return -ENOSPC; /* the size wraps */
	spin_lock(&ns->shm_ids.lock);
	over = ns->shm_tot + pages < ns->shm_tot ||
	       ns->shm_tot + pages > __atomic_load_n(&ns->shm_ctlall, __ATOMIC_RELAXED);
	spin_unlock(&ns->shm_ids.lock);
	if (over)
		return -ENOSPC;
	if (p->flg & SHM_HUGETLB)
		return -EINVAL; /* no huge pages: Linux without hugetlbfs */
	/* Linux's heuristic overcommit refuses a segment larger than memory
	 * (SHM_NORESERVE skips the check); a segment's file holds its
	 * instance's maxbytes at most. */
	if (p->size > internal_sb->maxbytes ||
	    (!(p->flg & SHM_NORESERVE) && pages > frame_total_count()))
		return -ENOMEM;
	return 0;
}

/* A segment for p, unregistered, or NULL. */
static struct shm_seg *seg_alloc(const struct ipc_params *p)
{
	struct shm_seg *seg = kzalloc(sizeof(*seg));

	if (!seg)
		return NULL;
	seg->file = inode_alloc(internal_sb, S_IFREG | (p->flg & S_IRWXUGO), 0);
	if (!seg->file || inode_truncate(seg->file, p->size)) {
		seg_free(seg);
		return NULL;
	}
	seg->perm.key = seg->name_key = p->key;
	seg->perm.mode = p->flg & S_IRWXUGO;
	seg->segsz = p->size;
	seg->cpid = ipc_tgid();
	seg->ctime = ipc_now();
	return seg;
}

static int newseg(struct ipc_ids *ids, const struct ipc_params *p)
{
	struct ipc_namespace *ns = container_of(ids, struct ipc_namespace, shm_ids);
	struct shm_seg *seg;
	int err = newseg_check(ns, p);

	if (err)
		return err;
	if (!(seg = seg_alloc(p)))
		return -ENOMEM;
	seg->ns = ns;
	spin_lock(&ids->lock);
	if ((err = ipc_addid(ids, &seg->perm)) >= 0)
		ns->shm_tot += seg_pages(seg);
	spin_unlock(&ids->lock);
	if (err < 0)
		seg_free(seg);
	return err;
}

/* A get of an existing segment asks for no more than its size. */
static int shm_more_checks(struct kern_ipc_perm *obj, const struct ipc_params *p)
{
	return seg_of(obj)->segsz < p->size ? -EINVAL : 0;
}

SYSCALL_DEFINE3(shmget, int32_t, key, uint64_t, size, int, shmflg)
{
	static const struct ipc_get_ops ops = {.getnew = newseg, .more_checks = shm_more_checks};
	struct ipc_params p = {.key = key, .flg = shmflg, .size = size};

	return ipcget(&current_ipc()->shm_ids, &ops, &p);
}

/* ---- shmat, shmdt ---- */

/*
 * Where an attach of len bytes goes in u (locked): at addr if fixed (a
 * mapping there is EINVAL, or replaced with SHM_REMAP), else where mmap
 * would put it.  The start in *start, or -errno as Linux: ENOMEM past the
 * end of user space; EINVAL where fdkernel's mmap refuses MAP_FIXED too
 * (below 64 KiB: memory.md).
 */
static int attach_place(struct uvm *u, uint64_t addr, uint64_t len, bool fixed, int shmflg,
			uint64_t *start)
{
	if (!fixed)
		return (*start = vma_place(u, len, 0)) ? 0 : -ENOMEM;
	if (!(shmflg & SHM_REMAP) && (addr + len < addr || !vma_range_free(u, addr, addr + len)))
		return -EINVAL;
	if (addr + len < addr || addr + len > USER_STACK_TOP)
		return -ENOMEM; /* Linux: past TASK_SIZE */
	if (!uvm_range_ok(addr, len))
		return -EINVAL;
	*start = addr;
	return shmflg & SHM_REMAP ? vma_remove(u, addr, addr + len) : 0;
}

/* Maps seg (pinned by the caller) in the caller's memory: its address or -errno. */
static long attach(struct shm_seg *seg, uint64_t addr, bool fixed, int shmflg, int prot)
{
	struct uvm *u = current()->uvm;
	struct vma tmpl = {
	    .prot = prot,
	    .flags = VMA_SHARED | (shmflg & SHM_RDONLY ? 0 : VMA_MAYWRITE),
	    .file = seg->file, /* constant while pinned */
	    .ops = &shm_vma_ops,
	    .priv = seg,
	};
	uint64_t len = PAGE_ALIGN_UP(inode_size(seg->file));
	int err;

	spin_lock(&u->lock);
	err = attach_place(u, addr, len, fixed, shmflg, &tmpl.start);
	tmpl.end = tmpl.start + len;
	if (!err)
		err = vma_insert(u, &tmpl); /* its copy opens an attach */
	spin_unlock(&u->lock);
	return err ? err : (long)tmpl.start;
}

static long do_shmat(int shmid, uint64_t addr, int shmflg)
{
	struct ipc_namespace *ns = current_ipc();
	int prot = PROT_READ, want = S_IRUGO;
	struct shm_seg *seg;
	bool fixed = addr != 0;
	long ret;

	if (shmid < 0)
		return -EINVAL;
	if (addr & (SHMLBA - 1)) {
		if (!(shmflg & SHM_RND))
			return -EINVAL;
		addr &= ~(uint64_t)(SHMLBA - 1);
		if (!addr && (shmflg & SHM_REMAP))
			return -EINVAL;
	} else if (!addr && (shmflg & SHM_REMAP)) {
		return -EINVAL;
	}
	if (!(shmflg & SHM_RDONLY)) {
		prot |= PROT_WRITE;
		want |= S_IWUGO;
	}
	if (shmflg & SHM_EXEC) {
		prot |= PROT_EXEC;
		want |= 0111;
	}
	spin_lock(&ns->shm_ids.lock);
	seg = seg_find(ns, shmid);
	ret = !seg ? -EINVAL : !ipc_permitted(&seg->perm, want) ? -EACCES : 0;
	if (!ret)
		seg->nattch++; /* the pin: the segment cannot go while we map it */
	spin_unlock(&ns->shm_ids.lock);
	if (ret)
		return ret;
	ret = attach(seg, addr, fixed, shmflg, prot);
	seg_detach(seg, false);
	return ret;
}

SYSCALL_DEFINE3(shmat, int, shmid, uint64_t, shmaddr, int, shmflg)
{
	return do_shmat(shmid, shmaddr, shmflg);
}

/* Whether v is the part of an attach at addr that maps offset v->off. */
static bool attach_part(const struct vma *v, uint64_t addr)
{
	return v->ops == &shm_vma_ops && v->start - addr == v->off;
}

/*
 * shmdt: unmaps the attach at addr, and the pieces mprotect or munmap
 * left of it, as Linux: the first attach part at or above addr whose
 * offset matches gives the segment and its size, then every part of that
 * segment within the size is unmapped.  EINVAL if there is none.
 */
static long detach_at(struct uvm *u, uint64_t addr)
{
	struct inode *file;
	uint64_t size, next;
	struct vma *v;

	for (v = vma_find(u, addr); v && !attach_part(v, addr); v = vma_next(u, v))
		;
	if (!v)
		return -EINVAL;
	file = v->file; /* the segment's: compared, never followed once freed */
	size = PAGE_ALIGN_UP(inode_size(file));
	next = v->end;
	vma_remove(u, v->start, v->end); /* whole vmas: cannot fail */
	while ((v = vma_find(u, next)) && v->end - addr <= size) {
		next = v->end;
		if (attach_part(v, addr) && v->file == file)
			vma_remove(u, v->start, v->end);
	}
	return 0;
}

SYSCALL_DEFINE1(shmdt, uint64_t, shmaddr)
{
	struct uvm *u = current()->uvm;
	long ret;

	if (shmaddr & PAGE_MASK)
		return -EINVAL;
	spin_lock(&u->lock);
	ret = detach_at(u, shmaddr);
	spin_unlock(&u->lock);
	return ret;
}

/* ---- shmctl ---- */

static long shm_ipc_info(struct ipc_namespace *ns, uint64_t buf)
{
	uint64_t mni = (uint64_t)__atomic_load_n(&ns->shm_ids.mni, __ATOMIC_RELAXED);
	struct shminfo64 info = {
	    .shmmax = __atomic_load_n(&ns->shm_ctlmax, __ATOMIC_RELAXED),
	    .shmmin = SHMMIN,
	    .shmall = __atomic_load_n(&ns->shm_ctlall, __ATOMIC_RELAXED),
	    .shmmni = mni,
	    .shmseg = mni,
	};

	return ipc_info(&ns->shm_ids, NULL, &info, sizeof(info), buf);
}

/* Resident pages of every segment of ns (its lock held; the order is
 * shm_ids.lock, then an inode's). */
static uint64_t shm_rss(struct ipc_namespace *ns)
{
	uint64_t rss = 0;

	for (int idx = 0; idx <= ns->shm_ids.max_idx; idx++) {
		struct kern_ipc_perm *p = ipc_find_idx(&ns->shm_ids, idx);
		if (p)
			rss += inode_resident_pages(seg_of(p)->file);
	}
	return rss;
}

/* SHM_INFO's figures (the caller's namespace's lock held). */
static void shm_in_use(void *p)
{
	struct ipc_namespace *ns = current_ipc();
	struct shm_info *info = p;

	info->used_ids = ns->shm_ids.in_use;
	info->shm_tot = ns->shm_tot;
	info->shm_rss = shm_rss(ns);
}

static void seg_stat(struct kern_ipc_perm *p, void *out)
{
	struct shm_seg *seg = seg_of(p);
	struct shmid64_ds *ds = out;

	ipc_perm_out(&seg->perm, &ds->shm_perm);
	ds->shm_segsz = seg->segsz;
	ds->shm_atime = seg->atime;
	ds->shm_dtime = seg->dtime;
	ds->shm_ctime = seg->ctime;
	ds->shm_cpid = seg->cpid;
	ds->shm_lpid = seg->lpid;
	ds->shm_nattch = seg->nattch;
}

/* IPC_SET (with ds) and IPC_RMID: the owner's commands. */
static long shm_down(struct ipc_namespace *ns, int shmid, int cmd, const struct shmid64_ds *ds)
{
	struct shm_seg *seg, *dead = NULL;
	long ret;

	spin_lock(&ns->shm_ids.lock);
	seg = seg_find(ns, shmid);
	ret = !seg ? -EINVAL : !ipc_may_change(&seg->perm) ? -EPERM : 0;
	if (!ret && cmd == IPC_SET && !(ret = ipc_update_perm(&ds->shm_perm, &seg->perm)))
		seg->ctime = ipc_now();
	if (!ret && cmd == IPC_RMID) {
		seg->perm.mode |= SHM_DEST;
		ipc_set_key_private(&ns->shm_ids, &seg->perm); /* no get finds it now */
		if (seg_dying(seg)) {
			seg_unregister(seg);
			dead = seg;
		}
	}
	spin_unlock(&ns->shm_ids.lock);
	if (dead)
		seg_free(dead);
	return ret;
}

/* SHM_LOCK and SHM_UNLOCK: every page stays in memory here, so locking
 * is the SHM_LOCKED mode bit that IPC_STAT shows. */
static long shm_lock(struct ipc_namespace *ns, int shmid, int cmd)
{
	struct shm_seg *seg;
	long ret;

	spin_lock(&ns->shm_ids.lock);
	seg = seg_find(ns, shmid);
	ret = !seg ? -EINVAL : !ipc_may_lock(&seg->perm) ? -EPERM : 0;
	if (!ret && cmd == SHM_LOCK)
		seg->perm.mode |= SHM_LOCKED;
	else if (!ret)
		seg->perm.mode &= ~SHM_LOCKED;
	spin_unlock(&ns->shm_ids.lock);
	return ret;
}

SYSCALL_DEFINE3(shmctl, int, shmid, int, cmd, uint64_t, buf)
{
	struct ipc_namespace *ns = current_ipc();
	struct shmid64_ds ds = {0};

	if (cmd < 0 || shmid < 0)
		return -EINVAL;
	switch (cmd) {
	case IPC_INFO:
		return shm_ipc_info(ns, buf);
	case SHM_INFO:
		return ipc_info(&ns->shm_ids, shm_in_use, &(struct shm_info){0},
				sizeof(struct shm_info), buf);
	case IPC_STAT:
		return ipc_stat(&ns->shm_ids, shmid, IPC_STAT_ID, seg_stat, &ds, sizeof(ds), buf);
	case SHM_STAT:
		return ipc_stat(&ns->shm_ids, shmid, IPC_STAT_INDEX, seg_stat, &ds, sizeof(ds),
				buf);
	case SHM_STAT_ANY:
		return ipc_stat(&ns->shm_ids, shmid, IPC_STAT_INDEX_ANY, seg_stat, &ds, sizeof(ds),
				buf);
	case IPC_SET:
		if (copy_from_user(&ds, (void *)buf, sizeof(ds)))
			return -EFAULT;
		return shm_down(ns, shmid, cmd, &ds);
	case IPC_RMID:
		return shm_down(ns, shmid, cmd, NULL);
	case SHM_LOCK:
	case SHM_UNLOCK:
		return shm_lock(ns, shmid, cmd);
	default:
		return -EINVAL;
	}
}

/* ---- /proc/sysvipc/shm, the leak check, start-up ---- */

#define SHM_HEADER                                                                                 \
	"       key      shmid perms                  size  cpid  lpid nattch   uid   gid  cuid  " \
	"cgid      atime      dtime      ctime                   rss                  swap\n"
#define SHM_LINE_MAX 200

static void shm_show(struct kern_ipc_perm *p, char *buf, size_t size, size_t *len)
{
	struct shm_seg *seg = seg_of(p);

	appendk(
	    buf, size, len,
	    "%10d %10d  %4o %21lu %5u %5u  %5lu %5u %5u %5u %5u %10ld %10ld %10ld %21lu %21lu\n",
	    p->key, p->id, p->mode, seg->segsz, seg->cpid, seg->lpid, seg->nattch, p->uid, p->gid,
	    p->cuid, p->cgid, seg->atime, seg->dtime, seg->ctime,
	    inode_resident_pages(seg->file) * PAGE_SIZE, 0UL);
}

IPC_PROC_OPS(sysvipc_shm_ops, shm_ids, SHM_HEADER, SHM_LINE_MAX, shm_show);

unsigned long shm_segment_count(void)
{
	return __atomic_load_n(&all_segs, __ATOMIC_RELAXED);
}

void shm_init_ns(struct ipc_namespace *ns)
{
	ipc_ids_init(&ns->shm_ids, "shm_ids", "shm_get", SHMMNI, &all_segs);
	ns->shm_ctlmax = SHMMAX;
	ns->shm_ctlall = SHMALL;
}

/* No attach is left (each holds a reference on ns): every segment goes. */
void shm_exit_ns(struct ipc_namespace *ns)
{
	for (int idx = 0; idx <= ns->shm_ids.max_idx; idx++) {
		struct kern_ipc_perm *p;
		spin_lock(&ns->shm_ids.lock);
		if ((p = ipc_find_idx(&ns->shm_ids, idx)))
			seg_unregister(seg_of(p));
		spin_unlock(&ns->shm_ids.lock);
		if (p)
			seg_free(seg_of(p));
	}
}
