/*
 * The system-call table: one array from number to handler, built from
 * sys/syscall_list.h.  The dispatcher that reads it, syscall_invoke, is
 * inline in sys/dispatch.h (it runs on every call).
 */
#include "sys/dispatch.h"
#include "sys/syscall_list.h"

#define DECLARE_HANDLER(nr, name) long sys_##name(const uint64_t args[6]);
SYSCALL_LIST(DECLARE_HANDLER)

#define TABLE_ENTRY(nr, name) [nr] = sys_##name,
const syscall_fn syscall_table[NR_SYSCALLS] = {SYSCALL_LIST(TABLE_ENTRY)};

#define DECLARE_PARAMS(nr, name) extern const struct syscall_params sysparams_##name;
SYSCALL_LIST(DECLARE_PARAMS)
#define PARAMS_ENTRY(nr, name) [nr] = &sysparams_##name,
const struct syscall_params *const syscall_params[NR_SYSCALLS] = {SYSCALL_LIST(PARAMS_ENTRY)};
