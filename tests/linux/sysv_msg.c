/* System V message queues, call by call: msgget, msgsnd's sizes, types and
 * full queues, msgrcv's type selection (0, >0, <0, MSG_EXCEPT),
 * MSG_NOERROR, E2BIG, IPC_NOWAIT, MSG_COPY, every msgctl command with good
 * and bad ids and buffers, /proc/sysvipc/msg.  Waiting senders and
 * receivers are sysv_msg_life's.  Keys are made from the pid. */
#define _GNU_SOURCE
#include <stdint.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/msg.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "testutil.h"

#ifndef MSG_COPY
#define MSG_COPY 040000
#endif

struct msg {
	long mtype;
	char mtext[64];
};

/* Whether the caller has capability cap: CapEff of /proc/self/status;
 * a kernel that shows none (fdkernel: every process is root with every
 * capability) has them all. */
static bool has_cap(int cap)
{
	FILE *f = fopen("/proc/self/status", "r");
	unsigned long long eff = ~0ULL;
	char line[128];

	while (f && fgets(line, sizeof line, f))
		sscanf(line, "CapEff: %llx", &eff);
	if (f)
		fclose(f);
	return eff >> cap & 1;
}

static key_t key_of(int n)
{
	return (key_t)(0x5b000000 | (getpid() & 0xfffff) << 4 | n);
}

static struct msqid_ds stat_of(int id)
{
	struct msqid_ds ds;

	memset(&ds, 0xa5, sizeof(ds));
	if (msgctl(id, IPC_STAT, &ds))
		memset(&ds, 0, sizeof(ds));
	return ds;
}

static int send(int id, long type, const char *text, int flags)
{
	struct msg m = {type, ""};

	snprintf(m.mtext, sizeof m.mtext, "%s", text);
	return msgsnd(id, &m, strlen(text), flags);
}

/* The text of the message msgrcv returns (NUL-terminated), or "" */
static const char *recv_text(int id, long type, int flags)
{
	static struct msg m;
	ssize_t n;

	memset(&m, 0, sizeof m);
	n = msgrcv(id, &m, sizeof m.mtext - 1, type, flags | IPC_NOWAIT);
	return n < 0 ? "" : m.mtext;
}

static void test_get(void)
{
	key_t key = key_of(1);
	time_t t0 = time(NULL) - 1; /* Linux's seconds are its last tick's: they may trail time() */
	int id = msgget(key, IPC_CREAT | IPC_EXCL | 0640);
	struct msqid_ds ds = stat_of(id);

	ok(id >= 0, "msgget with a new key");
	ok(ds.msg_qnum == 0 && ds.msg_cbytes == 0 && ds.msg_qbytes == 16384 && ds.msg_lspid == 0 &&
	       ds.msg_lrpid == 0 && ds.msg_stime == 0 && ds.msg_rtime == 0 && ds.msg_ctime >= t0 &&
	       ds.msg_ctime <= time(NULL),
	   "IPC_STAT: empty, msg_qbytes MSGMNB, no pids, ctime the creation's");
	ok(ds.msg_perm.__ipc_perm_key == key && (ds.msg_perm.mode & 0777) == 0640 &&
	       ds.msg_perm.uid == getuid() && ds.msg_perm.cuid == getuid(),
	   "IPC_STAT: key, mode, owner and creator");
	is_int(msgget(key, 0), id, "the key finds it");
	is_errno(msgget(key, IPC_CREAT | IPC_EXCL), EEXIST, "IPC_CREAT|IPC_EXCL: EEXIST");
	is_errno(msgget(key_of(2), 0), ENOENT, "an unknown key without IPC_CREAT: ENOENT");
	ok(msgctl(id, IPC_RMID, NULL) == 0, "IPC_RMID");
	is_errno(msgget(key, 0), ENOENT, "the key is gone with it");
}

