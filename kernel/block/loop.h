/*
 * Loop devices (block/loop.c): their disk operations (to recognise a loop
 * disk), /dev/loop-control's file operations, start-up and the count.
 */
#ifndef BLOCK_LOOP_H
#define BLOCK_LOOP_H

struct disk_ops;
struct file_ops;

extern const struct disk_ops loop_disk_ops;
extern const struct file_ops loop_ctl_ops; /* /dev/loop-control, 10:237 */
/* Makes loop0..7, as Linux's default; needs /dev (devices_init). */
void loop_init(void);
/* Loop devices alive (leak accounting). */
unsigned long loop_count(void);

#endif
