/*
 * An inotify instance (a group: Linux's fsnotify_group) as its two halves
 * share it: fs/notify/inotify.c keeps its watches and queues its events,
 * fs/notify/inotify_user.c is its fd and the system calls.  Locks and
 * lifetimes: inotify.c's head comment.
 */
#ifndef FS_NOTIFY_INOTIFY_GROUP_H
#define FS_NOTIFY_INOTIFY_GROUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "fs/inode.h"
#include "lib/list.h"
#include "lib/spinlock.h"
#include "sched/wait.h"
#include <uapi/inotify.h>

#define INOTIFY_EVENT_SIZE sizeof(struct inotify_event)

/* A queued event: its record and name (len bytes, NUL-padded). */
struct inotify_kevent {
	struct list_head link;
	struct inotify_event ev;
	char name[];
};

struct inotify_group {
	/* Protects events, nevents, bytes and the overflow event's place;
	 * woken on wq. */
	struct spinlock lock;
	struct list_head events; /* struct inotify_kevent, oldest first */
	unsigned int nevents;	 /* queued; at most max_events, + the overflow event */
	unsigned int max_events; /* inotify_max_queued_events when created */
	size_t bytes;		 /* FIONREAD: the records and their names (atomic reads) */
	/* IN_Q_OVERFLOW, made with the group so that it can always be
	 * queued; queued (overflowed) at most once at a time. */
	struct inotify_kevent *overflow;
	bool overflowed;
	struct wait_queue wq; /* readers, pollers, epoll */
	/* Under inotify_lock. */
	struct list_head watches; /* struct inotify_watch */
	int last_wd;		  /* wds count up from 1, as Linux's idr */
};

/* A new group, counted against max_user_instances: 0, -EMFILE, -ENOMEM. */
int inotify_group_new(struct inotify_group **out);
/* The group's end (its file's release): every watch goes, then its queue
 * and the group. */
void inotify_group_free(struct inotify_group *g);

/* Takes the oldest event off g's queue (g->lock held, queue not empty),
 * its record into *ev: the caller frees the event with inotify_event_free,
 * unless it is the overflow event (NULL then). */
struct inotify_kevent *inotify_dequeue_locked(struct inotify_group *g, struct inotify_event *ev);
void inotify_event_free(struct inotify_kevent *e);

/* Adds or updates g's watch on ip, whose reference the call takes over:
 * the watch's wd, -EEXIST (IN_MASK_CREATE), -ENOSPC (max_user_watches),
 * -ENOMEM. */
int inotify_watch_add(struct inotify_group *g, struct inode *ip, uint32_t mask);
/* Removes g's watch wd (IN_IGNORED queued): 0 or -EINVAL. */
int inotify_watch_rm(struct inotify_group *g, int wd);
/* One fdinfo line per watch of g into buf. */
void inotify_watches_show(struct inotify_group *g, char *buf, size_t size);

#endif