static void test_send_receive(void)
{
	int id = msgget(IPC_PRIVATE, 0600);
	time_t t0 = time(NULL) - 1; /* Linux's seconds are its last tick's: they may trail time() */
	struct msqid_ds ds;

	ok(send(id, 1, "hello", 0) == 0, "msgsnd");
	ds = stat_of(id);
	ok(ds.msg_qnum == 1 && ds.msg_cbytes == 5 && ds.msg_lspid == getpid() && ds.msg_stime >= t0,
	   "one message of 5 bytes, last sender, send time");
	ok(!strcmp(recv_text(id, 0, 0), "hello"), "msgrcv of type 0 takes it");
	ds = stat_of(id);
	ok(ds.msg_qnum == 0 && ds.msg_cbytes == 0 && ds.msg_lrpid == getpid() && ds.msg_rtime >= t0,
	   "empty again, last receiver, receive time");
	send(id, 3, "three", 0);
	send(id, 1, "one", 0);
	send(id, 2, "two", 0);
	send(id, 5, "five", 0);
	send(id, 1, "one again", 0);
	ok(!strcmp(recv_text(id, 2, 0), "two"), "type 2: the first of type 2");
	ok(!strcmp(recv_text(id, -4, 0), "one"), "type -4: the first of the lowest type up to 4");
	ok(!strcmp(recv_text(id, 3, MSG_EXCEPT), "five"),
	   "type 3 with MSG_EXCEPT: the first not 3");
	ok(!strcmp(recv_text(id, 0, 0), "three"), "type 0: the first");
	ok(!strcmp(recv_text(id, -1, 0), "one again"), "type -1: of type 1");
	is_errno(msgrcv(id, &(struct msg){0}, 10, 0, IPC_NOWAIT), ENOMSG,
		 "an empty queue, IPC_NOWAIT: ENOMSG");
	send(id, 4, "four", 0);
	is_errno(msgrcv(id, &(struct msg){0}, 10, 7, IPC_NOWAIT), ENOMSG,
		 "no message of the type: ENOMSG");
	is_errno(msgrcv(id, &(struct msg){0}, 3, 0, IPC_NOWAIT), E2BIG,
		 "a buffer shorter than the message: E2BIG");
	is_int(stat_of(id).msg_qnum, 1, "and the message stays");
	struct msg m = {0, ""};
	ok(msgrcv(id, &m, 3, 0, IPC_NOWAIT | MSG_NOERROR) == 3 && m.mtype == 4 &&
	       !memcmp(m.mtext, "fou", 3) && m.mtext[3] == 0,
	   "MSG_NOERROR: the message cut to the buffer");
	is_int(stat_of(id).msg_qnum, 0, "and gone");
	ok(send(id, 9, "", 0) == 0 && msgrcv(id, &m, 0, 0, IPC_NOWAIT) == 0 && m.mtype == 9,
	   "an empty message");
	msgctl(id, IPC_RMID, NULL);
}

static void test_send_errors(void)
{
	int id = msgget(IPC_PRIVATE, 0600);
	struct msg *big = calloc(1, sizeof(long) + 8193);
	char *page = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	big->mtype = 1;
	is_errno(msgsnd(id, &(struct msg){0, "x"}, 1, 0), EINVAL, "type 0: EINVAL");
	is_errno(msgsnd(id, &(struct msg){-1, "x"}, 1, 0), EINVAL, "a negative type: EINVAL");
	is_errno(msgsnd(id, big, 8193, 0), EINVAL, "8193 bytes (above MSGMAX): EINVAL");
	ok(msgsnd(id, big, 8192, 0) == 0, "8192 bytes");
	is_errno(msgsnd(id, big, (size_t)-1, 0), EINVAL, "a negative size: EINVAL");
	is_errno(msgsnd(id, (void *)16, 1, 0), EFAULT, "a bad message pointer: EFAULT");
	is_errno(syscall(SYS_msgsnd, id, (void *)16, 8193, 0), EFAULT,
		 "the type is read first: EFAULT before the size's EINVAL");
	munmap(page + 4096, 4096);
	*(long *)(page + 4096 - sizeof(long)) = 1;
	is_errno(msgsnd(id, page + 4096 - sizeof(long), 16, 0), EFAULT,
		 "text running into an unmapped page: EFAULT");
	is_errno(msgsnd(id + 1, &(struct msg){1, "x"}, 1, 0), EINVAL, "a bad id: EINVAL");
	is_errno(msgsnd(-1, &(struct msg){1, "x"}, 1, 0), EINVAL, "id -1: EINVAL");
	is_int(stat_of(id).msg_qnum, 1, "only the good one is queued");
	free(big);
	munmap(page, 4096);
	msgctl(id, IPC_RMID, NULL);
}

/* A queue is full by bytes (msg_qbytes) and by message count (also at most
 * msg_qbytes). */
