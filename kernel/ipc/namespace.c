/*
 * ipc namespaces (ids.h's struct ipc_namespace; Linux's ipc/namespace.c):
 * the initial one, copies made by clone and unshare with CLONE_NEWIPC
 * (empty registries, Linux's default tunables), setns into one, and the
 * end of one.
 */
#include "ipc/ids.h"
#include "ipc/ipc.h"
#include "lib/list.h"
#include "mm/heap.h"
#include "proc/cred.h"
#include "proc/nsproxy.h"
#include "proc/task.h"
#include "proc/user_namespace.h"
#include "sched/grace.h"
#include <uapi/errno.h>

static const struct ns_ops ipc_ops;
struct ipc_namespace init_ipc_ns = {.ns = {NS_IPC_INUM, &ipc_ops}, .refs = 1};
static unsigned long live_ipc; /* atomic: namespaces but the initial one */

static void ipc_ns_start(struct ipc_namespace *ns)
{
	shm_init_ns(ns);
	sem_init_ns(ns);
	msg_init_ns(ns);
}

void ipc_init(void)
{
	ipc_ns_start(&init_ipc_ns);
}

struct ipc_namespace *current_ipc(void)
{
	return current_nsproxy()->ipc;
}

struct ipc_namespace *ipc_ns_new(struct user_namespace *owner)
{
	struct ipc_namespace *ns = kzalloc(sizeof(*ns));

	if (!ns)
		return NULL;
	ns->ns = (struct ns_common){nsfs_alloc_inum(), &ipc_ops};
	user_ns_get(ns->owner = owner);
	ns->refs = 1;
	ipc_ns_start(ns);
	__atomic_add_fetch(&live_ipc, 1, __ATOMIC_RELAXED);
	return ns;
}

void ipc_ns_get(struct ipc_namespace *ns)
{
	__atomic_add_fetch(&ns->refs, 1, __ATOMIC_RELAXED);
}

/* The end of a namespace nothing holds: its objects, then itself. */
static void ipc_ns_free(struct grace_head *head)
{
	struct ipc_namespace *ns = container_of(head, struct ipc_namespace, grace);

	shm_exit_ns(ns);
	sem_exit_ns(ns);
	msg_exit_ns(ns);
	user_ns_put(ns->owner);
	kfree(ns);
	__atomic_sub_fetch(&live_ipc, 1, __ATOMIC_RELAXED);
}

/* The last put may come from an attach's end, under the uvm's lock,
 * where freeing what the namespace holds (large messages: a TLB
 * shootdown) must not happen: the end runs later, without locks. */
void ipc_ns_put(struct ipc_namespace *ns)
{
	if (!__atomic_sub_fetch(&ns->refs, 1, __ATOMIC_ACQ_REL))
		grace_defer(&ns->grace, ipc_ns_free);
}

struct ns_common *ipc_ns_common(struct ipc_namespace *ns)
{
	return &ns->ns;
}

unsigned long ipc_ns_count(void)
{
	return __atomic_load_n(&live_ipc, __ATOMIC_RELAXED);
}

static struct ipc_namespace *to_ipc(struct ns_common *ns)
{
	return container_of(ns, struct ipc_namespace, ns);
}

static void ipc_ns_get_common(struct ns_common *ns)
{
	ipc_ns_get(to_ipc(ns));
}

static void ipc_ns_put_common(struct ns_common *ns)
{
	ipc_ns_put(to_ipc(ns));
}

/* setns: CAP_SYS_ADMIN; the caller's semaphore undo list goes, applied
 * to the old namespace's sets, as Linux's ipcns_install. */
static int ipc_install(struct ns_common *ns)
{
	struct nsproxy *n;

	if (!ns_may_install(ns))
		return -EPERM;
	if (!(n = nsproxy_copy_current()))
		return -ENOMEM;
	sem_undo_exit(current());
	ipc_ns_get(to_ipc(ns));
	ipc_ns_put(n->ipc);
	n->ipc = to_ipc(ns);
	nsproxy_switch(n);
	return 0;
}

static struct user_namespace *ipc_owner(struct ns_common *ns)
{
	return to_ipc(ns)->owner;
}

static const struct ns_ops ipc_ops = {
    .kind = NS_IPC,
    .get = ipc_ns_get_common,
    .put = ipc_ns_put_common,
    .install = ipc_install,
    .owner = ipc_owner,
};
