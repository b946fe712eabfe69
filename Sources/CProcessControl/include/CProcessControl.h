#ifndef CPROCESSCONTROL_H
#define CPROCESSCONTROL_H

#include <sys/types.h>

/// Makes this process the reaper of its descendants' orphans (Linux's `prctl(PR_SET_CHILD_SUBREAPER)`, variadic, so
/// Swift cannot call it): a process whose parent exits is then reparented to this one instead of to PID 1. Returns 0,
/// or an errno (`ENOSYS` where the system has no such thing).
int monitor_become_subreaper(void);

/// Starts `path` with `argv` (ending with NULL) and an empty environment, in a session of its own, every signal at
/// its default and none blocked, reading `input` as its standard input, its standard output and error `/dev/null`,
/// and no other descriptor of this process (`posix_spawn_file_actions_addclosefrom_np`, which Swift does not import).
/// Returns 0 and sets `*pid`, or an errno.
int monitor_spawn_detached(const char *path, char *const argv[], int input, pid_t *pid);

#endif