static void test_full(void)
{
	int id = msgget(IPC_PRIVATE, 0600);
	struct msqid_ds ds = stat_of(id);

	ds.msg_qbytes = 100;
	ok(msgctl(id, IPC_SET, &ds) == 0 && stat_of(id).msg_qbytes == 100,
	   "IPC_SET msg_qbytes 100");
	ok(send(id, 1, "0123456789012345678901234567890123456789012345678901234567890", 0) == 0,
	   "61 bytes");
	is_errno(send(id, 1, "0123456789012345678901234567890123456789", IPC_NOWAIT), EAGAIN,
		 "40 more do not fit, IPC_NOWAIT: EAGAIN");
	ok(send(id, 1, "012345678901234567890123456789012345678", IPC_NOWAIT) == 0, "39 do");
	msgctl(id, IPC_RMID, NULL);
	id = msgget(IPC_PRIVATE, 0600);
	ds = stat_of(id);
	ds.msg_qbytes = 2;
	msgctl(id, IPC_SET, &ds);
	ok(send(id, 1, "", IPC_NOWAIT) == 0 && send(id, 1, "", IPC_NOWAIT) == 0,
	   "msg_qbytes 2: two empty messages");
	is_errno(send(id, 1, "", IPC_NOWAIT), EAGAIN, "a third: EAGAIN (messages count too)");
	msgctl(id, IPC_RMID, NULL);
}

static void test_receive_errors(void)
{
	int id = msgget(IPC_PRIVATE, 0600);
	struct msg m;

	is_errno(msgrcv(-1, &m, 10, 0, IPC_NOWAIT), EINVAL, "id -1: EINVAL");
	is_errno(msgrcv(id + 1, &m, 10, 0, IPC_NOWAIT), EINVAL, "a bad id: EINVAL");
	is_errno(msgrcv(id, &m, (size_t)-1, 0, IPC_NOWAIT), EINVAL, "a negative size: EINVAL");
	is_errno(msgrcv(id, &m, 10, 0, MSG_COPY), EINVAL, "MSG_COPY without IPC_NOWAIT: EINVAL");
	is_errno(msgrcv(id, &m, 10, 0, MSG_COPY | IPC_NOWAIT | MSG_EXCEPT), EINVAL,
		 "MSG_COPY with MSG_EXCEPT: EINVAL");
	send(id, 1, "lost", 0);
	is_errno(msgrcv(id, (void *)16, 10, 0, IPC_NOWAIT), EFAULT, "a bad buffer: EFAULT");
	is_int(stat_of(id).msg_qnum, 0, "and the message is lost, as Linux");
	msgctl(id, IPC_RMID, NULL);
}

/* MSG_COPY: the message at an index, copied, left in the queue. */
static void test_copy(void)
{
	int id = msgget(IPC_PRIVATE, 0600);
	struct msg m = {0, ""};

	send(id, 7, "first", 0);
	send(id, 8, "second", 0);
	send(id, 9, "third", 0);
	ok(msgrcv(id, &m, sizeof m.mtext, 1, MSG_COPY | IPC_NOWAIT) == 6 && m.mtype == 8 &&
	       !memcmp(m.mtext, "second", 6),
	   "MSG_COPY of index 1: the second message");
	is_int(stat_of(id).msg_qnum, 3, "left in the queue");
	is_errno(msgrcv(id, &m, sizeof m.mtext, 3, MSG_COPY | IPC_NOWAIT), ENOMSG,
		 "index 3 of 3: ENOMSG");
	is_errno(msgrcv(id, &m, 2, 0, MSG_COPY | IPC_NOWAIT), E2BIG, "a short buffer: E2BIG");
	is_errno(msgrcv(id, &m, 2, 0, MSG_COPY | IPC_NOWAIT | MSG_NOERROR), EINVAL,
		 "a short buffer with MSG_NOERROR: EINVAL (Linux's copy_msg)");
	msgctl(id, IPC_RMID, NULL);
}

