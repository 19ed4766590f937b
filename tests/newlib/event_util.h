/* What the eventfd, timerfd and select tests share: the monotonic clock in
 * ms, 8-byte reads and writes, readiness of one fd, a child that acts
 * after a delay, and a signal that interrupts a sleep. */
#ifndef EVENT_UTIL_H
#define EVENT_UTIL_H

#include "fd_util.h"

#include <poll.h>
#include <signal.h>
#include <stdint.h>

static inline long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* One 8-byte read: the value, or -1 with errno. */
static inline int64_t read8(int fd)
{
	uint64_t v;

	return read(fd, &v, sizeof v) == sizeof v ? (int64_t)v : -1;
}

static inline long write8(int fd, uint64_t v)
{
	return write(fd, &v, sizeof v);
}

/* The revents of fd for events, without waiting. */
static inline short ready(int fd, short events)
{
	struct pollfd p = {fd, events, 0};

	return poll(&p, 1, 0) < 0 ? -1 : p.revents;
}

/* In a child: after ms, write v to fd as 8 bytes (ms < 0: read 8 bytes). */
static inline pid_t later8(int fd, int ms, uint64_t v)
{
	pid_t pid;

	fflush(stdout);
	if ((pid = fork()) == 0) {
		sleep_ms(ms < 0 ? -ms : ms);
		_exit((ms < 0 ? read8(fd) : write8(fd, v)) < 0);
	}
	return pid;
}

/* Waits for child pid: whether it exited 0. */
static inline bool reaped_ok(pid_t pid)
{
	int status;

	return pid > 0 && waitpid(pid, &status, 0) == pid && exited_with(status, 0);
}

static volatile sig_atomic_t got_signal;

static inline void on_signal(int sig)
{
	(void)sig;
	got_signal = 1;
}

/* In a child: SIGUSR1 to the caller after ms (its handler: no SA_RESTART). */
static inline pid_t signal_later(int ms)
{
	struct sigaction sa = {.sa_handler = on_signal};
	pid_t pid, parent = getpid();

	got_signal = 0;
	sigaction(SIGUSR1, &sa, NULL);
	fflush(stdout);
	if ((pid = fork()) == 0) {
		sleep_ms(ms);
		kill(parent, SIGUSR1);
		_exit(0);
	}
	return pid;
}

#endif
