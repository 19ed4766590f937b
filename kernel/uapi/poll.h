/*
 * poll(2): struct pollfd and event bits, Linux x86_64 values, shared by the
 * kernel and libc/.
 */
#ifndef UAPI_POLL_H
#define UAPI_POLL_H

#define POLLIN	   0x001
#define POLLPRI	   0x002
#define POLLOUT	   0x004
#define POLLERR	   0x008
#define POLLHUP	   0x010
#define POLLNVAL   0x020
#define POLLRDNORM 0x040
#define POLLRDBAND 0x080
#define POLLWRNORM 0x100
#define POLLRDHUP  0x2000 /* the peer shut down writing (or we reading) */
#define POLLWRBAND 0x200
#define POLLMSG	   0x400

struct pollfd {
	int fd;
	short events;
	short revents;
};

#endif