static void test_ctl(void)
{
	int id = msgget(IPC_PRIVATE, 0600), idx, found = 0;
	struct msginfo info;
	struct msqid_ds ds;

	send(id, 1, "abc", 0);
	send(id, 1, "de", 0);
	idx = msgctl(0, IPC_INFO, (struct msqid_ds *)&info);
	ok(idx >= (id & 0x7fff) && info.msgmax == 8192 && info.msgmnb == 16384 &&
	       info.msgmni == 32000 && info.msgssz == 16 && info.msgseg == 0xffff &&
	       info.msgpool == 512000 && info.msgmap == 16384 && info.msgtql == 16384,
	   "IPC_INFO: Linux's limits, the highest index");
	idx = msgctl(0, MSG_INFO, (struct msqid_ds *)&info);
	ok(idx >= (id & 0x7fff) && info.msgpool >= 1 && info.msgmap >= 2 && info.msgtql >= 5,
	   "MSG_INFO: queues, messages and bytes in use");
	for (int i = 0; i <= idx; i++)
		found += msgctl(i, MSG_STAT, &ds) == id && ds.msg_qnum == 2 && ds.msg_cbytes == 5;
	is_int(found, 1, "MSG_STAT by index finds it once, returning its id");
	is_int(msgctl(id & 0x7fff, MSG_STAT_ANY, &ds), id, "MSG_STAT_ANY by its index");
	is_errno(msgctl(idx + 1, MSG_STAT, &ds), EINVAL, "MSG_STAT past the highest index: EINVAL");
	is_errno(msgctl(id, IPC_STAT, (void *)16), EFAULT, "IPC_STAT to a bad buffer: EFAULT");
	is_errno(msgctl(0, IPC_INFO, (void *)16), EFAULT, "IPC_INFO to a bad buffer: EFAULT");
	is_errno(msgctl(id, IPC_SET, (void *)16), EFAULT, "IPC_SET from a bad buffer: EFAULT");
	is_errno(msgctl(-1, IPC_STAT, &ds), EINVAL, "id -1: EINVAL");
	is_errno(msgctl(id + 0x8000, IPC_STAT, &ds), EINVAL,
		 "the right index with another sequence number: EINVAL");
	is_errno(syscall(SYS_msgctl, id, 99, &ds), EINVAL, "an unknown command: EINVAL");
	is_errno(syscall(SYS_msgctl, id, -1, &ds), EINVAL, "a negative command: EINVAL");
	ds = stat_of(id);
	ds.msg_perm.mode = 0444;
	ds.msg_perm.uid = 1234;
	ds.msg_qbytes = 100000;
	if (has_cap(24 /* CAP_SYS_RESOURCE */))
		ok(msgctl(id, IPC_SET, &ds) == 0,
		   "IPC_SET, msg_qbytes above MSGMNB with CAP_SYS_RESOURCE");
	else
		is_errno(msgctl(id, IPC_SET, &ds), EPERM,
			 "IPC_SET, msg_qbytes above MSGMNB without CAP_SYS_RESOURCE: EPERM");
	ds.msg_qbytes = has_cap(24) ? 100000 : 1000;
	ok(msgctl(id, IPC_SET, &ds) == 0, "IPC_SET");
	ds = stat_of(id);
	ok((ds.msg_perm.mode & 0777) == 0444 && ds.msg_perm.uid == 1234 &&
	       ds.msg_perm.cuid == getuid() && ds.msg_qbytes == (has_cap(24) ? 100000 : 1000),
	   "IPC_SET changes the mode, owner and msg_qbytes");
	ds.msg_perm.uid = (uid_t)-1;
	is_errno(msgctl(id, IPC_SET, &ds), EINVAL, "IPC_SET to uid -1: EINVAL");
	ok(msgctl(id, IPC_RMID, NULL) == 0, "IPC_RMID with messages queued");
	is_errno(msgctl(id, IPC_RMID, NULL), EINVAL, "IPC_RMID again: EINVAL");
	is_errno(send(id, 1, "x", 0), EINVAL, "msgsnd to a removed queue: EINVAL");
}

/* /proc/sysvipc/msg: Linux's columns, one line per queue. */
static void test_proc(void)
{
	key_t key = key_of(3);
	int id = msgget(key, IPC_CREAT | 0600);
	FILE *f = fopen("/proc/sysvipc/msg", "r");
	bool header = false, found = false;
	char line[256];

	send(id, 1, "12345", 0);
	send(id, 2, "678", 0);
	while (f && fgets(line, sizeof line, f)) {
		int k, i, mode, lspid, lrpid;
		unsigned long cbytes, qnum;
		if (strstr(line, "       key      msqid perms      cbytes       qnum lspid lrpid"))
			header = true;
		else if (sscanf(line, "%d %d %o %lu %lu %d %d", &k, &i, &mode, &cbytes, &qnum,
				&lspid, &lrpid) == 7 &&
			 i == id)
			found = k == key && mode == 0600 && cbytes == 8 && qnum == 2 &&
				lspid == getpid() && lrpid == 0;
	}
	ok(f && header, "/proc/sysvipc/msg has Linux's header");
	ok(found, "and a line for the queue: key, id, mode, bytes, messages, pids");
	if (f)
		fclose(f);
	msgctl(id, IPC_RMID, NULL);
}

int main(void)
{
	plan(74);
	test_get();
	test_send_receive();
	test_send_errors();
	test_full();
	test_receive_errors();
	test_copy();
	test_ctl();
	test_proc();
	return done();
}
