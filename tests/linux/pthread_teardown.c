/* Ending a threaded process in hostile orders: exit() while other threads
 * block in read, accept, a condition wait and nanosleep; a fault in one
 * thread; SIGKILL aimed at one thread; a signal to a process whose main
 * thread has already left (a zombie leader).  Each ends the whole process
 * at once with the right status (the guest's leak check then shows that
 * nothing of the threads stayed behind). */
#define _GNU_SOURCE
#include <signal.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "threads.h"

static int pipe_fds[2], listener = -1;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t never = PTHREAD_COND_INITIALIZER;

static void *block_read(void *arg)
{
	char c;

	(void)arg;
	read(pipe_fds[0], &c, 1);
	return NULL;
}

static void *block_accept(void *arg)
{
	(void)arg;
	accept(listener, NULL, NULL);
	return NULL;
}

static void *block_cond(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&lock);
	while (pthread_cond_wait(&never, &lock) == 0)
		; /* nobody signals it */
	return NULL;
}

static void *block_sleep(void *arg)
{
	(void)arg;
	while (sleep(100) == 0)
		;
	return NULL; /* a signal handler ran: none is installed */
}

/* Starts one thread blocked in each way, gives them time to block. */
static void start_blockers(void)
{
	require(pipe(pipe_fds) == 0, "pipe");
	listener = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	require(listener >= 0 && bind(listener, (struct sockaddr *)&a, sizeof a) == 0 &&
		    listen(listener, 1) == 0,
		"listener on 127.0.0.1, any port");
	start_thread(block_read, NULL);
	start_thread(block_accept, NULL);
	start_thread(block_cond, NULL);
	start_thread(block_sleep, NULL);
	usleep(50000);
}

static void exit_while_blocked(void)
{
	start_blockers();
	exit(7);
}

static void *fault(void *arg)
{
	usleep(20000);
	*(volatile int *)arg = 1;
	return NULL;
}

static void fault_in_thread(void)
{
	start_blockers();
	start_thread(fault, NULL);
	for (;;)
		pause();
}

static void sigkill_one_thread(void)
{
	start_blockers();
	pthread_kill(start_thread(block_sleep, NULL), SIGKILL);
	for (;;)
		pause();
}

static void leader_leaves(void)
{
	start_blockers();
	pthread_exit(NULL);
}

/* Runs FN in a child; its wait status, and in *MS how long it took. */
static int timed_child(void (*fn)(void), long *ms)
{
	long start = mono_ms();
	int status = child_status(fn);

	*ms = mono_ms() - start;
	return status;
}

int main(void)
{
	long ms;
	int status;

	plan(4);
	status = timed_child(exit_while_blocked, &ms);
	/* Well before the sleeping thread's 100 s: exit did not wait for it. */
	ok(exited_with(status, 7) && ms < 50000,
	   "exit(7) with threads blocked in read, accept, cond_wait, sleep: status 7 (%ld ms)", ms);
	status = timed_child(fault_in_thread, &ms);
	ok(killed_by(status, SIGSEGV), "a NULL write in one thread kills the process: SIGSEGV");
	status = timed_child(sigkill_one_thread, &ms);
	ok(killed_by(status, SIGKILL), "pthread_kill(SIGKILL) on one thread kills the process");

	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0)
		leader_leaves();
	usleep(100000); /* the main thread is gone by now, the others block */
	kill(pid, SIGTERM);
	ok(waitpid(pid, &status, 0) == pid && killed_by(status, SIGTERM),
	   "SIGTERM to a process whose main thread has left kills it");
	return done();
}
