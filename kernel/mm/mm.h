/* Memory management bring-up: frames, then paging, then the heap. */
#ifndef MM_MM_H
#define MM_MM_H

void mm_init(void);
void mm_selftest(void);

#endif
